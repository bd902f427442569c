// @ts-check
// The local session runner (seed 001's createLocalSession, on our Go core
// compiled to WebAssembly): one game played in this page with no server —
// solo, against the AI, pass-and-play on one device, or the day's board.
// No DOM here: page.js shows it, and web/testdata/local_runner_test.js
// drives it under Node with the same core.
//
// What it does, and the choices made where the seed leaves them open:
//
// - Seats: the viewer's seat 0 is a human; in vs-AI mode every other seat
//   is the AI's (it moves when pending, from its own view only, after
//   aiDelayMs, and an illegal AI command is reported, never retried); in
//   pass-and-play every seat is a human sharing the device. As in a room
//   (room.aiSeat, state.awaitsHuman), the AI waits for the human's first
//   move of the game while a human seat may move: it does not open the
//   board for them, nor race ahead while the page is still loading; when
//   only AI seats may move (a duel the AI opens), it goes first.
// - Hand-off (pass-and-play): when the seat to act changes, the runner
//   shows nobody's hand — the spectator's view, and the spectator's beats
//   — until reveal() hands the device to that seat. A finished game shows
//   the spectator's view, so the last hand is not left on the screen. A
//   new game opens on the seat to act (the rules may draw it) with no
//   hand-off screen: nobody has seen its board yet; a restored one opens
//   behind the hand-off screen.
// - Undo (host policy, by mode): solo unlimited, vs-AI at most 3, none in
//   pass-and-play and in the daily game. An undo takes back the human's
//   last command and everything after it, by replaying the rest from the
//   seed; it is refused after the end, without a command to take back,
//   or past the allowance, and every undo is counted as assistance.
// - Daily: one board per day and game for everyone, its seed derived from
//   the date (UTC) — never ranked, since anyone can compute it; its result
//   shares as a line of text that does not show the board.
// - Saves: an envelope in localStorage (game, rules version, mode, seats,
//   seed, config, log, undos, assists, elapsed) written after every
//   accepted change; restoring replays the log through the core and
//   refuses, saying why, a save of other rules or one whose log the rules
//   no longer accept.
// - Time: the core reads no clock; a command carries the ms since the
//   game's first command (the displayed timer), never going back.
// - Turn clocks (pass-and-play of two seats, settings.clock as a room's:
//   {moveMs} or {baseMs, incrementMs}): the runner keeps them with the
//   room's rules (PROTOCOL.md §2.12) — a seat's turn is the stretch it is
//   pending, hand-off screen included; a per-move limit starts afresh each
//   turn; a chess clock is charged the turn and given the increment when
//   the turn ends (not for the move that ends the match).
//   The state carries them in the room's shape (turnClock), so the page
//   shows them with the room's code. A seat out of time loses (status
//   "timeout", timedOut, remainingMs in the result), or, for a game whose
//   rule is the AI's (info onTimeout "ai"), the AI plays that turn. The
//   other modes play without a clock. A save keeps each seat's time left
//   at the last change; a restored game goes on from there (the time the
//   page was closed is not charged, as a server credits its downtime).

/** @typedef {import('./core.js').LocalCore} LocalCore */

/** @typedef {'solo'|'ai'|'pass'|'daily'} LocalMode */

/**
 * What undo allows in a mode: 'none', 'unlimited', or at most n.
 * @type {Record<LocalMode, 'none'|'unlimited'|number>}
 */
export const UNDO_POLICY = { solo: 'unlimited', ai: 3, pass: 'none', daily: 'none' };

/** The save envelope's version. */
const SAVE_VERSION = 1;

/** A turn clock's bounds (the room's: PROTOCOL.md §2.12). */
const MAX_CLOCK_MS = 10_800_000;

/**
 * A turn clock setting within the room's bounds, or null for none.
 * @param {any} c
 * @returns {{moveMs: number}|{baseMs: number, incrementMs: number}|null}
 */
