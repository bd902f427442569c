// @ts-check
// Minesweeper in the browser: a renderer driven only by the server's views
// and beats, an input adapter that turns gestures into moves, and a timer
// that shows the host's time. No rule is computed here: no adjacency, no
// flood, no win — a snapshot or a new match replaces the view, and each
// beat is applied as the delta it is (PROTOCOL.md §5).
//
// DOM hooks: every board is a <table class="board"> (the player's own or
// only board has id "board") whose cells carry data-r, data-c,
// data-status (hidden | flagged | revealed) and data-value (0–8, or "mine"
// for a revealed or disclosed mine); #mine-count, #timer, #face, #result
// (data-status won | lost | …), #result-time, #leaderboard.

import { h, clear, lcd, formatTime, showNotice } from '../ui.js';
import { levelsOf, boardOf, boardName, describe } from './minesweeper/settings.js';
import * as api from '../api.js';

// The page module's contract: registry.js.
export const id = 'minesweeper';
export const rulesVersion = 'minesweeper/1';
export const icon = 'mine';
export const tagline = 'Solo, co-op or race';
export { describe, defaults, settingsForm } from './minesweeper/settings.js';

/**
 * The leaderboard board of a config: its level, or custom-RxCxM.
 * @param {import('../api.js').GameInfo} info
 * @param {any} settings
 */
export function board(info, settings) { return boardName(settings, levelsOf(info.configSchema)); }

/** @typedef {import('../registry.js').GameContext} GameContext */
/** @typedef {{s: 'hidden'|'flagged'|'revealed', v: number|'mine'|null, x: boolean}} Cell */

const LONG_PRESS_MS = 450;

/** One board's cells and its table. */
class Board {
  /**
   * @param {number} rows
   * @param {number} cols
   * @param {number} seat   the board's seat in a race, -1 otherwise
   * @param {boolean} main  the viewer's own (or only) board
   */
  constructor(rows, cols, seat, main) {
    /** @type {number} */
    this.rows = rows;
    /** @type {number} */
    this.cols = cols;
    this.seat = seat;
    this.phase = 'fresh';
    this.revealed = 0;
    this.safe = 0;
    /** @type {Cell[]} */
    this.cells = [];
    /** @type {HTMLTableCellElement[]} */
    this.tds = [];
    this.cursor = { r: Math.floor(rows / 2), c: Math.floor(cols / 2) };
    this.table = /** @type {HTMLTableElement} */ (h('table', { class: 'board', role: 'grid', tabindex: main ? '0' : '-1',
      'aria-label': main ? 'Minefield' : `Board of seat ${seat + 1}`, dataset: { seat: String(seat), rows: String(rows), cols: String(cols) } }));
    if (main) this.table.id = 'board';
    this.table.style.setProperty('--cols', String(cols));
    this.table.style.setProperty('--rows', String(rows));
    const body = h('tbody');
    for (let r = 0; r < rows; r++) {
      const tr = h('tr');
      for (let c = 0; c < cols; c++) {
        const td = /** @type {HTMLTableCellElement} */ (h('td', { role: 'gridcell', dataset: { r: String(r), c: String(c), status: 'hidden' } }));
        this.tds.push(td);
        this.cells.push({ s: 'hidden', v: null, x: false });
        tr.append(td);
      }
      body.append(tr);
    }
    this.table.append(body);
    if (main) this.moveCursor(this.cursor.r, this.cursor.c);
  }

  /**
   * The index of (r, c), or -1 off the board.
   * @param {number} r @param {number} c
   * @returns {number}
   */
  at(r, c) {
    if (r < 0 || r >= this.rows || c < 0 || c >= this.cols) return -1;
    return r * this.cols + c;
  }

  /**
   * Replaces every cell from a view's list (absent cells are hidden).
   * @param {any[]} list
   */
  setCells(list) {
    for (let k = 0; k < this.cells.length; k++) this.cells[k] = { s: 'hidden', v: null, x: false };
    for (const vc of list || []) {
      const k = this.at(vc.r, vc.c);
      if (k < 0) continue;
      if (vc.status === 'revealed') this.cells[k] = { s: 'revealed', v: vc.mine ? 'mine' : vc.adjacent | 0, x: !!vc.mine };
      else if (vc.status === 'flagged') this.cells[k] = { s: 'flagged', v: null, x: false };
      else if (vc.mine) this.cells[k] = { s: 'hidden', v: 'mine', x: false };
    }
    for (let k = 0; k < this.cells.length; k++) this.paint(k);
  }

