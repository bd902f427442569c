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
import { levelsOf, boardOf, boardName, boardLabel, levelName, modeName, describe } from './minesweeper/settings.js';
import { t, lang } from '../i18n.js';
import * as api from '../api.js';

// The page module's contract: registry.js.
export const id = 'minesweeper';
export const rulesVersion = 'minesweeper/1';
export const icon = 'mine';
export const tagline = t('minesweeper.tagline');
export { describe, defaults, settingsForm } from './minesweeper/settings.js';

/**
 * The leaderboard board of a config: its level, or custom-RxCxM.
 * @param {import('../api.js').GameInfo} info
 * @param {any} settings
 */
export function board(info, settings) { return boardName(settings, levelsOf(info.configSchema)); }

/**
 * A leaderboard board's name in the language shown: a level's ("初級").
 * @param {string} id
 */
export function boardTitle(id) { return levelName(id); }

/** @typedef {import('../registry.js').GameContext} GameContext */
/** @typedef {{s: 'hidden'|'flagged'|'revealed', v: number|'mine'|null, x: boolean}} Cell */

const LONG_PRESS_MS = 450;

/**
 * A board's phase: the server's (fresh, active, won, lost) except that a
 * race board the server calls lost without a mine having gone off on it
 * was beaten — another racer cleared first (the race's end event, or its
 * final view without an exploded mine).
 * @typedef {'fresh'|'active'|'won'|'lost'|'beaten'} BoardPhase
 */

/** One board's cells and its table. */
class Board {
  /**
   * @param {number} rows
   * @param {number} cols
   * @param {number} seat   the board's seat in a race, -1 otherwise
   * @param {boolean} main  the viewer's own (or only) board
   * @param {string} label  the grid's accessible name
   */
  constructor(rows, cols, seat, main, label) {
    /** @type {number} */
    this.rows = rows;
    /** @type {number} */
    this.cols = cols;
    this.seat = seat;
    /** @type {BoardPhase} */
    this.phase = 'fresh';
    this.revealed = 0;
    this.safe = 0;
    /** @type {Cell[]} */
    this.cells = [];
    /** @type {HTMLTableCellElement[]} */
    this.tds = [];
    /** The flags on cells without a mine, once a lost match lists its mines. @type {Set<number>} */
    this.wrong = new Set();
    this.cursor = { r: Math.floor(rows / 2), c: Math.floor(cols / 2) };
    // One tab stop: the cursor's cell (a roving tabindex); the table itself
    // takes focus only from a script and hands it to that cell.
    this.table = /** @type {HTMLTableElement} */ (h('table', { class: 'board', role: 'grid', tabindex: '-1',
      'aria-label': label, 'aria-rowcount': String(rows), 'aria-colcount': String(cols), 'aria-readonly': main ? null : 'true',
      dataset: { seat: String(seat), rows: String(rows), cols: String(cols), phase: 'fresh' } }));
    if (main) this.table.id = 'board';
    this.table.style.setProperty('--cols', String(cols));
    this.table.style.setProperty('--rows', String(rows));
    const body = h('tbody');
    for (let r = 0; r < rows; r++) {
      const tr = h('tr', { role: 'row' });
      for (let c = 0; c < cols; c++) {
        const td = /** @type {HTMLTableCellElement} */ (h('td', { role: 'gridcell', tabindex: '-1', dataset: { r: String(r), c: String(c), status: 'hidden' } }));
        this.tds.push(td);
        this.cells.push({ s: 'hidden', v: null, x: false });
        tr.append(td);
      }
      body.append(tr);
    }
    this.table.append(body);
    for (let k = 0; k < this.cells.length; k++) this.paint(k);
    this.moveCursor(this.cursor.r, this.cursor.c);
    this.table.addEventListener('focus', () => this.tds[this.at(this.cursor.r, this.cursor.c)]?.focus());
  }

