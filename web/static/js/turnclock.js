// @ts-check
// Turn clocks (a room's settings.clock, PROTOCOL.md §2.12): the choice in a
// settings form, the setting in words, and the display of a match's clocks
// — each seat's time left, counted down here for the seats whose clock
// runs, a low-time warning (a colour, and one sentence for screen readers
// each time a running clock crosses it) and who ran out of time. The room
// page (room.js) feeds it the server's room.turnClock; local play
// (local/page.js) feeds it the same shape from its runner, so both show
// clocks with this code.
//
// The wire: {remainingMs: [ms per seat, as of the message], running:
// [seats], deadline: host ms of the first running deadline (0 none)}. The
// display counts down from the message's receipt (remainingMs less the
// time since), so a client whose clock differs from the host's shows the
// same times; it stops while the connection is away (the host credits a
// server's downtime) and starts again from the next message.
//
// DOM hooks: #turn-clocks[data-state] (none, running, stopped, ended) with
// .turn-clock[data-seat][data-running][data-low][data-out][data-ms]
// (data-ms: the time shown, in ms), #turn-clock-result[data-timed-out]
// ("Bob ran out of time"), #turn-clock-live (the warning read out);
// span.seat-clock[data-seat] (the same, by a seat in the room's list).

import { h, clear } from './ui.js';
import { t } from './i18n.js';

/**
 * The clocks a form offers: none, a limit per move, a chess clock (base
 * and increment). A room's own clock that is none of these is kept as
 * "custom" (a clock set through the API).
 */
export const CLOCK_PRESETS = /** @type {const} */ ([
  { id: 'move-10', clock: { moveMs: 10_000 } },
  { id: 'move-30', clock: { moveMs: 30_000 } },
  { id: 'move-60', clock: { moveMs: 60_000 } },
  { id: 'chess-3+2', clock: { baseMs: 180_000, incrementMs: 2_000 } },
  { id: 'chess-5+3', clock: { baseMs: 300_000, incrementMs: 3_000 } },
  { id: 'chess-10+5', clock: { baseMs: 600_000, incrementMs: 5_000 } },
]);

/**
 * @typedef {{moveMs: number}|{baseMs: number, incrementMs: number}} ClockSetting
 * @typedef {{remainingMs: number[], running: number[], deadline: number}} TurnClock
 */

/**
 * A clock setting in its canonical form, or null for none or one that is
 * not a clock.
 * @param {any} c
 * @returns {ClockSetting|null}
 */
export function clockSetting(c) {
  if (!c || typeof c !== 'object') return null;
  if (Number.isFinite(c.moveMs) && c.moveMs > 0) return { moveMs: c.moveMs };
  if (Number.isFinite(c.baseMs) && c.baseMs > 0) return { baseMs: c.baseMs, incrementMs: Math.max(0, Number(c.incrementMs) || 0) };
  return null;
}

/** @param {number} ms */
function secs(ms) { return String(Math.round(ms / 100) / 10); }

/**
 * A clock setting in words: "30 s per move", "3+2 chess clock", "no clock".
 * @param {any} c
 */
export function describeClock(c) {
  const s = clockSetting(c);
  if (!s) return t('app.clock.none');
  if ('moveMs' in s) return t('app.clock.move', { s: secs(s.moveMs) });
  const base = s.baseMs % 60_000 === 0 ? String(s.baseMs / 60_000) : formatClock(s.baseMs);
  return t('app.clock.chess', { base, inc: secs(s.incrementMs) });
}

/**
 * The clock choice of a settings form (a game whose info says turnClock):
 * a select with none, the presets and the room's own clock if it is none
 * of them.
 * @param {any} initial   the settings' clock
 * @param {string} prefix
 * @returns {{el: HTMLElement, read: () => ClockSetting|null}}
 */
export function clockField(initial, prefix) {
  const init = clockSetting(initial);
  const key = JSON.stringify(init);
  const preset = CLOCK_PRESETS.find((p) => JSON.stringify(p.clock) === key);
  const custom = init && !preset ? init : null;
  const sel = /** @type {HTMLSelectElement} */ (h('select', { id: `${prefix}-clock`, name: 'clock' },
    h('option', { value: '', selected: !init }, t('app.clock.none')),
    ...CLOCK_PRESETS.map((p) => h('option', { value: p.id, selected: p === preset }, describeClock(p.clock))),
    custom && h('option', { value: 'custom', selected: true }, describeClock(custom))));
  return {
    el: h('div', { class: 'field clock-field' }, h('label', { for: sel.id, text: t('app.clock.label') }), sel,
      h('p', { class: 'hint', text: t('app.clock.hint') })),
    read() {
      if (sel.value === 'custom') return custom;
      return CLOCK_PRESETS.find((p) => p.id === sel.value)?.clock || null;
    },
  };
}

/** Below this a clock warns (or a fifth of the limit, when that is less). */
export const LOW_MS = 10_000;