  /**
   * Applies one beat of this board.
   * @param {any} e
   * @param {boolean} flash  highlight the change (another player made it)
   * @returns {boolean} whether the beat was one of this board's
   */
  apply(e, flash) {
    switch (e.type) {
      case 'reveal': {
        // Only cells not open yet count: the update that ends a race
        // carries the view after its beats, and the beats then change
        // nothing.
        let opened = 0;
        for (const rc of e.cells || []) {
          const k = this.at(rc.r, rc.c);
          if (k < 0) continue;
          if (this.cells[k].s !== 'revealed') opened++;
          this.cells[k] = { s: 'revealed', v: rc.adjacent | 0, x: false };
          this.paint(k, flash);
        }
        if (this.seat >= 0) this.revealed += opened;
        if (this.phase === 'fresh') this.phase = 'active';
        return true;
      }
      case 'flag': {
        const k = this.at(e.r, e.c);
        if (k >= 0) {
          this.cells[k] = { s: e.flagged ? 'flagged' : 'hidden', v: null, x: false };
          this.paint(k, flash);
        }
        return true;
      }
      case 'explode': {
        const k = this.at(e.r, e.c);
        if (k >= 0) {
          this.cells[k] = { s: 'revealed', v: 'mine', x: true };
          this.paint(k);
        }
        this.phase = 'lost';
        this.disclose(e.mines);
        return true;
      }
      case 'end':
        this.phase = 'lost';
        this.disclose(e.mines);
        return true;
      case 'win':
        this.phase = 'won';
        return true;
      case 'progress':
        this.phase = e.phase;
        this.revealed = e.revealed;
        this.safe = e.safe;
        return true;
    }
    return false;
  }

  /**
   * Shows the mines a terminal beat lists under the cells that are hidden.
   * @param {{r: number, c: number}[]|undefined} mines
   */
  disclose(mines) {
    for (const m of mines || []) {
      const k = this.at(m.r, m.c);
      if (k >= 0 && this.cells[k].s === 'hidden') {
        this.cells[k] = { s: 'hidden', v: 'mine', x: false };
        this.paint(k);
      }
    }
  }

  /** @param {number} k @param {boolean} [flash] */
  paint(k, flash) {
    const cell = this.cells[k], td = this.tds[k];
    td.dataset.status = cell.s;
    if (cell.v === null) delete td.dataset.value;
    else td.dataset.value = String(cell.v);
    if (cell.x) td.dataset.exploded = 'true';
    else delete td.dataset.exploded;
    td.textContent = cell.s === 'revealed' && typeof cell.v === 'number' && cell.v > 0 ? String(cell.v) : '';
    const r = Math.floor(k / this.cols) + 1, c = (k % this.cols) + 1;
    td.setAttribute('aria-label', `${r}, ${c}: ${describeCell(cell)}`);
    if (flash) {
      td.classList.remove('flash');
      void td.offsetWidth; // restart the animation
      td.classList.add('flash');
    }
  }

  flags() {
    let n = 0;
    for (const c of this.cells) if (c.s === 'flagged') n++;
    return n;
  }

  /** @param {number} r @param {number} c */
  moveCursor(r, c) {
    r = Math.max(0, Math.min(this.rows - 1, r));
    c = Math.max(0, Math.min(this.cols - 1, c));
    const old = this.at(this.cursor.r, this.cursor.c);
    if (old >= 0) delete this.tds[old].dataset.cursor;
    this.cursor = { r, c };
    const k = this.at(r, c);
    this.tds[k].dataset.cursor = 'true';
    this.table.setAttribute('aria-activedescendant', '');
    return this.tds[k];
  }
}

/** @param {Cell} cell */
function describeCell(cell) {
  if (cell.s === 'flagged') return 'flagged';
  if (cell.s === 'hidden') return cell.v === 'mine' ? 'mine' : 'hidden';
  if (cell.v === 'mine') return 'mine, exploded';
  return cell.v === 0 ? 'empty' : `${cell.v}`;
}

/**
 * The input adapter: mouse (left reveals, right flags, left+right or middle
 * chords, a left click on a number chords), touch (tap reveals, long-press
 * flags) and keys (arrows move the cursor, Space/Enter reveal, F flags, C
 * chords). It emits moves; it never changes a cell.
 * @param {Board} board
 * @param {{move: (type: 'reveal'|'flag'|'chord', r: number, c: number) => void, press: (on: boolean) => void, enabled: () => boolean}} out
 */