  /** @param {BoardPhase} p */
  setPhase(p) {
    this.phase = p;
    this.table.dataset.phase = p;
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
   * @param {boolean} over  the match is over: the wrong flags marked so far stay
   */
  setCells(list, over) {
    for (let k = 0; k < this.cells.length; k++) this.cells[k] = { s: 'hidden', v: null, x: false };
    for (const vc of list || []) {
      const k = this.at(vc.r, vc.c);
      if (k < 0) continue;
      if (vc.status === 'revealed') this.cells[k] = { s: 'revealed', v: vc.mine ? 'mine' : vc.adjacent | 0, x: !!vc.mine };
      else if (vc.status === 'flagged') this.cells[k] = { s: 'flagged', v: null, x: false };
      else if (vc.mine) this.cells[k] = { s: 'hidden', v: 'mine', x: false };
    }
    if (!over) this.wrong.clear();
    for (const k of this.wrong) if (this.cells[k].s !== 'flagged') this.wrong.delete(k);
    for (let k = 0; k < this.cells.length; k++) this.paint(k);
  }

  /** Whether a mine went off on this board. */
  exploded() {
    return this.cells.some((c) => c.x);
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
        if (this.phase === 'fresh') this.setPhase('active');
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
        this.setPhase('lost');
        this.disclose(e.mines);
        return true;
      }
      case 'end':
        // The race ended while this board was not won: lost if a mine went
        // off on it, else beaten by the racer who cleared first.
        if (this.phase !== 'lost') this.setPhase('beaten');
        this.disclose(e.mines);
        return true;
      case 'win':
        this.setPhase('won');
        return true;
      case 'progress':
        this.setPhase(e.phase);
        this.revealed = e.revealed;
        this.safe = e.safe;
        return true;
    }
    return false;
  }

  /**
   * Shows the mines a terminal beat lists under the cells that are hidden,
   * and crosses out the flags on cells the list does not name.
   * @param {{r: number, c: number}[]|undefined} mines
   */
  disclose(mines) {
    if (!mines) return;
    for (const m of mines) {
      const k = this.at(m.r, m.c);
      if (k >= 0 && this.cells[k].s === 'hidden') {
        this.cells[k] = { s: 'hidden', v: 'mine', x: false };
        this.paint(k);
      }
    }
    this.markWrong(new Set(mines.map((m) => this.at(m.r, m.c))));
  }

  /**
   * Marks a flag the result names as wrong (PROTOCOL.md §5: result.detail).
   * @param {number} r @param {number} c
   */
  markWrongAt(r, c) {
    const k = this.at(r, c);
    if (k >= 0 && this.cells[k].s === 'flagged' && !this.wrong.has(k)) {
      this.wrong.add(k);
      this.paint(k);
    }
  }

  /**
   * Marks the flags on cells that are not in mines (indices).
   * @param {Set<number>} mines
   */
  markWrong(mines) {
    for (let k = 0; k < this.cells.length; k++) {
      if (this.cells[k].s === 'flagged' && !mines.has(k)) {
        this.wrong.add(k);
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
    const wrong = cell.s === 'flagged' && this.wrong.has(k);
    if (wrong) td.dataset.wrong = 'true';
    else delete td.dataset.wrong;
    td.textContent = cell.s === 'revealed' && typeof cell.v === 'number' && cell.v > 0 ? String(cell.v) : '';
    const r = Math.floor(k / this.cols) + 1, c = (k % this.cols) + 1;
    td.setAttribute('aria-label', t('minesweeper.cell.label', { r, c, state: describeCell(cell, wrong) }));
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

  /**
   * Moves the keyboard cursor — the board's one tab stop — to (r, c),
   * focusing its cell when focus is true.
   * @param {number} r @param {number} c @param {boolean} [focus]
   */
  moveCursor(r, c, focus) {
    r = Math.max(0, Math.min(this.rows - 1, r));
    c = Math.max(0, Math.min(this.cols - 1, c));
    const old = this.at(this.cursor.r, this.cursor.c);
    if (old >= 0) {
      delete this.tds[old].dataset.cursor;
      this.tds[old].tabIndex = -1;
    }
    this.cursor = { r, c };
    const td = this.tds[this.at(r, c)];
    td.dataset.cursor = 'true';
    td.tabIndex = 0;
    if (focus) td.focus({ preventScroll: true });
    return td;
  }
}

/**
 * What a screen reader says of a cell, after its row and column.
 * @param {Cell} cell
 * @param {boolean} wrong  a flag on a cell without a mine (a lost match)
 */
function describeCell(cell, wrong) {
  if (cell.s === 'flagged') return wrong ? t('minesweeper.cell.wrong-flag') : t('minesweeper.cell.flagged');
  if (cell.s === 'hidden') return cell.v === 'mine' ? t('minesweeper.cell.mine') : t('minesweeper.cell.hidden');
  if (cell.v === 'mine') return t('minesweeper.cell.exploded');
  return cell.v === 0 ? t('minesweeper.cell.empty') : t('minesweeper.cell.number', { n: String(cell.v) });
}

/**
 * Keyboard navigation of any board (a rival's or a spectator's too): the
 * arrows, Home and End move the cursor and the focus with it.
 * @param {Board} board
 */
function attachNav(board) {
  board.table.addEventListener('keydown', (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const { r, c } = board.cursor;
    /** @type {[number, number]|null} */
    let to = null;
    switch (e.key) {
      case 'ArrowUp': to = [r - 1, c]; break;
      case 'ArrowDown': to = [r + 1, c]; break;
      case 'ArrowLeft': to = [r, c - 1]; break;
      case 'ArrowRight': to = [r, c + 1]; break;
      case 'Home': to = e.shiftKey ? [0, 0] : [r, 0]; break;
      case 'End': to = e.shiftKey ? [board.rows - 1, board.cols - 1] : [r, board.cols - 1]; break;
      default: return;
    }
    e.preventDefault();
    board.table.dataset.keys = 'true'; // show the cursor while the keys play
    const td = board.moveCursor(to[0], to[1], true);
    td.scrollIntoView?.({ block: 'nearest', inline: 'nearest' });
  });
}

/**
 * The input adapter: mouse (left reveals, right flags, left+right or middle
 * chords, a left click on a number chords), touch (tap reveals, long-press
 * flags) and keys (Space/Enter reveal, F flags, C chords at the cursor,
 * which attachNav moves). It emits moves; it never changes a cell.
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
    const { r, c } = board.cursor;
    /** @type {((td: HTMLTableCellElement) => void)|null} */
    let act = null;
    switch (e.key) {
      case ' ': case 'Enter': act = primary; break;
      case 'f': case 'F': act = flag; break;
      case 'c': case 'C': act = chord; break;
      default: return; // the arrows: attachNav
    }
    e.preventDefault();
    table.dataset.keys = 'true';
    if (out.enabled()) act(board.tds[board.at(r, c)]);
  });
}

