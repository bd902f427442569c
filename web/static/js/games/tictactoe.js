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

// The page module's contract: registry.js.
export const id = 'tictactoe';
export const rulesVersion = 'tictactoe/1';
export const icon = 'tictactoe';
export const tagline = '2 players, three in a row';

/** @typedef {import('../api.js').GameInfo} GameInfo */

const SIZE = 3;
const MARKS = ['X', 'O'];

/** @param {GameInfo} _info */
export function defaults(_info) { return {}; }

/** @param {GameInfo} _info @param {any} _settings */
export function describe(_info, _settings) { return 'Classic 3×3 · X moves first'; }

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
      h('p', { class: 'hint', text: 'Two players mark X and O in turn; three in a row — across, down or diagonally — wins. Playing alone? Add an AI player in the room.' })),
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
  const board = h('div', { class: 'ttt-board', id: 'ttt-board', role: 'group', 'aria-label': 'Board' });
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
    return `${s === seat ? 'You' : ctx.seatName(s)} (${MARKS[s]})`;
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
    heading.textContent = `Tic-tac-toe${room?.match ? ` · game ${room.match}` : ''}`;
    clear(players).append(
      h('span', { class: 'ttt-who', dataset: { mark: 'X' } }, h('strong', { text: 'X' }), ' ', seat === 0 ? 'You' : ctx.seatName(0)),
      h('span', { class: 'muted', text: ' vs ' }),
      h('span', { class: 'ttt-who', dataset: { mark: 'O' } }, h('strong', { text: 'O' }), ' ', seat === 1 ? 'You' : ctx.seatName(1)));

    const mine = myTurn();
    status.dataset.phase = view.phase;
    status.dataset.turn = String(view.turn);
    status.dataset.mine = String(mine);
    if (view.phase === 'won') {
      status.textContent = view.winner === seat ? 'You win!' : `${who(view.winner)} wins!`;
    } else if (view.phase === 'draw') {
      status.textContent = 'A draw — nobody wins.';
    } else if (ended) {
      status.textContent = 'The match ended.';
    } else if (mine) {
      status.textContent = `Your turn — you are ${MARKS[view.turn]}.`;
    } else {
      status.textContent = seat == null ? `${who(view.turn)} to play.` : `${who(view.turn)} is thinking…`;
    }
    document.title = (mine ? 'Your turn · ' : '') + `Room ${room?.code || ''} · roomd`;

    const win = new Set((view.line || []).map((/** @type {{r: number, c: number}} */ p) => p.r * SIZE + p.c));
    cells.forEach((b, i) => {
      const r = Math.floor(i / SIZE), c = i % SIZE, m = at(r, c);
      b.dataset.mark = m;
      b.textContent = m;
      b.setAttribute('aria-label', `Row ${r + 1}, column ${c + 1}: ${m || 'empty'}`);
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
      title = view.phase === 'draw' ? 'Draw' : view.winner === seat ? 'You win!' : `${who(view.winner)} wins`;
      line = view.phase === 'draw' ? 'Every square is marked and nobody has three in a row.' : 'Three in a row.';
    } else {
      const res = /** @type {import('../client.js').Result} */ (ended);
      const w = res.winners?.[0];
      phase = res.status;
      title = w == null ? 'The match ended' : w === seat ? 'You win!' : `${who(w)} wins`;
      line = res.status === 'resigned' ? 'The other player resigned.' : `The match ended: ${res.status}.`;
    }
    result.hidden = false;
    result.dataset.phase = phase;
    result.dataset.winner = String(over ? view.winner ?? '' : ended?.winners?.[0] ?? '');
    clear(result).append(
      h('h2', { text: title }),
      h('p', { class: 'muted', text: line }),
      ctx.isHost()
        ? h('button', { class: 'btn btn-primary', id: 'new-game', type: 'button', on: { click: () => ctx.newGame() } }, 'Play again')
        : h('p', { class: 'muted', text: 'The host can start a new game.' }));
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