function attachInput(board, out) {
  const table = board.table;
  let buttons = 0; // mouse buttons held since the press began
  let chording = false;
  let chorded = false;
  let lastTouch = 0;
  /** @type {ReturnType<typeof setTimeout>|null} */
  let longTimer = null;
  let longFired = false;
  let moved = false;
  let startX = 0, startY = 0;
  /** @type {HTMLTableCellElement|null} */
  let touchCell = null;

  /** @param {EventTarget|null} t */
  const cellOf = (t) => /** @type {HTMLTableCellElement|null} */ (t instanceof Element ? t.closest('td[data-r]') : null);
  /** @param {HTMLTableCellElement} td */
  const rc = (td) => [Number(td.dataset.r), Number(td.dataset.c)];
  /** @param {HTMLTableCellElement} td */
  const primary = (td) => {
    const [r, c] = rc(td);
    board.moveCursor(r, c);
    const cell = board.cells[board.at(r, c)];
    // A click on a revealed number chords; anything else asks to reveal.
    out.move(cell.s === 'revealed' && typeof cell.v === 'number' && cell.v > 0 ? 'chord' : 'reveal', r, c);
  };
  /** @param {HTMLTableCellElement} td */
  const flag = (td) => {
    const [r, c] = rc(td);
    board.moveCursor(r, c);
    if (board.cells[board.at(r, c)].s !== 'revealed') out.move('flag', r, c);
  };
  /** @param {HTMLTableCellElement} td */
  const chord = (td) => {
    const [r, c] = rc(td);
    board.moveCursor(r, c);
    out.move('chord', r, c);
  };
  const reset = () => {
    buttons = 0;
    chording = chorded = false;
    table.querySelectorAll('td[data-pressed]').forEach((td) => delete /** @type {HTMLElement} */ (td).dataset.pressed);
    out.press(false);
  };

  table.addEventListener('contextmenu', (e) => e.preventDefault());
  table.addEventListener('mousedown', (e) => {
    delete table.dataset.keys;
    if (Date.now() - lastTouch < 1000 || !out.enabled()) return;
    const td = cellOf(e.target);
    if (!td) return;
    if (e.button !== 0) e.preventDefault(); // no autoscroll, no menu
    buttons |= 1 << e.button;
    if ((e.buttons & 3) === 3 || (buttons & 3) === 3) chording = true;
    if (e.button === 2 && !chording) flag(td);
    if (e.button === 0 || e.button === 1 || chording) {
      td.dataset.pressed = 'true';
      out.press(true);
    }
  });
  table.addEventListener('mouseover', (e) => {
    if (!buttons) return;
    table.querySelectorAll('td[data-pressed]').forEach((td) => delete /** @type {HTMLElement} */ (td).dataset.pressed);
    const td = cellOf(e.target);
    if (td && (buttons & 3)) td.dataset.pressed = 'true';
  });
  table.addEventListener('mouseup', (e) => {
    if (Date.now() - lastTouch < 1000) return;
    const td = cellOf(e.target);
    const was = buttons;
    buttons &= ~(1 << e.button);
    if (!out.enabled() || !td || !(was & (1 << e.button))) {
      if (!buttons) reset();
      return;
    }
    if (chording) {
      // Left and right together: one chord, on the first release.
      if (!chorded) chord(td);
      chorded = true;
    } else if (e.button === 0) {
      primary(td);
    } else if (e.button === 1) {
      chord(td);
    }
    if (!buttons) reset();
  });
  table.addEventListener('auxclick', (e) => e.preventDefault());
  document.addEventListener('mouseup', (e) => {
    if (e.target instanceof Node && table.contains(e.target)) return;
    if (buttons) reset();
  });

  table.addEventListener('touchstart', (e) => {
    lastTouch = Date.now();
    if (e.touches.length !== 1 || !out.enabled()) { cancelLong(); return; }
    const td = cellOf(e.target);
    if (!td) return;
    touchCell = td;
    longFired = moved = false;
    startX = e.touches[0].clientX;
    startY = e.touches[0].clientY;
    td.dataset.pressed = 'true';
    longTimer = setTimeout(() => {
      longTimer = null;
      longFired = true;
      delete td.dataset.pressed;
      const cell = board.cells[board.at(Number(td.dataset.r), Number(td.dataset.c))];
      if (cell.s === 'revealed') chord(td);
      else flag(td);
      navigator.vibrate?.(15);
    }, LONG_PRESS_MS);
  }, { passive: true });
  table.addEventListener('touchmove', (e) => {
    if (!touchCell) return;
    const t = e.touches[0];
    if (Math.abs(t.clientX - startX) > 10 || Math.abs(t.clientY - startY) > 10) {
      moved = true;
      cancelLong();
    }
  }, { passive: true });
  table.addEventListener('touchend', (e) => {
    lastTouch = Date.now();
    const td = touchCell;
    const fire = td && !moved && !longFired && longTimer !== null;
    cancelLong();
    if (!td) return;
    if (e.cancelable && !moved) e.preventDefault(); // no emulated mouse events, no double-tap zoom
    if (fire && out.enabled()) primary(td);
  });
  table.addEventListener('touchcancel', () => cancelLong());
  function cancelLong() {
    if (longTimer) clearTimeout(longTimer);
    longTimer = null;
    if (touchCell) delete touchCell.dataset.pressed;
    touchCell = null;
  }

  table.addEventListener('keydown', (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    table.dataset.keys = 'true'; // show the cursor while the keys play
    const { r, c } = board.cursor;
    /** @type {[number, number]|null} */
    let to = null;
    switch (e.key) {
      case 'ArrowUp': to = [r - 1, c]; break;
      case 'ArrowDown': to = [r + 1, c]; break;
      case 'ArrowLeft': to = [r, c - 1]; break;
      case 'ArrowRight': to = [r, c + 1]; break;
      case 'Home': to = [r, 0]; break;
      case 'End': to = [r, board.cols - 1]; break;
      case ' ': case 'Enter':
        e.preventDefault();
        if (out.enabled()) primary(board.tds[board.at(r, c)]);
        return;
      case 'f': case 'F':
        e.preventDefault();
        if (out.enabled()) flag(board.tds[board.at(r, c)]);
        return;
      case 'c': case 'C':
        e.preventDefault();
        if (out.enabled()) chord(board.tds[board.at(r, c)]);
        return;
      default:
        return;
    }
    e.preventDefault();
    const td = board.moveCursor(to[0], to[1]);
    td.scrollIntoView?.({ block: 'nearest', inline: 'nearest' });
  });
}