/**
 * The time left under which a seat's clock shows the warning: 10 s, or a
 * fifth of the limit (a move's, or a chess clock's base) when that is less.
 * @param {any} setting
 */
export function lowAt(setting) {
  const s = clockSetting(setting);
  const limit = !s ? 0 : 'moveMs' in s ? s.moveMs : s.baseMs;
  return limit ? Math.min(LOW_MS, limit / 5) : LOW_MS;
}

/**
 * Time left as a clock shows it: "4:59", "1:02:03", and under 10 s with
 * tenths, "9.4". Never rounded up: 0 is only shown when none is left.
 * @param {number} ms
 */
export function formatClock(ms) {
  const v = Math.max(0, ms);
  if (v < 10_000) {
    const tenths = Math.floor(v / 100);
    return `${Math.floor(tenths / 10)}.${tenths % 10}`;
  }
  const s = Math.floor(v / 1000);
  const hh = Math.floor(s / 3600), mm = Math.floor((s % 3600) / 60), ss = s % 60;
  const two = (/** @type {number} */ n) => String(n).padStart(2, '0');
  return hh ? `${hh}:${two(mm)}:${two(ss)}` : `${mm}:${two(ss)}`;
}

/**
 * A turn clock from a message, checked: null when it is not one.
 * @param {any} tc
 * @param {number} seats
 * @returns {TurnClock|null}
 */
export function turnClockOf(tc, seats) {
  if (!tc || !Array.isArray(tc.remainingMs)) return null;
  const remainingMs = tc.remainingMs.slice(0, Math.max(seats, 0) || tc.remainingMs.length).map((x) => Math.max(0, Number(x) || 0));
  const running = Array.isArray(tc.running) ? tc.running.filter((s) => Number.isInteger(s) && s >= 0 && s < remainingMs.length) : [];
  return { remainingMs, running, deadline: Number(tc.deadline) || 0 };
}

/** How often a running clock is redrawn. */
const REDRAW_MS = 100;

export class TurnClockView {
  /**
   * @param {object} o
   * @param {(seat: number) => string} o.seatName
   * @param {() => number|null} o.seat        this tab's seat (null: watching)
   * @param {string} [o.className]           where it shows (a page's own layout rules)
   * @param {() => number} [o.now]            a monotonic clock, ms
   */
  constructor(o) {
    this.seatName = o.seatName;
    this.mySeat = o.seat;
    this.now = o.now || (() => performance.now());
    this.chips = h('div', { class: 'turn-clock-chips' });
    this.result = h('p', { class: 'turn-clock-result', id: 'turn-clock-result', hidden: true });
    this.live = h('p', { class: 'turn-clock-live', id: 'turn-clock-live', 'aria-live': 'assertive' });
    this.el = h('section', { class: 'turn-clocks ' + (o.className || ''), id: 'turn-clocks', hidden: true,
      'aria-label': t('app.clock.title'), dataset: { state: 'none' } }, this.chips, this.result, this.live);
    /** @type {TurnClock|null} */
    this.tc = null;
    this.at = 0; // when tc arrived (this.now())
    this.low = LOW_MS;
    this.paused = false;
    /** @type {number[]} */
    this.timedOut = [];
    /** the running seats whose warning was given (again once back above it) */
    this.warned = new Set();
    /** @type {Map<number, HTMLElement>} */
    this.badges = new Map();
    /** @type {ReturnType<typeof setInterval>|null} */
    this.timer = null;
    this.seats = 0;
  }

  /**
   * The room's settings (the clock's limit) and seats.
   * @param {any} info
   */
  setRoom(info) {
    this.low = lowAt(info?.settings?.clock);
    this.seats = Array.isArray(info?.seats) ? info.seats.length : 0;
    this.draw();
  }

  /**
   * A turn clock from a message (null: the match has none, or no match):
   * the countdown restarts from it.
   * @param {any} tc
   */
  set(tc) {
    this.tc = turnClockOf(tc, this.seats);
    this.at = this.now();
    this.paused = false;
    if (!this.tc) {
      this.timedOut = [];
      this.warned.clear();
    }
    this.draw();
  }

  /**
   * The match's result: who ran out of time (status "timeout"), with each
   * seat's time at the end; null when a new match starts.
   * @param {any} result
   */
  setResult(result) {
    this.timedOut = result?.status === 'timeout' && Array.isArray(result.timedOut) ? result.timedOut.filter(Number.isInteger) : [];
    if (result && Array.isArray(result.remainingMs) && this.tc) {
      this.tc = turnClockOf({ remainingMs: result.remainingMs, running: [], deadline: 0 }, this.seats);
      this.at = this.now();
    } else if (result && this.tc) {
      this.tc = { ...this.tc, remainingMs: this.current(), running: [], deadline: 0 };
      this.at = this.now();
    }
    const r = /** @type {HTMLElement} */ (this.result);
    r.hidden = !this.timedOut.length;
    r.dataset.timedOut = this.timedOut.join(',');
    r.textContent = this.timedOut.map((s) => s === this.mySeat() ? t('app.clock.youOut') : t('app.clock.out', { name: this.seatName(s) })).join(' ');
    this.draw();
  }