export function clockOf(c) {
  if (!c || typeof c !== 'object') return null;
  const ms = (/** @type {any} */ v, /** @type {number} */ lo, /** @type {number} */ hi) => Number.isInteger(v) && v >= lo && v <= hi;
  if (ms(c.moveMs, 1000, 3_600_000)) return { moveMs: c.moveMs };
  if (ms(c.baseMs, 1000, MAX_CLOCK_MS) && (c.incrementMs == null || ms(c.incrementMs, 0, 600_000))) return { baseMs: c.baseMs, incrementMs: c.incrementMs || 0 };
  return null;
}

/**
 * @typedef {object} LocalSeat
 * @property {string} name
 * @property {boolean} ai
 */

/**
 * @typedef {object} LogEntry
 * @property {number} seat
 * @property {any} move
 * @property {number} t
 */

/**
 * A save: everything a game is restored from.
 * @typedef {object} SaveEnvelope
 * @property {number} v
 * @property {string} game
 * @property {string} rulesVersion
 * @property {LocalMode} mode
 * @property {LocalSeat[]} seats
 * @property {any} seed
 * @property {any} config
 * @property {LogEntry[]} log
 * @property {number} undos
 * @property {string[]} assists
 * @property {string} [day]       the daily game's date
 * @property {{moveMs: number}|{baseMs: number, incrementMs: number}|null} [clock]   pass-and-play's turn clock
 * @property {number[]} [remainingMs]   each seat's time left at the save
 */

/**
 * What the page shows, published whole after every change.
 * @typedef {object} LocalState
 * @property {number|null} viewer        the seat whose view is shown; null behind a hand-off screen or at the end of pass-and-play
 * @property {any} view
 * @property {number[]} pending
 * @property {{phase: string, started: boolean, over: boolean, outcome: {winners: number[]|null}}} status
 * @property {{seat: number, name: string}|null} handoff
 * @property {{available: boolean, remaining: number|null, why: string, reason: string, limit: number|null}} undo
 *   why: in English (logs, tests); reason: its code, which the page shows
 *   in the language chosen (local.undo.why.{reason}, with the limit)
 * @property {number[]} thinking       AI seats choosing now
 * @property {number} undos
 * @property {string[]} assists
 * @property {number} match
 * @property {{remainingMs: number[], running: number[], deadline: number}|null} turnClock
 *   the turn clock as the room's room.turnClock (remainingMs as of now, deadline in Date.now() ms), null without one
 */

/**
 * The seed of the daily game of a game on a day (YYYY-MM-DD, UTC): a
 * 32-bit FNV-1a hash of "roomd daily", the game and the day, never 0. The
 * same date gives the same board on every device.
 * @param {string} game
 * @param {string} day
 */
