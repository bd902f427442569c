// @ts-check
// Hidden Nim: the pile, whose turn it is, take 1/2/3, the history, your own
// secret — and everyone's once the game is over. Views replace the state;
// "took" and "end" beats are applied as deltas.
//
// DOM hooks: #pile (data-pile), #turn (data-turn, data-mine), buttons
// #take-1..3, #secret (data-secret), #history li (each with its move's
// number in .nim-move), #nim-result (data-winner), #secrets li[data-seat].

import { h, clear } from '../ui.js';
import { t } from '../i18n.js';

// The page module's contract: registry.js.
export const id = 'nim';
export const rulesVersion = 'nim/1';
export const icon = 'nim';
export const tagline = t('nim.tagline');

/** @typedef {import('../api.js').GameInfo} GameInfo */

/** @param {GameInfo} _info */
export function defaults(_info) { return { pile: 21 }; }

/** @param {GameInfo} _info @param {any} settings */
export function describe(_info, settings) { return t('nim.describe', { pile: settings?.pile || 21 }); }

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
      h('div', { class: 'field' }, h('label', { for: pile.id, text: t('nim.settings.pile') }), pile),
      h('p', { class: 'hint', text: t('nim.settings.hint') })),
    read() {
      const n = Number(pile.value);
      if (!Number.isInteger(n) || n < 1 || n > 1000) throw new Error(t('nim.settings.pileRange', { min: 1, max: 1000 }));
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
    const b = /** @type {HTMLButtonElement} */ (h('button', { class: 'btn btn-primary nim-take', id: `take-${n}`, type: 'button',
      'aria-label': t('nim.take.aria', { n }), dataset: { n: String(n) } },
      h('span', { class: 'nim-take-n', 'aria-hidden': 'true', text: String(n) }),
      h('span', { class: 'nim-take-label', 'aria-hidden': 'true', text: t('nim.take.label') })));
    b.addEventListener('click', () => take(n));
    return b;
  });
  const actions = h('div', { class: 'nim-actions', role: 'group', 'aria-label': t('nim.take.group') }, ...buttons);
  const secret = h('div', { class: 'nim-secret', id: 'secret' });
  // It scrolls: a tab stop, so that keys can scroll it too.
  const history = h('ol', { class: 'nim-history', id: 'history', tabindex: '0', 'aria-labelledby': 'nim-history-title' });
  const result = h('div', { class: 'panel nim-result', id: 'nim-result', hidden: true });
  const heading = h('h2', { class: 'nim-title' });
  const el = h('div', { class: 'nim' },
    h('div', { class: 'panel nim-board' },
      heading,
      h('p', { class: 'muted nim-rules', text: t('nim.rules') }),
      h('div', { class: 'nim-pile' }, pileNum, tokens),
      turn,
      actions,
      secret),
    result,
    h('div', { class: 'panel nim-log' }, h('h3', { id: 'nim-history-title', text: t('nim.history.title') }), history));

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

  /** A seat's name, or "You" for the viewer's own. @param {number} s */
  function name(s) { return s === seat ? t('nim.you') : ctx.seatName(s); }

  function render() {
    if (!view) return;
    const over = !!view.over;
    heading.textContent = room?.match
      ? t('nim.headingMatch', { match: room.match, pile: view.config?.pile || 21 })
      : t('nim.heading', { pile: view.config?.pile || 21 });
    // The number for the eye, a sentence for screen readers.
    clear(pileNum).append(h('span', { 'aria-hidden': 'true', text: String(view.pile) }),
      h('span', { class: 'nim-sr', text: t('nim.pile.left', { n: view.pile }) }));
    pileNum.dataset.pile = String(view.pile);
    clear(tokens);
    const shown = Math.min(view.pile, 60);
    for (let i = 0; i < shown; i++) tokens.append(h('span', { class: 'nim-token' }));
    if (view.pile > shown) tokens.append(h('span', { class: 'nim-more', text: `+${view.pile - shown}` })); // i18n-ok: a number

    const mine = !over && seat != null && view.turn === seat;
    turn.dataset.turn = String(view.turn);
    turn.dataset.mine = String(mine);
    // Once over, the result below says who won: the turn line would say it twice.
    turn.textContent = over ? '' : mine ? t('nim.turn.yours') : t('nim.turn.thinking', { name: ctx.seatName(view.turn) });
    turn.hidden = over;
    document.title = mine ? t('nim.docTitle.yourTurn', { code: room?.code || '' }) : t('nim.docTitle', { code: room?.code || '' });
    for (const b of buttons) {
      const n = Number(b.dataset.n);
      b.disabled = !mine || busy || n > view.pile || room?.phase !== 'running';
      b.hidden = seat == null || over;
    }
    actions.hidden = seat == null || over;

    const own = seat != null && view.secrets ? view.secrets[seat] : view.secret;
    if (seat == null) {
      secret.textContent = over ? '' : t('nim.secret.spectator');
      delete secret.dataset.secret;
    } else if (own != null) {
      secret.dataset.secret = String(own);
      clear(secret).append(t('nim.secret.yours'), ' ', h('strong', { class: 'nim-secret-n', text: String(own) }),
        h('span', { class: 'muted', text: ` — ${t('nim.secret.hint', { n: own })}` }));
    }
    secret.hidden = over && seat == null;

    // The history, newest first, each move with its number (a span of its
    // own: a list marker is clipped once the numbers have two digits).
    clear(history);
    const items = view.history || [];
    let left = view.pile + items.reduce((/** @type {number} */ a, /** @type {{n: number}} */ m) => a + m.n, 0);
    /** @type {HTMLElement[]} */
    const rows = [];
    items.forEach((/** @type {{seat: number, n: number}} */ m, /** @type {number} */ i) => {
      left -= m.n;
      rows.push(h('li', { dataset: { seat: String(m.seat), n: String(m.n) } },
        h('span', { class: 'nim-move', text: String(i + 1) }),
        h('span', { class: 'nim-move-text' }, h('strong', { text: name(m.seat) }), ' ', t('nim.history.took', { n: m.n, left }))));
    });
    history.append(...rows.reverse());
    if (!items.length) history.append(h('li', { class: 'muted', text: t('nim.history.none') }));

    if (over && view.secrets) {
      result.hidden = false;
      result.dataset.winner = String(view.winner);
      clear(result).append(
        h('h2', { text: view.winner === seat ? t('nim.youWin')
          : seat != null ? t('nim.youLose', { name: ctx.seatName(view.winner) })
            : t('nim.winsPlain', { name: ctx.seatName(view.winner) }) }),
        h('p', { class: 'muted nim-explain', text: explain(view) }),
        h('ul', { class: 'nim-secrets', id: 'secrets', 'aria-label': t('nim.secrets.aria') }, ...view.secrets.map((/** @type {number} */ k, /** @type {number} */ i) =>
          h('li', { dataset: { seat: String(i), secret: String(k) } }, h('span', { text: name(i) }), h('strong', { text: String(k) })))),
        ctx.isHost()
          ? h('button', { class: 'btn btn-primary', id: 'new-game', type: 'button', on: { click: () => ctx.newGame() }, text: t('nim.playAgain') })
          : h('p', { class: 'muted', text: t('nim.hostRestarts') }));
    } else {
      result.hidden = true;
    }
  }

  /**
   * Why the game ended so: who took the last one, and when it was exactly
   * that seat's secret, whose secret it was (the viewer's own or the other
   * player's) and who wins instead.
   * @param {any} v
   */
  function explain(v) {
    const last = v.history?.[v.history.length - 1];
    if (!last) return '';
    const mine = last.seat === seat;
    if (v.secrets?.[last.seat] === last.n && last.seat !== v.winner) {
      if (mine) return t('nim.explain.ownSecret', { n: last.n, winner: ctx.seatName(v.winner) });
      if (v.winner === seat) return t('nim.explain.theirSecretYouWin', { name: ctx.seatName(last.seat), n: last.n });
      return t('nim.explain.theirSecret', { name: ctx.seatName(last.seat), n: last.n, winner: ctx.seatName(v.winner) });
    }
    return mine ? t('nim.explain.youTookLast') : t('nim.explain.tookLast', { name: ctx.seatName(last.seat) });
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