/**
 * @param {GameContext} ctx
 * @returns {import('../registry.js').GameView}
 */
export function create(ctx) {
  const levels = levelsOf(ctx.game?.configSchema);
  const counter = h('output', { class: 'lcd', id: 'mine-count', 'aria-label': t('minesweeper.mines-left') }, '000');
  const timer = h('output', { class: 'lcd', id: 'timer', 'aria-label': t('minesweeper.time') }, '000');
  const face = h('button', { class: 'face', id: 'face', type: 'button', 'aria-label': t('minesweeper.new-game'), dataset: { face: 'smile' } });
  const boardSlot = h('div', { class: 'ms-scroll' });
  const frame = h('div', { class: 'ms-frame' }, h('div', { class: 'ms-head' }, counter, face, timer), boardSlot);
  // Zoom, where the board is wider than the screen (expert on a phone):
  // the whole board at once, or bigger or smaller cells.
  const zoomOut = h('button', { class: 'btn btn-small', id: 'ms-zoom-out', type: 'button', 'aria-label': t('minesweeper.zoom.out') }, '−'); // i18n-ok
  const zoomFit = h('button', { class: 'btn btn-small', id: 'ms-zoom', type: 'button', 'aria-pressed': 'false' }, t('minesweeper.zoom.fit'));
  const zoomIn = h('button', { class: 'btn btn-small', id: 'ms-zoom-in', type: 'button', 'aria-label': t('minesweeper.zoom.in') }, '+'); // i18n-ok
  const zoomBar = h('div', { class: 'ms-zoom', id: 'ms-zoom-bar', role: 'group', 'aria-label': t('minesweeper.zoom.label'), hidden: true }, zoomOut, zoomFit, zoomIn);
  const title = h('div', { class: 'ms-title' });
  const status = h('p', { class: 'ms-status', id: 'ms-status' });
  const result = h('div', { class: 'result panel', id: 'result', hidden: true, role: 'status' });
  const leaderboard = h('div', { class: 'leaderboard panel', id: 'leaderboard', hidden: true });
  const others = h('div', { class: 'ms-others', id: 'others' });
  const timerSlot = h('div', { class: 'ms-timer-slot' });
  const specHead = h('div', { class: 'ms-spec-head', hidden: true }, h('span', { class: 'ms-spec-label', text: t('minesweeper.time') }));
  const mainCol = h('div', { class: 'ms-main' }, title, specHead, frame, zoomBar, status);
  // The result and the best times: beside the board where there is room,
  // so that they show without scrolling; under it on a phone.
  const side = h('div', { class: 'ms-side', hidden: true }, result, leaderboard);
  const el = h('div', { class: 'ms', dataset: { phase: 'fresh' } }, mainCol, side, others);
  timer.replaceWith(timerSlot);
  timerSlot.append(timer);

  /** @type {Board|null} */
  let main = null;             // the viewer's board (the only one in solo and co-op)
  /** @type {Map<number, Board>} */
  let race = new Map();        // race boards with cells, by seat
  /** @typedef {{seat: number, phase: string, revealed: number, safe: number, flags: number}} Progress */
  /** @type {Map<number, Progress>} */
  let progress = new Map();    // race boards' progress, by seat
  /** The mines the beats that ended a lost match listed, by seat (-1: the only board), as cell indices. @type {Map<number, Set<number>>} */
  const endMines = new Map();
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
  /** the room's connection (setConnection); play on this device has none to lose */
  let conn = 'online';
  let boardKey = '';
  /** The main board's cell size in px set by the zoom; null: the stylesheet's. @type {number|null} */
  let zoomCell = null;
  let fitted = false;

  face.addEventListener('click', () => newGame());
  const onKey = (/** @type {KeyboardEvent} */ e) => { if (e.key === 'F2') { e.preventDefault(); newGame(); } };
  document.addEventListener('keydown', onKey);
  const tick = setInterval(showTime, 250);
  zoomFit.addEventListener('click', () => {
    fitted = !fitted;
    zoomCell = fitted ? fitSize() : null;
    showZoom();
  });
  zoomIn.addEventListener('click', () => { fitted = false; zoomCell = Math.min(48, cellSize() + 4); showZoom(); });
  zoomOut.addEventListener('click', () => { fitted = false; zoomCell = Math.max(Math.min(fitSize(), 24), cellSize() - 4); showZoom(); });
  const onResize = () => { if (fitted) zoomCell = fitSize(); showZoom(); };
  addEventListener('resize', onResize);

  function newGame() {
    if (!ctx.isHost()) {
      showNotice({ code: 'not-host', message: t('minesweeper.only-host') });
      return;
    }
    const running = room?.phase === 'running';
    if (running && (room?.seats.length || 0) > 1 && !confirm(t('minesweeper.confirm-new'))) return;
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
    return seat != null && room?.phase === 'running' && !!main && (main.phase === 'fresh' || main.phase === 'active');
  }

  /** The main board's cell size now, px. */
  function cellSize() {
    return main ? Math.round(main.tds[0].getBoundingClientRect().width) || 24 : 24;
  }

  /** The cell size that fits the main board's width on the screen, px. */
  function fitSize() {
    // The column's width less the frame's padding and borders.
    const width = mainCol.clientWidth - 30;
    return Math.max(8, Math.min(48, Math.floor(width / Math.max(1, dims.cols))));
  }

  /** The frame that measures whether the board overflows, when one is asked for. */
  let zoomFrame = 0;

  /** Applies the zoom and shows its controls when the board needs them. */
  function showZoom() {
    const table = main?.table;
    if (!table || !isConnectedEl(table)) {
      zoomBar.hidden = true;
      return;
    }
    if (zoomCell == null) table.style.removeProperty('--cell');
    else table.style.setProperty('--cell', zoomCell + 'px');
    zoomFit.setAttribute('aria-pressed', String(fitted));
    el.dataset.zoom = fitted ? 'fit' : zoomCell == null ? 'auto' : String(zoomCell);
    // Measured once per frame, after every change of the page: a move
    // redraws the board, the status and the side in turn, and reading the
    // layout after each would lay the page out each time.
    if (!zoomFrame) zoomFrame = requestAnimationFrame(measureZoom);
  }

  /** Shows the zoom's controls when the board is wider than its frame. */
  function measureZoom() {
    zoomFrame = 0;
    const table = main?.table;
    if (!table || !isConnectedEl(table)) return;
    const overflows = boardSlot.scrollWidth > boardSlot.clientWidth + 1;
    zoomBar.hidden = !overflows && zoomCell == null;
  }

  /** @param {Element} e */
  function isConnectedEl(e) { return e.isConnected && mainCol.contains(e); }

  /**
   * A race board's phase from its view: a board the server calls lost at
   * the race's end is beaten unless a mine went off on it.
   * @param {any} bv
   * @param {boolean} over
   * @returns {BoardPhase}
   */
  function racePhase(bv, over) {
    if (over && bv.phase === 'lost' && bv.cells && !bv.cells.some((/** @type {any} */ c) => c.status === 'revealed' && c.mine)) return 'beaten';
    return bv.phase;
  }

  /** @param {any} view */
  function setView(view) {
    if (!view) return;
    const cfg = view.config || {};
    const b = boardOf(cfg, levels);
    mines = b.mines;
    isRace = view.mode === 'race';
    const over = view.phase === 'won' || view.phase === 'lost';
    if (!over) endMines.clear();
    const key = JSON.stringify([b.rows, b.cols, isRace, seat, isRace ? (view.boards || []).map((/** @type {any} */ x) => x.seat + ':' + !!x.cells) : 0]);
    if (key !== boardKey || dims.rows !== b.rows || dims.cols !== b.cols) {
      boardKey = key;
      dims = { rows: b.rows, cols: b.cols };
      build(view);
    }
    if (!isRace) {
      const m = /** @type {Board} */ (main);
      m.setPhase(view.phase);
      m.setCells(view.cells, over);
      const known = endMines.get(-1);
      if (over && known) m.markWrong(known);
    } else {
      progress = new Map();
      for (const bv of view.boards || []) {
        const phase = racePhase(bv, over);
        progress.set(bv.seat, { seat: bv.seat, phase, revealed: bv.revealed, safe: bv.safe, flags: bv.flags | 0 });
        const board = race.get(bv.seat);
        if (board) {
          board.setPhase(phase);
          board.revealed = bv.revealed;
          board.safe = bv.safe;
          if (bv.cells) board.setCells(bv.cells, over);
          const known = endMines.get(bv.seat);
          if (over && known) board.markWrong(known);
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
      main = new Board(dims.rows, dims.cols, -1, true, t('minesweeper.board.label'));
      attachBoard(main);
      boardSlot.append(main.table);
      return;
    }
    for (const bv of view.boards || []) {
      // A board without cells is seen as progress only: another player's
      // while the race runs, and every board for a spectator until it ends.
      if (!bv.cells) continue;
      const mine = bv.seat === seat;
      const board = new Board(dims.rows, dims.cols, bv.seat, mine,
        mine ? t('minesweeper.board.label') : t('minesweeper.board.seat', { name: ctx.seatName(bv.seat) }));
      race.set(bv.seat, board);
      attachNav(board);
      if (mine) {
        main = board;
        attachBoard(board, true);
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
            : h('p', { class: 'race-veiled', text: t('minesweeper.veiled') })));
      }
      main = null;
    }
  }

  /**
   * @param {Board} board
   * @param {boolean} [navigable]  attachNav was called already
   */
  function attachBoard(board, navigable) {
    if (!navigable) attachNav(board);
    attachInput(board, {
      move: (type, r, c) => { move(type, r, c); },
      press: (on) => { pressed = on && playable(); showFace(); },
      enabled: () => {
        if (!playable()) {
          if (seat == null) showNotice({ code: 'wrong-seat', message: t('minesweeper.spectators-cannot') });
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
      if ((e.type === 'explode' || e.type === 'end') && Array.isArray(e.mines)) {
        // Kept for the view that replaces the board after these beats: it
        // lists a flag without saying whether a mine is under it.
        endMines.set(isRace ? e.seat : -1, new Set(e.mines.map((/** @type {any} */ m) => m.r * dims.cols + m.c)));
      }
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
      case 'explode':
        p.phase = 'lost';
        break;
      case 'end':
        if (p.phase !== 'lost') p.phase = 'beaten';
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
    // A game on this device is on no server's list of best times.
    if (r && first && !ctx.local) loadLeaderboard();
    if (!r) leaderboard.hidden = true;
    showSide();
  }

  /** @param {import('../client.js').Clocks} c */
  function anchor(c) {
    if (!c || typeof c.now !== 'number') return;
    clock = { elapsed: c.elapsedMs || 0, now: c.now, running: !!c.running };
    showTime();
  }

  /**
   * Whether the host can be heard: the room page says its connection's
   * state (setConnection); a page without one (play on this device) is.
   */
  function online() {
    return conn === 'online';
  }

  /**
   * The room's connection changed: offline, the timer stands still and
   * the line under the board says so instead of "Watching live".
   * @param {string} state
   */
  function setConnection(state) {
    if (state === conn) return;
    conn = state;
    refresh();
  }

  function showTime() {
    let ms = clock.elapsed;
    if (done) ms = done.time;
    else if (clock.running) {
      if (!online()) {
        // The host's clock is not heard: the time stands where it was
        // until the reconnection brings the host's elapsed time.
        timer.dataset.running = 'false';
        timer.dataset.stale = 'true';
        return;
      }
      ms = clock.elapsed + Math.max(0, ctx.serverNow() - clock.now);
    }
    delete timer.dataset.stale;
    timer.textContent = lcd(Math.floor(ms / 1000));
    timer.dataset.ms = String(Math.round(ms));
    timer.dataset.running = String(clock.running && !done);
  }

  function showFace() {
    let f = 'smile';
    const phase = main ? main.phase : '';
    if (done && seat != null && done.winners.includes(seat)) f = 'win';
    // A racer beaten to it keeps the smile: only a mine kills.
    else if (done && seat != null) f = isRace ? (phase === 'lost' ? 'dead' : 'smile') : done.status === 'won' ? 'win' : 'dead';
    else if (phase === 'lost') f = 'dead';
    else if (phase === 'won') f = 'win';
    else if (pressed) f = 'oh';
    else if (done) f = done.status === 'won' ? 'win' : 'dead';
    face.dataset.face = f;
    face.title = ctx.isHost() ? t('minesweeper.new-game-key') : t('minesweeper.host-starts');
  }

  function refresh() {
    // The result's wrong flags (they stay after a reload: the view alone
    // does not tell a wrong flag from a right one).
    for (const w of /** @type {any} */ (done)?.detail?.wrongFlags || []) {
      const board = !isRace || w.seat === seat ? main : race.get(w.seat);
      board?.markWrongAt(w.r, w.c);
    }
    // A cleared board has every mine found, flagged or not.
    const left = main ? (main.phase === 'won' ? 0 : mines - main.flags()) : null;
    if (left != null) counter.textContent = lcd(left);
    counter.dataset.value = left == null ? '' : String(left);
    showFace();
    showTime();
    showStatus();
    showOthers();
    showResult();
    showZoom();
  }

  function showStatus() {
    const touch = matchMedia('(pointer: coarse)').matches;
    let text;
    if (!room) text = '';
    else if (!online()) text = conn === 'closed' ? t('minesweeper.status.closed') : t('minesweeper.status.reconnecting');
    else if (seat == null && isRace) text = room.phase === 'running' ? t('minesweeper.status.watching-race-live') : t('minesweeper.status.watching-race');
    else if (seat == null) text = t('minesweeper.status.watching');
    else if (room.phase === 'ended') text = '';
    else if (main && (main.phase === 'lost')) text = isRace ? t('minesweeper.status.lost-race') : '';
    else if (main && main.phase === 'won') text = isRace ? t('minesweeper.status.cleared-race') : '';
    else if (touch) text = t('minesweeper.status.touch');
    else text = t('minesweeper.status.mouse');
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
        bar.setAttribute('aria-label', t('minesweeper.progress', { name: ctx.seatName(s), revealed: p.revealed, safe: p.safe }));
      }
      return;
    }
    clear(others).append(h('h3', { text: t('minesweeper.rivals') }));
    for (const p of [...progress.values()].sort((a, b) => a.seat - b.seat)) {
      if (p.seat === seat) continue;
      const board = race.get(p.seat); // once the race is over, every board shows
      others.append(h('div', { class: 'rival', dataset: { seat: String(p.seat), phase: p.phase, revealed: String(p.revealed), safe: String(p.safe), flags: String(p.flags) } },
        h('div', { class: 'rival-head' }, h('span', { class: 'race-name', text: ctx.seatName(p.seat) }), h('span', { class: 'race-phase', text: phaseLabel(p.phase) })),
        h('progress', { max: String(p.safe || 1), value: String(p.revealed), 'aria-label': t('minesweeper.progress', { name: ctx.seatName(p.seat), revealed: p.revealed, safe: p.safe }) }),
        h('span', { class: 'race-count', text: `${p.revealed}/${p.safe}` }),
        h('span', { class: 'race-flags', text: flagsLabel(p.flags) }),
        board ? h('div', { class: 'ms-scroll ms-scroll-small rival-board' }, board.table) : null));
    }
  }

  /** The side column shows when the result or the best times do. */
  function showSide() {
    side.hidden = result.hidden && leaderboard.hidden;
  }

  function showResult() {
    if (!done || room?.phase !== 'ended') {
      result.hidden = true;
      delete result.dataset.status;
      showSide();
      return;
    }
    const r = done;
    const won = seat != null ? (isRace ? r.winners.includes(seat) : r.status === 'won') : r.status === 'won';
    let heading;
    if (isRace) {
      const names = r.winners.map((w) => ctx.seatName(w));
      heading = seat != null && r.winners.includes(seat) ? t('minesweeper.result.you-win-race')
        : names.length ? t('minesweeper.result.won-race', { names: names.join(t('minesweeper.result.and')) }) : t('minesweeper.result.nobody');
    } else if (r.status === 'won') heading = (room?.seats.length || 1) > 1 ? t('minesweeper.result.cleared') : t('minesweeper.result.won');
    else if (r.status === 'lost') heading = t('minesweeper.result.lost');
    else heading = r.status === 'resigned' ? t('minesweeper.result.abandoned') : t('minesweeper.result.over', { status: r.status });
    result.dataset.status = isRace && seat != null ? (won ? 'won' : 'lost') : r.status;
    const again = room?.daily
      ? dailyNote(room.daily, r)
      : ctx.isHost()
        ? h('button', { class: 'btn btn-primary', id: 'new-game', type: 'button', on: { click: () => ctx.newGame() } }, t('minesweeper.new-game'))
        : h('p', { class: 'muted', text: t('minesweeper.host-can-start') });
    clear(result).append(
      h('h2', { class: 'result-heading', text: heading }),
      h('p', {}, t('minesweeper.result.time') + ' ', h('strong', { id: 'result-time', dataset: { ms: String(Math.round(r.time)) }, text: formatTime(r.time) }),
        // On this device there is no host: the time is the page's own.
        ctx.local ? null : h('span', { class: 'muted', text: ' ' + t('minesweeper.result.host-time') })),
      again);
    result.hidden = false;
    showSide();
  }

  async function loadLeaderboard() {
    const settings = room?.settings || done?.config;
    const name = boardName(settings, levels);
    const r = done;
    if (!r) return;
    const label = boardLabel(settings, levels);
    leaderboard.hidden = false;
    showSide();
    leaderboard.dataset.state = 'loading';
    clear(leaderboard).append(h('h3', { text: t('minesweeper.best.title', { board: label }) }), h('p', { class: 'muted', text: t('minesweeper.best.loading') }));
    const mode = room?.mode || 'solo';
    const title = room?.daily ? t('minesweeper.best.daily', { board: label, day: room.daily })
      : t('minesweeper.best.title-mode', { board: label, mode: modeName(mode) });
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
      clear(leaderboard).append(h('h3', { text: t('minesweeper.best.title', { board: label }) }),
        h('p', { class: 'muted', text: t('minesweeper.best.custom') }));
      return;
    }
    leaderboard.dataset.state = list.length ? 'ready' : 'empty';
    clear(leaderboard).append(h('h3', { text: title }),
      ...(assisted ? [h('p', { class: 'muted', id: 'unranked', text: t('minesweeper.best.unranked') })] : []),
      list.length
        ? h('ol', { class: 'scores' }, ...list.map((s) => h('li', { class: ours(s) ? 'score-mine' : '' },
          h('span', { class: 'score-name', text: s.name }), h('span', { class: 'score-time', text: formatTime(s.value) }))))
        : h('p', { class: 'muted', text: t('minesweeper.best.empty') }));
  }

  return {
    el,
    setView,
    applyBeats,
    setRoom,
    setResult,
    setClocks: anchor,
    setConnection,
    destroy() {
      clearInterval(tick);
      cancelAnimationFrame(zoomFrame);
      document.removeEventListener('keydown', onKey);
      removeEventListener('resize', onResize);
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
      ? t('minesweeper.daily.sealed', { day, at: at.toLocaleString(lang(), { dateStyle: 'medium', timeStyle: 'short' }) })
      : t('minesweeper.daily.open', { day, seed: typeof r.seed === 'string' ? r.seed.slice(0, 12) + '…' : '' }) }),
    h('a', { class: 'btn', href: '/', id: 'daily-lobby' }, t('minesweeper.daily.lobby')));
}

/** @param {number} n */
function flagsLabel(n) {
  return n === 1 ? t('minesweeper.flags.one') : t('minesweeper.flags.other', { n });
}

/** @param {string} phase */
function phaseLabel(phase) {
  // i18n: minesweeper.phase.*
  const key = 'minesweeper.phase.' + phase;
  return ['fresh', 'active', 'won', 'lost', 'beaten'].includes(phase) ? t(key) : phase;
}