/**
 * @param {GameContext} ctx
 * @returns {import('../registry.js').GameView}
 */
export function create(ctx) {
  const levels = levelsOf(ctx.game?.configSchema);
  const counter = h('output', { class: 'lcd', id: 'mine-count', 'aria-label': 'Mines left' }, '000');
  const timer = h('output', { class: 'lcd', id: 'timer', 'aria-label': 'Time' }, '000');
  const face = h('button', { class: 'face', id: 'face', type: 'button', dataset: { face: 'smile' }, 'aria-label': 'New game' });
  const boardSlot = h('div', { class: 'ms-scroll' });
  const frame = h('div', { class: 'ms-frame' }, h('div', { class: 'ms-head' }, counter, face, timer), boardSlot);
  const title = h('div', { class: 'ms-title' });
  const status = h('p', { class: 'ms-status', id: 'ms-status' });
  const result = h('div', { class: 'result panel', id: 'result', hidden: true, role: 'status' });
  const leaderboard = h('div', { class: 'leaderboard panel', id: 'leaderboard', hidden: true });
  const others = h('div', { class: 'ms-others', id: 'others' });
  const timerSlot = h('div', { class: 'ms-timer-slot' });
  const specHead = h('div', { class: 'ms-spec-head', hidden: true }, h('span', { class: 'ms-spec-label', text: 'Time' }));
  const mainCol = h('div', { class: 'ms-main' }, title, specHead, frame, status, result, leaderboard);
  const el = h('div', { class: 'ms', dataset: { phase: 'fresh' } }, mainCol, others);
  timer.replaceWith(timerSlot);
  timerSlot.append(timer);

  /** @type {Board|null} */
  let main = null;             // the viewer's board (the only one in solo and co-op)
  /** @type {Map<number, Board>} */
  let race = new Map();        // race boards with cells, by seat
  /** @typedef {{seat: number, phase: string, revealed: number, safe: number, flags: number}} Progress */
  /** @type {Map<number, Progress>} */
  let progress = new Map();    // race boards' progress, by seat
  let isRace = false;
  let mines = 0;
  let dims = { rows: 0, cols: 0 };
  /** @type {import('../client.js').RoomInfo|null} */
  let room = null;
  /** @type {number|null} */
  let seat = null;
  /** @type {import('../client.js').Result|null} */
  let done = null;
  let pressed = false;
  let sending = 0;
  /** @type {{elapsed: number, now: number, running: boolean}} */
  let clock = { elapsed: 0, now: 0, running: false };
  let boardKey = '';

  face.addEventListener('click', () => newGame());
  const onKey = (/** @type {KeyboardEvent} */ e) => { if (e.key === 'F2') { e.preventDefault(); newGame(); } };
  document.addEventListener('keydown', onKey);
  const tick = setInterval(showTime, 250);

  function newGame() {
    if (!ctx.isHost()) {
      showNotice({ code: 'not-host', message: 'Only the host can start a new game' });
      return;
    }
    const running = room?.phase === 'running';
    if (running && (room?.seats.length || 0) > 1 && !confirm('Give up this game and start a new one for everyone?')) return;
    ctx.newGame();
  }

  /** @param {'reveal'|'flag'|'chord'} type @param {number} r @param {number} c */
  async function move(type, r, c) {
    sending++;
    el.dataset.sending = 'true';
    try {
      await ctx.command({ type, r, c });
    } finally {
      if (--sending === 0) delete el.dataset.sending;
    }
  }

  function playable() {
    return seat != null && room?.phase === 'running' && !!main && main.phase !== 'won' && main.phase !== 'lost';
  }

  /** @param {any} view */
  function setView(view) {
    if (!view) return;
    const cfg = view.config || {};
    const b = boardOf(cfg, levels);
    mines = b.mines;
    isRace = view.mode === 'race';
    const key = JSON.stringify([b.rows, b.cols, isRace, seat, isRace ? (view.boards || []).map((/** @type {any} */ x) => x.seat + ':' + !!x.cells) : 0]);
    if (key !== boardKey || dims.rows !== b.rows || dims.cols !== b.cols) {
      boardKey = key;
      dims = { rows: b.rows, cols: b.cols };
      build(view);
    }
    if (!isRace) {
      /** @type {Board} */ (main).phase = view.phase;
      /** @type {Board} */ (main).setCells(view.cells);
    } else {
      progress = new Map();
      for (const bv of view.boards || []) {
        progress.set(bv.seat, { seat: bv.seat, phase: bv.phase, revealed: bv.revealed, safe: bv.safe, flags: bv.flags | 0 });
        const board = race.get(bv.seat);
        if (board) {
          board.phase = bv.phase;
          board.revealed = bv.revealed;
          board.safe = bv.safe;
          if (bv.cells) board.setCells(bv.cells);
        }
      }
    }
    el.dataset.phase = main ? main.phase : view.phase;
    refresh();
  }

  /** Builds the tables for a view's shape. @param {any} view */
  function build(view) {
    race = new Map();
    main = null;
    clear(boardSlot);
    clear(others);
    el.dataset.mode = isRace ? 'race' : (view.config?.mode || 'solo');
    delete el.dataset.spectator;
    frame.hidden = false;
    specHead.hidden = true;
    timerSlot.append(timer);
    if (!isRace) {
      main = new Board(dims.rows, dims.cols, -1, true);
      attachBoard(main);
      boardSlot.append(main.table);
      return;
    }
    for (const bv of view.boards || []) {
      // A board without cells is seen as progress only: another player's
      // while the race runs, and every board for a spectator until it ends.
      if (!bv.cells) continue;
      const mine = bv.seat === seat;
      const board = new Board(dims.rows, dims.cols, bv.seat, mine);
      race.set(bv.seat, board);
      if (mine) {
        main = board;
        attachBoard(board);
        boardSlot.append(board.table);
      }
    }
    if (seat == null) {
      // A spectator: a card per racer, side by side, and the match's time.
      // While the race runs a card shows the racer's progress only (a
      // racer watching could copy a first click or learn a mine); once it
      // is over, the board too.
      el.dataset.spectator = 'true';
      frame.hidden = true;
      specHead.hidden = false;
      specHead.append(timer);
      for (const bv of view.boards || []) {
        const board = race.get(bv.seat);
        others.append(h('div', { class: 'race-board', dataset: { seat: String(bv.seat), board: board ? 'shown' : 'hidden' } },
          h('div', { class: 'race-board-head' }, h('span', { class: 'race-name' }), h('span', { class: 'race-phase' })),
          h('div', { class: 'race-progress' }, h('progress', { max: '1', value: '0' }), h('span', { class: 'race-count' }), h('span', { class: 'race-flags' })),
          board
            ? h('div', { class: 'ms-scroll ms-scroll-small' }, board.table)
            : h('p', { class: 'race-veiled', text: 'The board shows when the race ends.' })));
      }
      main = null;
    }
  }

  /** @param {Board} board */
  function attachBoard(board) {
    attachInput(board, {
      move: (type, r, c) => { move(type, r, c); },
      press: (on) => { pressed = on && playable(); showFace(); },
      enabled: () => {
        if (!playable()) {
          if (seat == null) showNotice({ code: 'wrong-seat', message: 'Spectators cannot play' });
          return false;
        }
        return true;
      },
    });
  }

  /**
   * @param {any[]} beats
   * @param {number|null} by
   */
  function applyBeats(beats, by) {
    const flash = by != null && by !== seat;
    if (!clock.running && !done && clock.elapsed === 0 && beats.some((e) => e.type === 'reveal' || e.type === 'progress')) {
      // The match clock starts at the first move, and an update carries no
      // clocks: start it now, half a round trip ago, until the next
      // message with clocks says exactly.
      clock = { elapsed: 0, now: ctx.serverNow() - ctx.rtt() / 2, running: true };
    }
    for (const e of beats) {
      if (!isRace) {
        main?.apply(e, flash);
        continue;
      }
      const s = e.seat;
      if (typeof s !== 'number') continue;
      const board = race.get(s);
      if (board) board.apply(e, flash && s !== seat);
      const p = progress.get(s) || { seat: s, phase: 'fresh', revealed: 0, safe: 0, flags: 0 };
      if (e.type === 'progress') Object.assign(p, { phase: e.phase, revealed: e.revealed, safe: e.safe, flags: e.flags | 0 });
      else if (board) Object.assign(p, { phase: board.phase, revealed: board.revealed, flags: board.flags() });
      else track(p, e);
      progress.set(s, p);
    }
    if (main) el.dataset.phase = main.phase;
    refresh();
  }

  /**
   * Moves the progress of a board seen without its cells by one of its
   * beats: the beats that end a race are everyone's, and the view that
   * comes with them (or the resync after) brings the board itself.
   * @param {Progress} p
   * @param {any} e
   */
  function track(p, e) {
    switch (e.type) {
      case 'reveal':
        p.revealed += (e.cells || []).length;
        if (p.phase === 'fresh') p.phase = 'active';
        break;
      case 'flag':
        p.flags = Math.max(0, p.flags + (e.flagged ? 1 : -1));
        break;
      case 'explode': case 'end':
        p.phase = 'lost';
        break;
      case 'win':
        p.phase = 'won';
        break;
    }
  }

  /**
   * @param {import('../client.js').RoomInfo} info
   * @param {number|null} s
   */
  function setRoom(info, s) {
    room = info;
    if (s !== seat) {
      seat = s;
      boardKey = ''; // the seat decides which board is the viewer's
    }
    anchor(info.clocks);
    title.textContent = describe(ctx.game, info.settings);
    refresh();
  }

  /**
   * @param {import('../client.js').Result|null} r
   * @param {boolean} [live]  it just ended (an update), not a snapshot's
   */
  function setResult(r, live) {
    const first = r && (!done || done.match !== r.match);
    done = r;
    // The beats of the last move do not always show every mine; the
    // terminal view does.
    if (r && first && live) ctx.resync();
    refresh();
    if (r && first) loadLeaderboard();
    if (!r) leaderboard.hidden = true;
  }

  /** @param {import('../client.js').Clocks} c */
  function anchor(c) {
    if (!c || typeof c.now !== 'number') return;
    clock = { elapsed: c.elapsedMs || 0, now: c.now, running: !!c.running };
    showTime();
  }

  function showTime() {
    let ms = clock.elapsed;
    if (done) ms = done.time;
    else if (clock.running) ms = clock.elapsed + Math.max(0, ctx.serverNow() - clock.now);
    timer.textContent = lcd(Math.floor(ms / 1000));
    timer.dataset.ms = String(Math.round(ms));
    timer.dataset.running = String(clock.running && !done);
  }

  function showFace() {
    let f = 'smile';
    const phase = main ? main.phase : '';
    if (done && seat != null && done.winners.includes(seat)) f = 'win';
    else if (done && seat != null) f = isRace ? 'dead' : done.status === 'won' ? 'win' : 'dead';
    else if (phase === 'lost') f = 'dead';
    else if (phase === 'won') f = 'win';
    else if (pressed) f = 'oh';
    else if (done) f = done.status === 'won' ? 'win' : 'dead';
    face.dataset.face = f;
    face.title = ctx.isHost() ? 'New game (F2)' : 'The host starts new games';
  }

  function refresh() {
    if (main) counter.textContent = lcd(mines - main.flags());
    counter.dataset.value = main ? String(mines - main.flags()) : '';
    showFace();
    showTime();
    showStatus();
    showOthers();
    showResult();
  }

  function showStatus() {
    const touch = matchMedia('(pointer: coarse)').matches;
    let text;
    if (!room) text = '';
    else if (seat == null && isRace) text = room.phase === 'running' ? 'Watching the race live: the boards show when it ends.' : 'Watching the race.';
    else if (seat == null) text = 'Watching live.';
    else if (room.phase === 'ended') text = '';
    else if (main && (main.phase === 'lost')) text = isRace ? 'Your board is lost — the others race on.' : '';
    else if (main && main.phase === 'won') text = isRace ? 'You cleared your board!' : '';
    else if (touch) text = 'Tap to reveal · long-press to flag · tap a number to open around it.';
    else text = 'Click to reveal · right-click to flag · both buttons, middle click or a click on a number to chord · keys: arrows, Space, F, C.';
    status.textContent = text;
    status.hidden = !text;
  }

  function showOthers() {
    if (!isRace) {
      others.hidden = true;
      return;
    }
    others.hidden = false;
    if (seat == null) {
      for (const card of /** @type {NodeListOf<HTMLElement>} */ (others.querySelectorAll('.race-board[data-seat]'))) {
        const s = Number(card.dataset.seat);
        const p = progress.get(s) || { seat: s, phase: 'fresh', revealed: 0, safe: 0, flags: 0 };
        Object.assign(card.dataset, { phase: p.phase, revealed: String(p.revealed), safe: String(p.safe), flags: String(p.flags) });
        const text = (/** @type {string} */ sel, /** @type {string} */ v) => { const e = card.querySelector(sel); if (e) e.textContent = v; };
        text('.race-name', ctx.seatName(s));
        text('.race-phase', phaseLabel(p.phase));
        text('.race-count', `${p.revealed}/${p.safe}`);
        text('.race-flags', flagsLabel(p.flags));
        const bar = /** @type {HTMLProgressElement} */ (card.querySelector('progress'));
        bar.max = p.safe || 1;
        bar.value = p.revealed;
        bar.setAttribute('aria-label', `${ctx.seatName(s)}: ${p.revealed} of ${p.safe} cells`);
      }
      return;
    }
    clear(others).append(h('h3', { text: 'Rivals' }));
    for (const p of [...progress.values()].sort((a, b) => a.seat - b.seat)) {
      if (p.seat === seat) continue;
      const board = race.get(p.seat); // once the race is over, every board shows
      others.append(h('div', { class: 'rival', dataset: { seat: String(p.seat), phase: p.phase, revealed: String(p.revealed), safe: String(p.safe), flags: String(p.flags) } },
        h('div', { class: 'rival-head' }, h('span', { class: 'race-name', text: ctx.seatName(p.seat) }), h('span', { class: 'race-phase', text: phaseLabel(p.phase) })),
        h('progress', { max: String(p.safe || 1), value: String(p.revealed), 'aria-label': `${ctx.seatName(p.seat)}: ${p.revealed} of ${p.safe} cells` }),
        h('span', { class: 'race-count', text: `${p.revealed}/${p.safe}` }),
        h('span', { class: 'race-flags', text: flagsLabel(p.flags) }),
        board ? h('div', { class: 'ms-scroll ms-scroll-small rival-board' }, board.table) : null));
    }
  }

  function showResult() {
    if (!done || room?.phase !== 'ended') {
      result.hidden = true;
      delete result.dataset.status;
      return;
    }
    const r = done;
    const won = seat != null ? (isRace ? r.winners.includes(seat) : r.status === 'won') : r.status === 'won';
    let heading;
    if (isRace) {
      const names = r.winners.map((w) => ctx.seatName(w));
      heading = seat != null && r.winners.includes(seat) ? 'You win the race!' : names.length ? `${names.join(' & ')} won the race` : 'Nobody cleared a board';
    } else if (r.status === 'won') heading = (room?.seats.length || 1) > 1 ? 'Board cleared — well played!' : 'You won!';
    else if (r.status === 'lost') heading = 'Boom! A mine went off.';
    else heading = r.status === 'resigned' ? 'Game abandoned.' : `Game over (${r.status}).`;
    result.dataset.status = isRace && seat != null ? (won ? 'won' : 'lost') : r.status;
    const again = room?.daily
      ? dailyNote(room.daily, r)
      : ctx.isHost()
        ? h('button', { class: 'btn btn-primary', id: 'new-game', type: 'button', on: { click: () => ctx.newGame() } }, 'New game')
        : h('p', { class: 'muted', text: 'The host can start a new game.' });
    clear(result).append(
      h('h2', { class: 'result-heading', text: heading }),
      h('p', {}, 'Time ', h('strong', { id: 'result-time', dataset: { ms: String(Math.round(r.time)) }, text: formatTime(r.time) }),
        h('span', { class: 'muted', text: ' (host time)' })),
      again);
    result.hidden = false;
  }

  async function loadLeaderboard() {
    const settings = room?.settings || done?.config;
    const name = boardName(settings, levels);
    const r = done;
    if (!r) return;
    const label = name.charAt(0).toUpperCase() + name.slice(1).replace(/^Custom-/, 'Custom ');
    leaderboard.hidden = false;
    leaderboard.dataset.state = 'loading';
    clear(leaderboard).append(h('h3', { text: `Best times · ${label}` }), h('p', { class: 'muted', text: 'Loading…' }));
    const mode = room?.mode || 'solo';
    const modeName = { solo: 'Solo', coop: 'Co-op', race: 'Race' }[mode] || mode;
    const title = room?.daily ? `Ranked daily · ${label} · ${room.daily}` : `Best times · ${label} · ${modeName}`;
    const ours = (/** @type {api.Score} */ s) => s.room === room?.code && s.match === r.match;
    // Matches where the AI held a seat are not ranked.
    const assisted = (room?.seats || []).some((/** @type {any} */ s) => s.ai);
    const day = room?.daily;
    const fetchList = async () => day
      ? (await api.daily(id, name, { mode, day }).catch(() => null))?.scores || null
      : api.leaderboard(id, name, mode);
    let list = await fetchList();
    // A win is listed a moment after the match ends: look once more.
    if (list && r.status === 'won' && r.winners.length && !assisted && !list.some(ours)) {
      await new Promise((ok) => setTimeout(ok, 800));
      list = await fetchList();
    }
    if (!done || done.match !== r.match) return;
    if (!list) {
      leaderboard.dataset.state = 'none';
      clear(leaderboard).append(h('h3', { text: `Best times · ${label}` }),
        h('p', { class: 'muted', text: 'Custom boards have no leaderboard: play a standard level to be ranked.' }));
      return;
    }
    leaderboard.dataset.state = list.length ? 'ready' : 'empty';
    clear(leaderboard).append(h('h3', { text: title }),
      ...(assisted ? [h('p', { class: 'muted', id: 'unranked', text: 'The AI played in this match: it is not ranked.' })] : []),
      list.length
        ? h('ol', { class: 'scores' }, ...list.map((s) => h('li', { class: ours(s) ? 'score-mine' : '' },
          h('span', { class: 'score-name', text: s.name }), h('span', { class: 'score-time', text: formatTime(s.value) }))))
        : h('p', { class: 'muted', text: 'No leaderboard yet.' }));
  }

  return {
    el,
    setView,
    applyBeats,
    setRoom,
    setResult,
    setClocks: anchor,
    destroy() {
      clearInterval(tick);
      document.removeEventListener('keydown', onKey);
      el.remove();
    },
  };
}