export function dailySeed(game, day) {
  let h = 0x811c9dc5;
  for (const c of new TextEncoder().encode(`roomd daily ${game} ${day}`)) {
    h ^= c;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h || 1;
}

/** Today's date, UTC, as YYYY-MM-DD. @param {Date} [d] */
export function today(d = new Date()) { return d.toISOString().slice(0, 10); }

/** A fresh random seed (a 31-bit integer, as the core takes). */
export function randomSeed() {
  const a = new Uint32Array(1);
  crypto.getRandomValues(a);
  return (a[0] >>> 1) || 1;
}

export class LocalSession {
  /**
   * @param {LocalCore} core
   * @param {object} opts
   * @param {string} opts.game
   * @param {LocalMode} opts.mode
   * @param {LocalSeat[]} opts.seats
   * @param {any} opts.config
   * @param {any} [opts.seed]            default: random, or the day's for daily
   * @param {string} [opts.day]          daily: the date (default today, UTC)
   * @param {number} [opts.aiDelayMs]
   * @param {Storage|null} [opts.storage] where saves go (default none)
   * @param {(s: LocalState, beats: any[]|null) => void} [opts.onChange]
   * @param {number} [opts.hz]           a real-time game's tick rate: the runner ticks it
   * @param {(tick: number, beats: any[]) => void} [opts.onTick]   a real-time game's tick
   * @param {any} [opts.clock]          pass-and-play's turn clock ({moveMs} or {baseMs, incrementMs})
   * @param {string} [opts.onTimeout]   the game's rule for a seat out of time: "resign" (default) or "ai"
   * @param {() => number} [opts.now]   a monotonic clock in ms (default performance.now)
   */
  constructor(core, opts) {
    this.core = core;
    this.game = opts.game;
    this.mode = opts.mode;
    this.seats = opts.seats.map((s) => ({ name: s.name, ai: !!s.ai }));
    this.config = opts.config ?? {};
    this.day = this.mode === 'daily' ? (opts.day || today()) : undefined;
    this.seed = opts.seed ?? (this.day ? dailySeed(this.game, this.day) : randomSeed());
    this.aiDelayMs = opts.aiDelayMs ?? 400;
    this.storage = opts.storage ?? null;
    this.onChange = opts.onChange || (() => {});
    this.hz = opts.hz || 0;
    this.onTick = opts.onTick || (() => {});
    /** @type {ReturnType<typeof setTimeout>|null} */
    this.tickTimer = null;
    this.tick = 0;
    this.paused = false;
    const info = core.manifest.games.find((g) => g.id === this.game);
    if (!info) throw new Error(`the local core has no game ${this.game}`);
    this.rulesVersion = info.rulesVersion;
    /** @type {number} */
    this.handle = 0;
    /** @type {LogEntry[]} */
    this.log = [];
    this.undos = 0;
    /** @type {string[]} */
    this.assists = [];
    this.match = 0;
    this.t0 = 0; // when the first command was made (performance.now), 0 before
    /** @type {number|null} */
    this.viewer = 0;
    /** @type {{seat: number, name: string}|null} */
    this.handoff = null;
    /** @type {ReturnType<typeof setTimeout>|null} */
    this.aiTimer = null;
    this.disposed = false;
    /** @type {any} */
    this.status = null;
    /** @type {number[]} */
    this.pending = [];
    this.clockNow = opts.now || (() => performance.now());
    this.clock = this.mode === 'pass' && this.seats.length === 2 && !this.hz ? clockOf(opts.clock) : null;
    this.onTimeout = opts.onTimeout || 'resign';
    /** @type {number[]} each seat's time left when its running turn began (or now, when not running) */
    this.remaining = [];
    /** @type {(number|null)[]} when each running seat's turn began (clockNow), null when it is not running */
    this.turnStart = [];
    /** @type {number[]} */
    this.timedOut = [];
    /** @type {ReturnType<typeof setTimeout>|null} */
    this.clockTimer = null;
    /** @type {number[]|null} the times a restored save kept */
    this.kept = null;
  }

  /** Starts a new game (a new seed, but for the daily game). */
  start() {
    this.open(this.seed);
    this.startClocks(null);
    this.publish(null);
    if (this.hz) {
      this.startTicking();
      return;
    }
    this.save();
    this.driveAI();
  }

  // A real-time game (seed 001's fixed-step runner, kept small): the
  // runner's timer runs one tick per 1000/hz ms of wall time, at most a
  // tenth of a second's ticks at once after a stall (the rest dropped),
  // none while paused; inputs are queued for the next tick; the AI seats
  // give theirs after each tick, from their own views. Time is ticks. A
  // real-time game has no undo and is not saved.

  startTicking() {
    this.stopTicking();
    let next = performance.now();
    const step = 1000 / this.hz;
    const loop = () => {
      this.tickTimer = null;
      if (this.disposed || this.paused || this.status?.over) return;
      const now = performance.now();
      let n = 0;
      while (next <= now && n < Math.max(1, Math.round(this.hz / 10))) {
        this.advance();
        next += step;
        n++;
        if (this.status?.over) return;
      }
      if (next <= now) next = now + step; // behind: drop the backlog
      this.tickTimer = setTimeout(loop, Math.max(0, next - performance.now()));
    };
    this.tickTimer = setTimeout(loop, 0);
  }

  stopTicking() {
    if (this.tickTimer) clearTimeout(this.tickTimer);
    this.tickTimer = null;
  }

  /** Runs one tick: its beats to the page, then the AI seats' inputs. */
  advance() {
    const ans = this.call({ op: 'advance', session: this.handle, viewers: [this.shownViewer()] });
    if (ans.error) {
      this.report(`tick ${this.tick + 1}: ${ans.error.message}`);
      this.stopTicking();
      return;
    }
    this.tick = ans.tick;
    this.status = ans.status;
    this.onTick(ans.tick, ans.beats[0] || []);
    if (this.status?.over) {
      this.publish(null);
      return;
    }
    for (const [seat, s] of this.seats.entries()) {
      if (!s.ai) continue;
      const ai = this.call({ op: 'ai', session: this.handle, seat });
      if (ai.command != null) this.call({ op: 'input', session: this.handle, seat, command: ai.command, t: this.tick });
    }
  }

  /** Pauses a real-time game (the page is hidden): no tick runs. */
  pause() {
    if (!this.hz || this.paused) return;
    this.paused = true;
    this.stopTicking();
  }

  resumeTicking() {
    if (!this.hz || !this.paused) return;
    this.paused = false;
    if (!this.status?.over) this.startTicking();
  }

  /** @param {any} seed */
  open(seed) {
    if (this.handle) this.call({ op: 'close', session: this.handle });
    const ans = this.call({ op: 'new', game: this.game, seed, config: this.config, seats: this.seats.length });
    if (ans.error) throw new Error(ans.error.message);
    this.handle = ans.session;
    this.seed = seed;
    this.status = ans.status;
    this.pending = ans.pending;
    this.log = [];
    this.match++;
    this.t0 = 0;
    this.tick = 0;
    this.timedOut = [];
    this.stopClockTimer();
    if (this.mode === 'pass') {
      // Nobody has seen this game's board yet: it opens on the seat to act
      // (the rules may draw the first seat), with no hand-off screen.
      const first = this.pending.find((s) => !this.seats[s].ai);
      if (first != null) this.viewer = first;
      this.handoff = null;
    }
    this.followTurn();
  }

  /** @param {Record<string, any>} req */
  call(req) { return this.core.call(req); }

  /** The ms since the first command, never before the last command's. */
  now() {
    if (!this.t0) this.t0 = performance.now() - (this.log.at(-1)?.t ?? 0);
    return Math.max(Math.round(performance.now() - this.t0), this.log.at(-1)?.t ?? 0);
  }

  /**
   * A human's command, from the viewer's seat (or, in pass-and-play, the
   * seat to act). Answers like a receipt: {ok, notice?}.
   * @param {any} command
   */
  command(command) {
    // The messages are English, for logs and tests; the page shows the
    // codes in the language chosen (local/page.js, localNotice).
    if (this.disposed) return { ok: false, notice: { code: 'closed', message: 'This game is closed.' } };
    if (this.checkClock()) return { ok: false, notice: { code: 'timeout', message: 'Time is up.' } };
    if (this.handoff) return { ok: false, notice: { code: 'handoff', message: `Hand the device to ${this.handoff.name} first.`, name: this.handoff.name } };
    const seat = this.viewer;
    if (seat == null || this.seats[seat]?.ai) return { ok: false, notice: { code: 'wrong-seat', message: 'Watching: there is no seat to play.' } };
    if (this.hz) {
      if (this.paused || this.status?.over) return { ok: false, notice: { code: 'paused', message: 'The game is not running.' } };
      const ans = this.call({ op: 'input', session: this.handle, seat, command, t: this.tick });
      return ans.error ? { ok: false, notice: ans.error } : { ok: true, tick: ans.tick };
    }
    return this.apply(seat, command);
  }

  /**
   * @param {number} seat
   * @param {any} command
   */
  apply(seat, command) {
    const viewers = this.viewerList();
    const t = this.now();
    const ans = this.call({ op: 'apply', session: this.handle, seat, command, t, viewers });
    if (ans.error) return { ok: false, notice: ans.error };
    this.log.push({ seat, move: ans.move, t });
    this.status = ans.status;
    this.pending = ans.pending;
    this.turns();
    const shown = this.shownViewer();
    const beats = ans.beats[viewers.indexOf(shown)] ?? null;
    const before = this.viewer;
    this.followTurn();
    // A new viewer (a hand-off) gets a whole view, not beats of another's.
    this.publish(before === this.viewer && !this.handoff ? beats : null);
    this.save();
    this.driveAI();
    return { ok: true };
  }

  /** The viewers whose beats an apply asks for: the shown one. */
  viewerList() { return [this.shownViewer()]; }

  /** The seat whose view is on the screen, -1 for the spectator's. */
  shownViewer() { return this.viewer == null ? -1 : this.viewer; }

  /**
   * Pass-and-play follows the human seat to act, behind a hand-off screen;
   * the other modes keep the viewer at seat 0. At the end of pass-and-play
   * nobody's view stays on the screen.
   */
  followTurn() {
    if (this.mode !== 'pass') return;
    if (this.status?.over) {
      this.viewer = null;
      this.handoff = null;
      return;
    }
    const next = this.pending.find((s) => !this.seats[s].ai);
    if (next == null || next === this.viewer) return;
    this.viewer = null;
    this.handoff = { seat: next, name: this.seats[next].name };
  }

  // ---- turn clocks ----

  /**
   * Starts the clocks of a game just opened: every seat's full time, or
   * the times a save kept; the seats pending now start their turns.
   * @param {number[]|null} kept
   */
  startClocks(kept) {
    if (!this.clock) return;
    const full = 'moveMs' in this.clock ? this.clock.moveMs : this.clock.baseMs;
    this.remaining = this.seats.map((_, i) => {
      const k = Number(kept?.[i]);
      return Number.isFinite(k) && k > 0 && k <= MAX_CLOCK_MS ? k : full;
    });
    this.turnStart = this.seats.map(() => null);
    this.turns();
  }

  /**
   * Follows the turns after a change: a seat no longer pending ends its
   * turn (the chess clock charged it and adds the increment; a per-move
   * limit starts afresh), a seat newly pending starts one; then the timer
   * is set for the first deadline.
   */
  turns() {
    const c = this.clock;
    if (!c) return;
    const now = this.clockNow();
    const over = !!this.status?.over;
    for (let s = 0; s < this.seats.length; s++) {
      const start = this.turnStart[s];
      const pending = !over && this.pending.includes(s);
      if (start != null && !pending) {
        // No increment for the move that ends the match (the room's rule).
        this.remaining[s] = 'moveMs' in c ? c.moveMs : Math.max(0, this.remaining[s] - (now - start)) + (over ? 0 : c.incrementMs);
        this.turnStart[s] = null;
      } else if (start == null && pending) {
        if ('moveMs' in c) this.remaining[s] = c.moveMs;
        this.turnStart[s] = now;
      }
    }
    this.armClock();
  }

  /** Each seat's time left now. */
  left() {
    const now = this.clockNow();
    return this.remaining.map((ms, s) => {
      const start = this.turnStart[s];
      return start == null ? ms : Math.max(0, ms - (now - start));
    });
  }

  /** The turn clock in the room's shape, or null. */
  turnClock() {
    if (!this.clock) return null;
    const left = this.left();
    const running = this.turnStart.flatMap((st, s) => st == null ? [] : [s]);
    const first = running.length ? Math.min(...running.map((s) => left[s])) : 0;
    return { remainingMs: left.map(Math.round), running, deadline: running.length ? Math.round(Date.now() + first) : 0 };
  }

  armClock() {
    this.stopClockTimer();
    if (!this.clock || this.disposed || this.status?.over) return;
    const left = this.left().filter((_, s) => this.turnStart[s] != null);
    if (!left.length) return;
    this.clockTimer = setTimeout(() => {
      this.clockTimer = null;
      if (!this.checkClock()) this.armClock();
    }, Math.max(0, Math.min(...left)) + 1);
  }

  stopClockTimer() {
    if (this.clockTimer) clearTimeout(this.clockTimer);
    this.clockTimer = null;
  }

  /**
   * Applies the rule of a running seat whose time is out: it loses (the
   * other seat wins), or the game's AI plays its turn. True when the game
   * ended on time.
   */
  checkClock() {
    if (!this.clock || this.status?.over || this.disposed) return false;
    const left = this.left();
    const out = this.turnStart.flatMap((st, s) => st != null && left[s] <= 0 ? [s] : []);
    if (!out.length) return false;
    if (this.onTimeout === 'ai' && out.length === 1) {
      const seat = out[0];
      const ai = this.call({ op: 'ai', session: this.handle, seat });
      if (!ai.error && ai.command != null) {
        this.remaining[seat] = 0;
        this.turnStart[seat] = this.clockNow(); // its turn ends at once, with the increment
        this.viewer = null; // the move is made for the seat: nobody's hand stays shown
        const rc = this.apply(seat, ai.command);
        if (rc.ok) return !!this.status?.over;
        this.report(`the AI's move for seat ${seat}, out of time, is refused: ${rc.notice?.message}`);
      }
    }
    if (this.aiTimer) { clearTimeout(this.aiTimer); this.aiTimer = null; }
    for (const s of out) {
      this.remaining[s] = 0;
      this.turnStart[s] = null;
    }
    const now = this.clockNow();
    this.turnStart.forEach((st, s) => {
      if (st != null) this.remaining[s] = Math.max(0, this.remaining[s] - (now - st));
      this.turnStart[s] = null;
    });
    this.timedOut = out;
    this.stopClockTimer();
    const winners = this.seats.map((_, s) => s).filter((s) => !out.includes(s));
    this.status = { ...this.status, phase: 'timeout', over: true, outcome: { ...(this.status?.outcome || {}), winners } };
    this.pending = [];
    this.followTurn();
    this.publish(null);
    return true;
  }

  /** Ends the hand-off screen: the device is with the seat to act. */
  reveal() {
    if (!this.handoff) return;
    this.viewer = this.handoff.seat;
    this.handoff = null;
    this.publish(null);
  }

  /**
   * Whether the game waits for a human's first move: no human seat has
   * moved yet and one may move now (the room's state.awaitsHuman).
   */
  awaitsHuman() {
    if (this.log.some((e) => !this.seats[e.seat]?.ai)) return false;
    return this.pending.some((s) => !this.seats[s]?.ai);
  }

  /**
   * Plays the pending AI seats, one command each, after aiDelayMs; none
   * before the human's first move while a human may move (awaitsHuman).
   */
  driveAI() {
    if (this.hz || this.aiTimer || this.disposed || this.status?.over || this.awaitsHuman()) return;
    const seat = this.pending.find((s) => this.seats[s].ai);
    if (seat == null) return;
    this.aiTimer = setTimeout(() => {
      this.aiTimer = null;
      if (this.disposed || this.status?.over || !this.pending.includes(seat)) return;
      const ans = this.call({ op: 'ai', session: this.handle, seat });
      if (ans.error || ans.command == null) {
        this.report(`the AI of seat ${seat} has no move: ${ans.error?.message || 'none'}`);
        return;
      }
      const rc = this.apply(seat, ans.command);
      if (!rc.ok) this.report(`the AI of seat ${seat} chose a refused command: ${rc.notice?.message}`);
    }, this.aiDelayMs);
    this.publish(null, true);
  }

  /** @param {string} msg */
  report(msg) { console.warn(`roomd local: ${msg}`); }

  /** What undo allows now. */
  undoState() {
    const policy = UNDO_POLICY[this.mode];
    const remaining = typeof policy === 'number' ? Math.max(0, policy - this.undos) : null;
    const lastHuman = this.log.findLastIndex((e) => !this.seats[e.seat].ai);
    let why = '', reason = '';
    if (this.hz) [reason, why] = ['realtime', 'A real-time game has no undo.'];
    else if (policy === 'none') [reason, why] = this.mode === 'daily' ? ['daily', 'The daily game has no undo.'] : ['pass', 'Pass-and-play has no undo.'];
    else if (remaining === 0) [reason, why] = ['used', `No undo left (${policy} a game).`];
    else if (this.status?.over) [reason, why] = ['over', 'The game is over.'];
    else if (lastHuman < 0) [reason, why] = ['nothing', 'Nothing to undo yet.'];
    return { available: !why, remaining, why, reason, limit: typeof policy === 'number' ? policy : null };
  }

  /**
   * Takes back the human's last command and all that followed, by
   * replaying the rest from the seed. Answers like a receipt.
   */
  undo() {
    const u = this.undoState();
    if (!u.available) return { ok: false, notice: { code: 'undo-refused', message: u.why, reason: u.reason, limit: u.limit } };
    const keep = this.log.slice(0, this.log.findLastIndex((e) => !this.seats[e.seat].ai));
    const err = this.replay(keep);
    if (err) return { ok: false, notice: { code: 'undo-failed', message: err } };
    this.undos++;
    if (!this.assists.includes('undo')) this.assists.push('undo');
    this.publish(null);
    this.save();
    this.driveAI();
    return { ok: true };
  }

  /**
   * Opens the game afresh from its seed and plays entries; an error names
   * the first entry the rules refuse.
   * @param {LogEntry[]} entries
   * @returns {string}
   */
  replay(entries) {
    if (this.aiTimer) { clearTimeout(this.aiTimer); this.aiTimer = null; }
    const match = this.match;
    this.open(this.seed);
    this.match = match;
    for (const [i, e] of entries.entries()) {
      const ans = this.call({ op: 'apply', session: this.handle, seat: e.seat, command: e.move, t: e.t, viewers: [] });
      if (ans.error) return `entry ${i} (${JSON.stringify(e.move)}) is refused: ${ans.error.message}`;
      this.log.push({ seat: e.seat, move: ans.move, t: e.t });
      this.status = ans.status;
      this.pending = ans.pending;
    }
    this.t0 = 0;
    this.followTurn();
    this.startClocks(this.kept);
    if (this.mode === 'pass' && !this.status?.over && this.handoff == null) {
      // A restored pass-and-play game starts behind a hand-off screen.
      const next = this.pending.find((s) => !this.seats[s].ai);
      if (next != null) { this.viewer = null; this.handoff = { seat: next, name: this.seats[next].name }; }
    }
    return '';
  }

  /** The state the page shows. @returns {LocalState} */
  state() {
    const viewer = this.shownViewer();
    const view = this.call({ op: 'view', session: this.handle, viewer }).view;
    return {
      viewer: this.viewer, view, pending: this.pending, status: this.status, handoff: this.handoff,
      undo: this.undoState(), thinking: this.aiTimer ? this.pending.filter((s) => this.seats[s].ai) : [],
      undos: this.undos, assists: [...this.assists], match: this.match, turnClock: this.turnClock(),
    };
  }

  /**
   * @param {any[]|null} beats
   * @param {boolean} [quiet]   only the thinking seats changed
   */
  publish(beats, quiet = false) {
    if (this.disposed) return;
    this.onChange(this.state(), quiet ? null : beats);
  }

  /** The save of the game now. @returns {SaveEnvelope} */
  envelope() {
    return {
      v: SAVE_VERSION, game: this.game, rulesVersion: this.rulesVersion, mode: this.mode, seats: this.seats,
      seed: this.seed, config: this.config, log: this.log, undos: this.undos, assists: this.assists, day: this.day,
      ...(this.clock ? { clock: this.clock, remainingMs: this.left().map(Math.round) } : {}),
    };
  }

  /** The storage key of a game's save in a mode. @param {string} game @param {LocalMode} mode */
  static key(game, mode) { return `roomd.local.${game}.${mode}`; }

  save() {
    if (!this.storage || this.hz) return;
    try {
      this.storage.setItem(LocalSession.key(this.game, this.mode), JSON.stringify(this.envelope()));
    } catch (err) {
      this.report(`the save failed: ${/** @type {Error} */ (err).message}`);
    }
  }

  /** Forgets the save (a finished game is not offered for resuming). */
  clearSave() {
    try { this.storage?.removeItem(LocalSession.key(this.game, this.mode)); } catch { /* none */ }
  }

  /**
   * Restores a saved game, or says why it cannot.
   * @param {LocalCore} core
   * @param {SaveEnvelope} env
   * @param {Omit<ConstructorParameters<typeof LocalSession>[1], 'game'|'mode'|'seats'|'config'|'seed'|'day'>} opts
   * @returns {{session: LocalSession}|{error: string, code: string, params?: Record<string, string>}}
   *   error in English (logs, tests); code and params for the page's words
   *   (local.restore.{code})
   */
  static restore(core, env, opts) {
    if (!env || env.v !== SAVE_VERSION || typeof env.game !== 'string' || !Array.isArray(env.log) || !Array.isArray(env.seats)) {
      return { error: 'The save is not one this page can read.', code: 'unreadable' };
    }
    const info = core.manifest.games.find((g) => g.id === env.game);
    if (!info) return { error: `This build has no game ${env.game}.`, code: 'game', params: { game: env.game } };
    if (info.rulesVersion !== env.rulesVersion) {
      return { error: `The rules changed (${env.rulesVersion} → ${info.rulesVersion}): the saved game cannot continue.`, code: 'rules',
        params: { from: String(env.rulesVersion), to: info.rulesVersion } };
    }
    const s = new LocalSession(core, { ...opts, game: env.game, mode: env.mode, seats: env.seats, config: env.config, seed: env.seed, day: env.day, clock: env.clock });
    s.kept = Array.isArray(env.remainingMs) ? env.remainingMs : null;
    const err = s.replay(env.log);
    if (err) {
      s.dispose();
      return { error: `The saved game does not replay: ${err}.`, code: 'replay', params: { err: String(err) } };
    }
    s.undos = Number(env.undos) || 0;
    s.assists = Array.isArray(env.assists) ? env.assists.map(String) : [];
    return { session: s };
  }

  /** Shows the restored game and lets the AI go on. */
  resume() {
    this.publish(null);
    this.driveAI();
  }

  /** The result a page shows at the end: the room result's shape. */
  result() {
    if (!this.status?.over) return null;
    return {
      match: this.match, status: this.status.phase, time: this.hz ? Math.round(this.tick * 1000 / this.hz) : this.log.at(-1)?.t ?? 0, ticks: this.tick,
      winners: this.status.outcome?.winners || [], seed: this.seed, config: this.config,
      ...(this.clock ? { remainingMs: this.left().map(Math.round), ...(this.timedOut.length ? { timedOut: [...this.timedOut] } : {}) } : {}),
    };
  }

  /**
   * The daily game's result, what its line to share says (no board in it):
   * the page words it in the language shown; null before the end or
   * outside the daily mode.
   * @returns {{game: string, day: string, status: string, secs: number, moves: number, undos: number}|null}
   */
  share() {
    const r = this.result();
    if (!r || !this.day) return null;
    return { game: this.game, day: this.day, status: r.status, secs: Math.round(r.time / 1000), moves: this.log.length, undos: this.undos };
  }

  dispose() {
    if (this.disposed) return;
    this.stopTicking();
    this.stopClockTimer();
    if (this.aiTimer) clearTimeout(this.aiTimer);
    this.aiTimer = null;
    if (this.handle) this.call({ op: 'close', session: this.handle });
    this.disposed = true;
  }
}
