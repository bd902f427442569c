// @ts-check
// Tic-tac-toe: a 3×3 grid of buttons, whose turn it is, the result and a
// rematch. Nothing is hidden, so players and spectators see the same view.
// Views replace the state; "mark" and "end" beats are applied as deltas,
// exactly as core/tictactoe's View.Apply does.
//
// The view (core/tictactoe/view.go):
//   {"board":["X..",".O.","..."],"turn":0,"phase":"active"}
//   + "winner":S,"line":[{"r":R,"c":C},...] once won; "phase" is active,
//   won or draw. Seat 0 plays X, seat 1 plays O.
// The beats: {"type":"mark","seat":S,"r":R,"c":C} and
//   {"type":"end","phase":"won","winner":S,"line":[...]} or {"type":"end","phase":"draw"}.
//
// Keyboard: Tab reaches the grid (one stop), the arrow keys move between
// squares, Enter or Space marks the focused one.
//
// DOM hooks: #ttt-board with 9 button.ttt-cell[data-r][data-c][data-mark]
// (data-win on the winning line, aria-disabled when it cannot be marked
// now), #ttt-status (data-phase, data-turn, data-mine), #ttt-result
// (data-phase: won, draw or the room's status such as resigned;
// data-winner), #new-game.

import { h, clear } from '../ui.js';
import { t } from '../i18n.js';

// The page module's contract: registry.js.
export const id = 'tictactoe';
export const rulesVersion = 'tictactoe/1';
export const icon = 'tictactoe';
export const tagline = t('tictactoe.tagline');

/** @typedef {import('../api.js').GameInfo} GameInfo */

const SIZE = 3;
const MARKS = ['X', 'O'];

/** @param {GameInfo} _info */
export function defaults(_info) { return {}; }

/** @param {GameInfo} _info @param {any} _settings */
export function describe(_info, _settings) { return t('tictactoe.describe'); }

/**
 * Tic-tac-toe has nothing to set up: the form only says how to play.
 * @param {GameInfo} _info
 * @param {any} _init
 * @param {string} _prefix
 * @returns {import('../registry.js').SettingsForm}
 */
export function settingsForm(_info, _init, _prefix) {
  return {
    el: h('div', { class: 'settings-fields' },
      h('p', { class: 'hint', text: t('tictactoe.settings.hint') })),
    read() { return {}; },
  };
}

/**
 * @param {import('../registry.js').GameContext} ctx
 * @returns {import('../registry.js').GameView}
 */
