// @ts-check
// Connect Four's page: seven column buttons over a 6×7 grid, whose turn it
// is, the result and a rematch. It keeps no copy of the rules: each
// update's beats are played on the view by the game's own Go reducer
// (View.Apply) through ctx.follow, in its WebAssembly core.
//
// The view (game/connectfour.go): {"grid":["......."×6, top row first],
// "turn":S,"phase":"active"|"won"|"draw","winner"?:S,"line"?:[[r,c]…]}.
// A command: {"type":"drop","col":C}.
//
// DOM hooks (the Chromium test reads them): .c4[data-followed] counts the
// updates played through the core; #c4-grid with 42
// .c4-cell[data-r][data-c][data-disc], #c4-cols with 7 button.c4-drop[data-col]
// (disabled when not droppable now), #c4-status (data-phase, data-mine),
// #c4-result (data-phase, data-winner), #new-game.

import { h, clear } from '../ui.js';
import { t } from '../i18n.js';

export const id = 'connectfour';
export const rulesVersion = 'connectfour/1';
export const tagline = t('connectfour.tagline');

const COLS = 7, ROWS = 6;

/** @param {any} _info */
export function defaults(_info) { return {}; }

/** @param {any} _info @param {any} _settings */
export function describe(_info, _settings) { return t('connectfour.describe'); }

/** @param {import('../registry.js').GameContext} ctx */
export function create(ctx) {
  const status = h('p', { class: 'c4-status', id: 'c4-status', 'aria-live': 'polite' });
  const cols = h('div', { class: 'c4-cols', id: 'c4-cols', role: 'group', 'aria-label': t('connectfour.columns') });
  /** @type {HTMLButtonElement[]} */
  const drops = [];
  for (let c = 0; c < COLS; c++) {
    const b = /** @type {HTMLButtonElement} */ (h('button', { class: 'btn c4-drop', type: 'button', dataset: { col: String(c) },
      'aria-label': t('connectfour.drop', { col: c + 1 }), text: '↓' }));
    b.addEventListener('click', () => drop(c));
    drops.push(b);
  }
  cols.append(...drops);
  const grid = h('div', { class: 'c4-grid', id: 'c4-grid', role: 'img', 'aria-label': t('connectfour.grid') });
  /** @type {HTMLElement[]} */
  const cells = [];
  for (let r = 0; r < ROWS; r++) {
    for (let c = 0; c < COLS; c++) {
      const cell = h('span', { class: 'c4-cell', dataset: { r: String(r), c: String(c), disc: '' } });
      cells.push(cell);
    }
  }
  grid.append(...cells);
  const result = h('div', { class: 'panel c4-result', id: 'c4-result', hidden: true });
  const el = h('div', { class: 'c4' }, h('div', { class: 'panel' }, h('h2', { text: t('connectfour.heading') }), status, cols, grid), result);
  grid.setAttribute('style', `display:grid;grid-template-columns:repeat(${COLS},2.2rem);gap:.2rem`);
  cols.setAttribute('style', `display:grid;grid-template-columns:repeat(${COLS},2.2rem);gap:.2rem`);

  /** @type {any} */
  let view = null;
  /** @type {any} */
  let room = null;
  /** @type {number|null} */
  let seat = null;
  /** @type {any} */
  let ended = null;
  let busy = false;
  /** Beats are played in order, one update after the other. */
  let chain = Promise.resolve();

  function myTurn() {
    return !!view && view.phase === 'active' && !ended && seat != null && view.turn === seat && room?.phase === 'running';
  }

  /** @param {number} c */
  async function drop(c) {
    if (!myTurn() || busy || view.grid[0][c] !== '.') return;
    busy = true;
    render();
    try { await ctx.command({ type: 'drop', col: c }); } finally { busy = false; render(); }
  }

  /** @param {number|null|undefined} s */
  function who(s) { return s == null ? '' : s === seat ? t('connectfour.you') : ctx.seatName(s); }

  function render() {
    if (!view) return;
    const mine = myTurn();
    status.dataset.phase = view.phase;
    status.dataset.mine = String(mine);
    status.textContent = view.phase === 'won' ? t('connectfour.wins', { who: who(view.winner) })
      : view.phase === 'draw' ? t('connectfour.draw')
        : mine ? t('connectfour.yourTurn') : t('connectfour.toPlay', { who: who(view.turn) });
    const win = new Set((view.line || []).map((/** @type {number[]} */ p) => p[0] * COLS + p[1]));
    cells.forEach((cell, i) => {
      const d = view.grid[Math.floor(i / COLS)]?.[i % COLS];
      cell.dataset.disc = d === '0' || d === '1' ? d : '';
      cell.textContent = d === '0' ? '●' : d === '1' ? '○' : '·';
      if (win.has(i)) cell.dataset.win = 'true'; else delete cell.dataset.win;
    });
    drops.forEach((b, c) => { b.disabled = !mine || busy || view.grid[0][c] !== '.'; });
    const over = view.phase !== 'active';
    if (!over && !ended) { result.hidden = true; return; }
    const w = over ? view.winner : ended?.winners?.[0];
    result.hidden = false;
    result.dataset.phase = over ? view.phase : ended.status;
    result.dataset.winner = String(w ?? '');
    clear(result).append(
      h('h2', { text: w == null ? t('connectfour.draw') : t('connectfour.wins', { who: who(w) }) }),
      ctx.isHost()
        ? h('button', { class: 'btn btn-primary', id: 'new-game', type: 'button', on: { click: () => ctx.newGame() }, text: t('connectfour.playAgain') })
        : h('p', { class: 'muted', text: t('connectfour.hostRestarts') }));
  }

  return {
    el,
    setView(v) {
      chain = Promise.resolve();
      view = v;
      render();
    },
    applyBeats(beats) {
      chain = chain.then(async () => {
        if (!view) return;
        view = await ctx.follow(view, beats);
        el.dataset.followed = String(Number(el.dataset.followed || 0) + 1);
        render();
      }).catch((err) => { console.warn('connectfour:', err); ctx.resync(); });
    },
    setRoom(info, s) { room = info; seat = s; render(); },
    setResult(res) { ended = res || null; render(); },
    setClocks() {},
    destroy() { el.remove(); },
  };
}
