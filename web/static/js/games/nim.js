// @ts-check
// Hidden Nim: the pile, whose turn it is, take 1/2/3, the history, your own
// secret — and everyone's once the game is over. Views replace the state;
// "took" and "end" beats are applied as deltas.
//
// DOM hooks: #pile (data-pile), #turn (data-turn, data-mine), buttons
// #take-1..3, #secret (data-secret), #history li, #nim-result
// (data-winner), #secrets li[data-seat].

import { h, clear } from '../ui.js';

// The page module's contract: registry.js.
export const id = 'nim';
export const rulesVersion = 'nim/1';
export const icon = 'nim';
export const tagline = '2–4 players, secret numbers';

/** @typedef {import('../api.js').GameInfo} GameInfo */

/** @param {GameInfo} _info */
export function defaults(_info) { return { pile: 21 }; }

/** @param {GameInfo} _info @param {any} settings */
export function describe(_info, settings) { return `Pile of ${settings?.pile || 21}`; }

/**
 * The pile's size (the only mode is classic: no mode to choose).
 * @param {GameInfo} _info
 * @param {any} init
 * @param {string} prefix
 * @returns {import('../registry.js').SettingsForm}
 */
export function settingsForm(_info, init, prefix) {
  const pile = /** @type {HTMLInputElement} */ (h('input', { id: `${prefix}-pile`, name: 'pile', type: 'number', inputmode: 'numeric',
    min: '1', max: '1000', step: '1', value: String(init.pile || 21), required: true }));
  return {
    el: h('div', { class: 'settings-fields' },
      h('div', { class: 'field' }, h('label', { for: pile.id, text: 'Pile size' }), pile),
      h('p', { class: 'hint', text: '2 to 4 players take 1, 2 or 3 in turn. Taking the last one wins — unless you took exactly your secret number.' })),
    read() {
      const n = Number(pile.value);
      if (!Number.isInteger(n) || n < 1 || n > 1000) throw new Error('The pile goes from 1 to 1000.');
      return { pile: n };
    },
  };
}

/**
 * @param {import('../registry.js').GameContext} ctx
 * @returns {import('../registry.js').GameView}
 */