export function create(ctx) {
  const heading = h('h2', { class: 'ttt-title' });
  const players = h('p', { class: 'ttt-players' });
  const status = h('p', { class: 'ttt-status', id: 'ttt-status', 'aria-live': 'polite' });
  const board = h('div', { class: 'ttt-board', id: 'ttt-board', role: 'group', 'aria-label': t('tictactoe.board') });
  /** @type {HTMLButtonElement[]} */
  const cells = [];
  for (let r = 0; r < SIZE; r++) {
    for (let c = 0; c < SIZE; c++) {
      const b = /** @type {HTMLButtonElement} */ (h('button', { class: 'ttt-cell', type: 'button', tabindex: '-1',
        dataset: { r: String(r), c: String(c), mark: '' } }));
      b.addEventListener('click', () => mark(r, c));
      b.addEventListener('focus', () => { focusAt = r * SIZE + c; roving(); });
      cells.push(b);
    }
  }
  board.append(...cells);
  board.addEventListener('keydown', onKey);
  const result = h('div', { class: 'panel ttt-result', id: 'ttt-result', hidden: true });
  const el = h('div', { class: 'ttt' },
    h('div', { class: 'panel ttt-main' }, heading, players, status, board),
    result);

  /** @type {any} */
  let view = null;
  /** @type {import('../client.js').RoomInfo|null} */
  let room = null;
  /** @type {number|null} */
  let seat = null;
  /** @type {import('../client.js').Result|null} */
  let ended = null;
  let busy = false;
  let focusAt = 4; // the square the grid's one tab stop is on

  /** The mark at (r, c): 'X', 'O' or ''. */
  function at(/** @type {number} */ r, /** @type {number} */ c) {
    const m = view?.board?.[r]?.[c];
    return m === 'X' || m === 'O' ? m : '';
  }

  function myTurn() {
    return !!view && view.phase === 'active' && !ended && seat != null && view.turn === seat && room?.phase === 'running';
  }

  /** @param {number} r @param {number} c */
  function playable(r, c) { return myTurn() && !busy && at(r, c) === ''; }

  /** @param {number} r @param {number} c */
  async function mark(r, c) {
    if (!playable(r, c)) return;
    busy = true;
    render();
    try { await ctx.command({ type: 'mark', r, c }); } finally { busy = false; render(); }
  }

  /** Arrow keys move the focus around the grid; Enter and Space click. */
  function onKey(/** @type {KeyboardEvent} */ ev) {
    const moves = /** @type {Record<string, number[]>} */ ({ ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] });
    const d = moves[ev.key];
    if (!d) return;
    ev.preventDefault();
    const r = Math.min(SIZE - 1, Math.max(0, Math.floor(focusAt / SIZE) + d[0]));
    const c = Math.min(SIZE - 1, Math.max(0, (focusAt % SIZE) + d[1]));
    focusAt = r * SIZE + c;
    roving();
    cells[focusAt].focus();
  }

  /** One tab stop for the whole grid: the focused (or last focused) square. */
  function roving() {
    cells.forEach((b, i) => { b.tabIndex = i === focusAt ? 0 : -1; });
  }

  /** @param {number|null|undefined} s */
  function who(s) {
    if (s == null) return '';
    return t('tictactoe.who', { name: s === seat ? t('tictactoe.you') : ctx.seatName(s), mark: MARKS[s] });
  }

  /** @param {any[]} beats */
  function applyBeats(beats) {
    if (!view) return;
    for (const e of beats) {
      if (e.type === 'mark') {
        const row = view.board[e.r];
        if (typeof row !== 'string') continue;
        view.board[e.r] = row.slice(0, e.c) + MARKS[e.seat] + row.slice(e.c + 1);
        view.turn = (e.seat + 1) % 2;
      } else if (e.type === 'end') {
        view.phase = e.phase;
        delete view.winner;
        delete view.line;
        if (e.winner != null) {
          view.winner = e.winner;
          view.line = [...(e.line || [])];
        }
      }
    }
    render();
  }

  function render() {
    if (!view) return;
    const over = view.phase !== 'active';
    const live = !over && !ended;
    heading.textContent = room?.match ? t('tictactoe.headingMatch', { match: room.match }) : t('tictactoe.heading');
    clear(players).append(
      h('span', { class: 'ttt-who', dataset: { mark: 'X' } }, h('strong', { text: 'X' }), ' ', seat === 0 ? t('tictactoe.you') : ctx.seatName(0)),
      h('span', { class: 'muted', text: ` ${t('tictactoe.vs')} ` }),
      h('span', { class: 'ttt-who', dataset: { mark: 'O' } }, h('strong', { text: 'O' }), ' ', seat === 1 ? t('tictactoe.you') : ctx.seatName(1)));

    const mine = myTurn();
    status.dataset.phase = view.phase;
    status.dataset.turn = String(view.turn);
    status.dataset.mine = String(mine);
    if (view.phase === 'won') {
      status.textContent = view.winner === seat ? t('tictactoe.youWin') : t('tictactoe.wins', { who: who(view.winner) });
    } else if (view.phase === 'draw') {
      status.textContent = t('tictactoe.status.draw');
    } else if (ended) {
      status.textContent = t('tictactoe.status.ended');
    } else if (mine) {
      status.textContent = t('tictactoe.status.yourTurn', { mark: MARKS[view.turn] });
    } else {
      status.textContent = seat == null ? t('tictactoe.status.toPlay', { who: who(view.turn) }) : t('tictactoe.status.thinking', { who: who(view.turn) });
    }
    document.title = mine ? t('tictactoe.docTitle.yourTurn', { code: room?.code || '' }) : t('tictactoe.docTitle', { code: room?.code || '' });

    const win = new Set((view.line || []).map((/** @type {{r: number, c: number}} */ p) => p.r * SIZE + p.c));
    cells.forEach((b, i) => {
      const r = Math.floor(i / SIZE), c = i % SIZE, m = at(r, c);
      b.dataset.mark = m;
      b.textContent = m;
      b.setAttribute('aria-label', t('tictactoe.cell', { r: r + 1, c: c + 1, mark: m || t('tictactoe.empty') }));
      b.setAttribute('aria-disabled', String(!playable(r, c)));
      if (win.has(i)) b.dataset.win = 'true'; else delete b.dataset.win;
    });
    board.dataset.mine = String(mine && !busy);
    board.dataset.live = String(live);

    renderResult(over);
  }

  /** The result panel: the game's verdict, or the room's (a resignation). */
  function renderResult(/** @type {boolean} */ over) {
    if (!over && !ended) {
      result.hidden = true;
      return;
    }
    let phase, title, line;
    if (over) {
      phase = view.phase;
      title = view.phase === 'draw' ? t('tictactoe.result.draw') : view.winner === seat ? t('tictactoe.youWin') : t('tictactoe.winsPlain', { who: who(view.winner) });
      line = view.phase === 'draw' ? t('tictactoe.result.drawLine') : t('tictactoe.result.wonLine');
    } else {
      const res = /** @type {import('../client.js').Result} */ (ended);
      const w = res.winners?.[0];
      phase = res.status;
      title = w == null ? t('tictactoe.result.ended') : w === seat ? t('tictactoe.youWin') : t('tictactoe.winsPlain', { who: who(w) });
      const out = res.timedOut?.[0];
      line = res.status === 'resigned' ? t('tictactoe.result.resigned')
        : res.status === 'timeout' && out != null ? (out === seat ? t('tictactoe.result.youTimedOut') : t('tictactoe.result.timedOut', { who: who(out) }))
        : t('tictactoe.result.endedWhy', { status: res.status });
    }
    result.hidden = false;
    result.dataset.phase = phase;
    result.dataset.winner = String(over ? view.winner ?? '' : ended?.winners?.[0] ?? '');
    clear(result).append(
      h('h2', { text: title }),
      h('p', { class: 'muted', text: line }),
      ctx.isHost()
        ? h('button', { class: 'btn btn-primary', id: 'new-game', type: 'button', on: { click: () => ctx.newGame() }, text: t('tictactoe.playAgain') })
        : h('p', { class: 'muted', text: t('tictactoe.hostRestarts') }));
  }

  roving();
  return {
    el,
    setView(v) {
      view = v ? { ...v, board: [...(v.board || [])], line: v.line ? [...v.line] : undefined } : null;
      render();
    },
    applyBeats,
    setRoom(info, s) {
      room = info;
      seat = s;
      render();
    },
    setResult(res) {
      ended = res || null;
      render();
    },
    setClocks() {},
    destroy() { el.remove(); },
  };
}