/**
 * What a ranked daily's result says instead of "New game": one attempt a
 * day, and when its secret — the board — is disclosed (PROTOCOL.md §2.8).
 * @param {string} day
 * @param {import('../registry.js').Result} r
 */
function dailyNote(day, r) {
  const at = r.sealedUntil ? new Date(r.sealedUntil) : null;
  return h('div', { class: 'daily-note', id: 'daily-note', dataset: { sealed: String(!!at) } },
    h('p', { class: 'muted', text: at
      ? `The ranked daily of ${day}: one attempt a day. The board's secret is disclosed at ${at.toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' })}, when the day ends (UTC); then anyone can check this match against the commitment published at its start.`
      : `The ranked daily of ${day}: its secret is disclosed (${typeof r.seed === 'string' ? r.seed.slice(0, 12) + '…' : ''}); check this match with roomd verify or POST /api/verify.` }),
    h('a', { class: 'btn', href: '/', id: 'daily-lobby' }, 'Back to the lobby'));
}

/** @param {number} n */
function flagsLabel(n) {
  return n === 1 ? '1 flag' : `${n} flags`;
}

/** @param {string} phase */
function phaseLabel(phase) {
  return ({ fresh: 'not started', active: 'playing', won: 'cleared!', lost: 'hit a mine' })[phase] || phase;
}