export function create(ctx) {
  const pileNum = h('div', { class: 'nim-count', id: 'pile', 'aria-live': 'polite' });
  const tokens = h('div', { class: 'nim-tokens', 'aria-hidden': 'true' });
  const turn = h('p', { class: 'nim-turn', id: 'turn' });
  const buttons = [1, 2, 3].map((n) => {
    const b = /** @type {HTMLButtonElement} */ (h('button', { class: 'btn btn-primary nim-take', id: `take-${n}`, type: 'button', dataset: { n: String(n) } },
      h('span', { class: 'nim-take-n', text: String(n) }), h('span', { class: 'nim-take-label', text: 'take' })));
    b.addEventListener('click', () => take(n));
    return b;
  });
  const secret = h('div', { class: 'nim-secret', id: 'secret' });
  const history = h('ol', { class: 'nim-history', id: 'history', reversed: true });
  const result = h('div', { class: 'panel nim-result', id: 'nim-result', hidden: true });
  const heading = h('h2', { class: 'nim-title' });
  const el = h('div', { class: 'nim' },
    h('div', { class: 'panel nim-board' },
      heading,
      h('p', { class: 'muted nim-rules', text: 'Take 1, 2 or 3 in turn. Whoever takes the last one wins — unless they took exactly their secret number: then the next player wins.' }),
      h('div', { class: 'nim-pile' }, pileNum, tokens),
      turn,
      h('div', { class: 'nim-actions' }, ...buttons),
      secret),
    result,
    h('div', { class: 'panel nim-log' }, h('h3', { text: 'History' }), history));

  /** @type {any} */
  let view = null;
  /** @type {import('../client.js').RoomInfo|null} */
  let room = null;
  /** @type {number|null} */
  let seat = null;
  let busy = false;

  /** @param {number} n */
  async function take(n) {
    if (busy) return;
    busy = true;
    render();
    try { await ctx.command({ type: 'take', n }); } finally { busy = false; render(); }
  }

  /** @param {any[]} beats */
  function applyBeats(beats) {
    if (!view) return;
    for (const e of beats) {
      if (e.type === 'took') {
        view.pile = e.pile;
        view.history = [...(view.history || []), { seat: e.seat, n: e.n }];
        view.turn = e.pile > 0 && view.seats > 0 ? (e.seat + 1) % view.seats : e.seat;
      } else if (e.type === 'end') {
        view.over = true;
        view.winner = e.winner;
        view.turn = e.lastTaker;
        view.secrets = [...(e.secrets || [])];
      }
    }
    render();
  }

  function render() {
    if (!view) return;
    const over = !!view.over;
    heading.textContent = `Hidden Nim · ${room?.match ? `game ${room.match} · ` : ''}pile of ${view.config?.pile || 21}`;
    pileNum.textContent = String(view.pile);
    pileNum.dataset.pile = String(view.pile);
    clear(tokens);
    const shown = Math.min(view.pile, 60);
    for (let i = 0; i < shown; i++) tokens.append(h('span', { class: 'nim-token' }));
    if (view.pile > shown) tokens.append(h('span', { class: 'nim-more', text: `+${view.pile - shown}` }));

    const mine = !over && seat != null && view.turn === seat;
    turn.dataset.turn = String(view.turn);
    turn.dataset.mine = String(mine);
    turn.textContent = over
      ? (view.winner === seat ? 'You win!' : `${ctx.seatName(view.winner)} wins!`)
      : mine ? 'Your turn — take 1, 2 or 3.' : `${ctx.seatName(view.turn)} is thinking…`;
    document.title = (mine ? 'Your turn · ' : '') + `Room ${room?.code || ''} · roomd`;
    for (const b of buttons) {
      const n = Number(b.dataset.n);
      b.disabled = !mine || busy || n > view.pile || room?.phase !== 'running';
      b.hidden = seat == null;
    }

    const own = seat != null && view.secrets ? view.secrets[seat] : view.secret;
    if (seat == null) {
      secret.textContent = over ? '' : 'Spectators do not see the secrets until the end.';
      delete secret.dataset.secret;
    } else if (own != null) {
      secret.dataset.secret = String(own);
      clear(secret).append('Your secret number: ', h('strong', { class: 'nim-secret-n', text: String(own) }),
        h('span', { class: 'muted', text: ` — take the last one with exactly ${own} and you lose.` }));
    }
    secret.hidden = over && seat == null;

    clear(history);
    const items = view.history || [];
    let left = view.pile + items.reduce((/** @type {number} */ a, /** @type {{n: number}} */ t) => a + t.n, 0);
    /** @type {HTMLElement[]} */
    const rows = [];
    for (const t of items) {
      left -= t.n;
      rows.push(h('li', { dataset: { seat: String(t.seat), n: String(t.n) } },
        h('strong', { text: t.seat === seat ? 'You' : ctx.seatName(t.seat) }), ` took ${t.n} — ${left} left`));
    }
    history.append(...rows.reverse());
    if (!items.length) history.append(h('li', { class: 'muted', text: 'No moves yet.' }));

    if (over && view.secrets) {
      result.hidden = false;
      result.dataset.winner = String(view.winner);
      clear(result).append(
        h('h2', { text: view.winner === seat ? 'You win!' : `${ctx.seatName(view.winner)} wins` }),
        h('p', { class: 'muted', text: explain(view) }),
        h('ul', { class: 'nim-secrets', id: 'secrets' }, ...view.secrets.map((/** @type {number} */ k, /** @type {number} */ i) =>
          h('li', { dataset: { seat: String(i), secret: String(k) } }, h('span', { text: i === seat ? 'You' : ctx.seatName(i) }), h('strong', { text: String(k) })))),
        ctx.isHost()
          ? h('button', { class: 'btn btn-primary', id: 'new-game', type: 'button', on: { click: () => ctx.newGame() } }, 'Play again')
          : h('p', { class: 'muted', text: 'The host can start a new game.' }));
    } else {
      result.hidden = true;
    }
  }

  /** @param {any} v */
  function explain(v) {
    const last = v.history?.[v.history.length - 1];
    if (!last) return '';
    const who = last.seat === seat ? 'You' : ctx.seatName(last.seat);
    if (v.secrets?.[last.seat] === last.n && last.seat !== v.winner) {
      return `${who} took the last one with exactly ${last.n} — their secret — so the next player wins.`;
    }
    return `${who} took the last one.`;
  }

  return {
    el,
    setView(v) {
      view = v ? { ...v, history: [...(v.history || [])] } : null;
      render();
    },
    applyBeats,
    setRoom(info, s) {
      room = info;
      seat = s;
      render();
    },
    setResult() { render(); },
    setClocks() {},
    destroy() { el.remove(); },
  };
}