  /** The connection is away: the clocks stop where they are. */
  pause() {
    if (!this.tc || this.paused) return;
    this.tc = { ...this.tc, remainingMs: this.current() };
    this.at = this.now();
    this.paused = true;
    this.draw();
  }

  /**
   * The element that shows seat's clock by the seat (the room's list of
   * seats): the same element for a seat each time, redrawn with the rest.
   * @param {number} seat
   */
  badge(seat) {
    let b = this.badges.get(seat);
    if (!b) {
      b = h('span', { class: 'seat-clock', role: 'timer', dataset: { seat: String(seat) } });
      this.badges.set(seat, b);
    }
    this.drawOne(b, seat, this.current());
    return b;
  }

  /** Each seat's time left now, as shown. */
  current() {
    const tc = this.tc;
    if (!tc) return [];
    const gone = this.paused ? 0 : this.now() - this.at;
    return tc.remainingMs.map((ms, s) => tc.running.includes(s) ? Math.max(0, ms - gone) : ms);
  }

  /** Whether a seat's clock counts down on the screen now. */
  runs(/** @type {number} */ s) { return !!this.tc && !this.paused && this.tc.running.includes(s) && !this.timedOut.length; }

  draw() {
    const tc = this.tc;
    const el = /** @type {HTMLElement} */ (this.el);
    el.hidden = !tc && !this.timedOut.length;
    el.dataset.state = !tc ? 'none' : this.timedOut.length ? 'ended' : tc.running.length && !this.paused ? 'running' : 'stopped';
    const now = this.current();
    const chips = /** @type {HTMLElement} */ (this.chips);
    if (chips.childElementCount !== now.length) {
      clear(chips);
      for (let s = 0; s < now.length; s++) {
        chips.append(h('div', { class: 'turn-clock', dataset: { seat: String(s) } },
          h('span', { class: 'turn-clock-name' }), h('span', { class: 'turn-clock-time', role: 'timer' })));
      }
    }
    [...chips.children].forEach((c, s) => {
      const name = /** @type {HTMLElement} */ (c.querySelector('.turn-clock-name'));
      const who = s === this.mySeat() ? t('app.clock.you', { name: this.seatName(s) }) : this.seatName(s);
      if (name.textContent !== who) name.textContent = who;
      this.drawOne(/** @type {HTMLElement} */ (c), s, now);
      const time = /** @type {HTMLElement} */ (c.querySelector('.turn-clock-time'));
      if (time.textContent !== c.dataset.text) time.textContent = c.dataset.text || '';
    });
    for (const [s, b] of this.badges) {
      if (!b.isConnected) this.badges.delete(s);
      else this.drawOne(b, s, now);
    }
    this.warn(now);
    this.schedule();
  }

  /**
   * One seat's clock on an element: its data and, for a badge, its text.
   * @param {HTMLElement} el
   * @param {number} s
   * @param {number[]} now
   */
  drawOne(el, s, now) {
    const ms = now[s];
    el.hidden = ms == null;
    if (ms == null) return;
    const out = this.timedOut.includes(s);
    const text = formatClock(out ? 0 : ms);
    el.dataset.ms = String(out ? 0 : Math.floor(ms / 100) * 100);
    el.dataset.running = String(this.runs(s));
    el.dataset.low = String(!out && ms < this.low && (this.runs(s) || ms > 0));
    el.dataset.out = String(out);
    el.dataset.text = text;
    el.title = t('app.clock.left', { name: this.seatName(s), time: text });
    if (el.classList.contains('seat-clock') && el.textContent !== text) el.textContent = text;
  }

  /**
   * Says once, for screen readers, that a running clock went under the
   * warning; a clock back above it (an increment, a new turn) may warn
   * again.
   * @param {number[]} now
   */
  warn(now) {
    for (let s = 0; s < now.length; s++) {
      const low = this.runs(s) && now[s] < this.low;
      if (!low) {
        if (now[s] >= this.low || !this.tc?.running.includes(s)) this.warned.delete(s);
        continue;
      }
      if (this.warned.has(s)) continue;
      this.warned.add(s);
      const n = Math.max(1, Math.ceil(now[s] / 1000));
      /** @type {HTMLElement} */ (this.live).textContent = s === this.mySeat() ? t('app.clock.lowYou', { n }) : t('app.clock.low', { name: this.seatName(s), n });
    }
  }

  /** Redraws while a clock runs on the screen, and only then. */
  schedule() {
    const running = !!this.tc && !this.paused && this.tc.running.length > 0 && !this.timedOut.length;
    if (running && !this.timer) this.timer = setInterval(() => this.draw(), REDRAW_MS);
    else if (!running && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  destroy() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.el.remove();
  }
}
