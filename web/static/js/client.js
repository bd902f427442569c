// @ts-check
/**
 * roomd's protocol client: one room, one WebSocket, PROTOCOL.md §2.
 *
 * A standalone ES module. It touches no DOM and imports nothing; what it
 * needs from its host comes through ports (options below), each with a
 * default for browsers, so the same file runs in a page, a worker or Node
 * (with a WebSocket port). It knows nothing of any game: views, beats and
 * commands are handed on as they come. Its types are in client.d.ts, which
 * imports the message types generated from the protocol's JSON Schema
 * (protocol.d.ts).
 *
 * USE
 *
 *   import { RoomClient, Close } from './client.js';
 *   const c = new RoomClient({ room: 'K7QXMP', name: 'Ann',
 *     game: { id: 'minesweeper', rulesVersion: 'minesweeper/1' } });
 *   c.on('snapshot', (s) => draw(s.view, s.room));
 *   c.on('update', (u) => play(u.beats));
 *   c.on('tick', (t) => step(t.tick, t.beats));   // real-time games only
 *   c.on('state', ({ state, code }) => show(state, code));
 *   c.start();
 *   const receipt = await c.command({ type: 'reveal', r: 3, c: 4 });
 *
 * API (RoomClient)
 *
 *   new RoomClient(options)  options: room (the code), game ({id,
 *                            rulesVersion, build?}), name?, watch?, auth?,
 *                            invite? (a locked room's), and the
 *                            ports: url, WebSocket, tokens, clock, random,
 *                            backoff, newId, wake, log
 *   start()                  opens the socket (state connecting)
 *   stop()                   closes for good (code 1000), state closed
 *   on(event, fn) → off      listens; listeners that throw are logged
 *   command(cmd)             a game command    ┐ each resolves with its
 *   control(ctl)             a room control    │ receipt; refused at once
 *   resign(), leave(),                         │ with "offline" when not online
 *   chat(text), report(id, reason?)            ┘ (PROTOCOL.md §2.10)
 *   resync()                 asks for a snapshot
 *   takeBack()               after 4001: reopen and send a reconnect action
 *   connectNow()             while reconnecting: dial now, skip the wait
 *   serverNow()              the host's clock, as well as it can tell
 *   rtt()                    the fastest ping round trip seen, ms (0: none)
 *   state, seat, epoch, rev, lastTick, closeCode, closeReason, replaced
 *                            read only (lastTick: the last tick of a
 *                            real-time match applied, 0 outside one)
 *
 * EVENTS (on(event, fn); fn gets one detail)
 *
 *   state     {state, code, reason, replaced}: every change of state (and
 *             every close, even closed → closed)
 *   welcome   the welcome message
 *   snapshot  the snapshot, plus epochChanged (true when it replaced another
 *             epoch's history: the room was restored)
 *   update    an update that follows the revision (gaps never reach here)
 *   tick      {tick, beats, at}: a tick of a real-time match that follows
 *             both the revision and the last tick (PROTOCOL.md §2.7), after
 *             rev and lastTick have moved; at is the clock port's time it
 *             arrived (gaps never reach here)
 *   receipt   every receipt of one of this client's actions
 *   presence  the presence message
 *   chat      a chat message: {messages: [{id, seat?, name, text, at}], history?}
 *   clocks    the host's clocks from a snapshot, an update's room or a presence
 *   notice    a notice message; a refused receipt's notice with receipt: id;
 *             a local one ("offline") with local: true
 *   bye       the bye message before a 4xxx close
 *   pong      the pong message
 *   token     {room, token}: a new seat token was kept
 *
 * STATES
 *
 *   connecting    the socket is being opened; hello goes out when it opens
 *                 (with the stored token, and the epoch and revision seen)
 *   online        a snapshot arrived; actions without a receipt are resent
 *                 with their original ids, in order
 *   reconnecting  waiting min(1.75 s, 500 ms·2ⁿ) + up to 250 ms (n: failed
 *                 attempts since last online; never more than 2 s, so that
 *                 a room another node took over is found soon), or exactly
 *                 the last bye's retryAfterMs; then connecting again
 *   closed        nothing more; see closeCode
 *
 * RULES KEPT
 *
 *   An update whose epoch or `from` differs from what was seen is dropped and
 *   answered by one resync. A tick must have `from` equal to the revision
 *   seen and be numbered lastTick + 1; otherwise it is dropped, answered by
 *   one resync, and every tick after it is dropped until the snapshot comes
 *   (which sets lastTick from its `tick`; the update that starts a match
 *   sets it to 0, the next tick being 1). A resync the server refuses for
 *   now (one snapshot per half second) is asked again half a second later.
 *   A snapshot of the same epoch older than the revision seen is ignored;
 *   one of another epoch always wins. A receipt refused with a temporary
 *   notice (rate-limited, storage-unavailable) sends the same action again,
 *   same id, up to 5 times. A ping goes out at the welcome and then every
 *   heartbeatMs (the welcome's; 15 s until the first), each once the one
 *   before it was answered — before the welcome, once nothing was heard
 *   for heartbeatMs —; a ping that nothing at all answers for heartbeatMs
 *   means the server is gone: the socket is dropped (reconnecting, 1006):
 *   a server silent since its last message is left within 2 × heartbeatMs
 *   (plus the timers' lateness), as the Go client leaves it (PROTOCOL.md
 *   §2). While a real-time match ticks, a ping goes out every 2 s besides
 *   (rtt() and serverNow() get more samples). Seat tokens are kept by room code
 *   (tokens).
 *
 * CLOSE CODES (Close.*; PROTOCOL.md §2.3)
 *
 *   1000 NORMAL                       closed
 *   4001 REPLACED                     closed, replaced = true; takeBack() reopens
 *   4002 LEFT, 4004 ROOM_CLOSED,      closed for good; the room's token is forgotten
 *   4006 BAD_TOKEN                      (a bad-token notice forgets it too)
 *   4003 UPDATE_REQUIRED              closed for good (reload the client)
 *   4005 LOCKED                       closed for good (the room needs its invite)
 *   4007 UNAUTHORIZED                 closed for good (sign in again: a new auth token)
 *   4009 MOVED                        reconnecting at once (after the bye's
 *                                     retryAfterMs, no backoff): the room moved
 *                                     to another node. To the bye's url only
 *                                     when it is this page's own origin, else
 *                                     to the same URL. After 3 moves in a row
 *                                     (connections online less than 10 s),
 *                                     each further one waits the backoff too:
 *                                     nodes that disagree cannot make it spin.
 *   anything else (4000 RESTARTING, 4008 TOO_SLOW, 4013 TRY_LATER, 4029
 *   FLOODING, 1001, 1002, 1006, 1009, 1011)
 *                                     reconnecting, after the bye's
 *                                     retryAfterMs or the backoff
 *
 * PORTS (options; defaults in brackets)
 *
 *   url        the socket URL [this origin's /ws, from globalThis.location]
 *   WebSocket  the WebSocket constructor [globalThis.WebSocket]
 *   tokens     a TokenStore [new TokenStore(): localStorage, else memory]
 *   clock      {now, setTimeout, clearTimeout, setInterval, clearInterval}
 *              [systemClock: Date.now and the global timers]
 *   random     () => [0, 1) for the jitter [Math.random]
 *   backoff    (attempt) => ms [backoff(attempt, random)]
 *   newId      () => a fresh action id [newActionId: 128 random bits]
 *   wake       (now: () => void) => unsubscribe: calls now() when it is a
 *              good moment to stop waiting (back on line, tab shown)
 *              [globalWake: the global object's online and visibilitychange]
 *   log        {warn, error} [console]
 */

/** @typedef {import('./client.js').ConnState} ConnState */
/** @typedef {import('./client.js').RoomClientOptions} RoomClientOptions */
/** @typedef {import('./client.js').Clock} Clock */
/** @typedef {import('./client.js').KeyValueStorage} KeyValueStorage */
/** @typedef {import('./client.js').Receipt} Receipt */
/** @typedef {import('./client.js').Clocks} Clocks */
/** @typedef {import('./client.js').Action} Action */

/** The protocol version this client speaks. */
export const PROTOCOL = 1;

/** How often a ping goes out while a real-time match ticks, ms. */
const TICK_PING_MS = 2000;

/** Moves (close 4009) in a row followed at once; past it, the backoff. */
export const MAX_MOVES_IN_A_ROW = 3;

/** A connection online this long ends a run of moves, ms. */
const MOVED_CALM_MS = 10_000;

/** The backoff's longest wait before its jitter, ms: with it, 2 s at most. */
const BACKOFF_CAP_MS = 1750;

/** Close codes (PROTOCOL.md §2.3). */
export const Close = Object.freeze({
  NORMAL: 1000,
  RESTARTING: 4000,
  REPLACED: 4001,
  LEFT: 4002,
  UPDATE_REQUIRED: 4003,
  ROOM_CLOSED: 4004,
  LOCKED: 4005,
  BAD_TOKEN: 4006,
  UNAUTHORIZED: 4007,
  TOO_SLOW: 4008,
  MOVED: 4009,
  TRY_LATER: 4013,
  FLOODING: 4029,
});

/** The connection states, in the order a connection goes through them. */
export const States = Object.freeze(/** @type {const} */ (['connecting', 'online', 'reconnecting', 'closed']));

/**
 * The wait before reconnect attempt n (from 0): min(1.75 s, 500 ms·2ⁿ) plus
 * up to 250 ms of jitter — 0.5, 1, 1.75, 1.75… s, never more than 2 s. When
 * a node of the service dies, its rooms come back on another node within
 * the lease's TTL (10 s by default): a client that waited longer between
 * attempts would stay away longer than its room does.
 * @param {number} attempt
 * @param {() => number} [random]
 */
export function backoff(attempt, random = Math.random) {
  return Math.min(BACKOFF_CAP_MS, 500 * 2 ** Math.min(Math.max(attempt, 0), 10)) + random() * 250;
}

/**
 * The socket URL to follow a moved bye's url to: the url's own when it is
 * the page's origin (loc), else '' (stay on the same URL: a page cannot
 * rely on another origin accepting its socket).
 * @param {any} url
 * @param {{protocol: string, host: string, origin?: string}|undefined} loc
 */
export function movedSocketURL(url, loc) {
  if (typeof url !== 'string' || !url || !loc) return '';
  let u;
  try { u = new URL(url); } catch { return ''; }
  const origin = loc.origin || loc.protocol + '//' + loc.host;
  if (u.origin !== origin) return '';
  return socketURL(u);
}

/** A fresh action id: 128 random bits, base64url (22 characters). */
export function newActionId() {
  const b = new Uint8Array(16);
  globalThis.crypto.getRandomValues(b);
  return btoa(String.fromCharCode(...b)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * The socket URL of a page's origin: ws(s)://host/ws.
 * @param {{protocol: string, host: string}} loc
 */
export function socketURL(loc) {
  return (loc.protocol === 'https:' ? 'wss://' : 'ws://') + loc.host + '/ws';
}

/** Date.now and the global timers. @type {Clock} */
export const systemClock = Object.freeze({
  now: () => Date.now(),
  setTimeout: (/** @type {() => void} */ fn, /** @type {number} */ ms) => setTimeout(fn, ms),
  clearTimeout: (/** @type {any} */ id) => clearTimeout(id),
  setInterval: (/** @type {() => void} */ fn, /** @type {number} */ ms) => setInterval(fn, ms),
  clearInterval: (/** @type {any} */ id) => clearInterval(id),
});

/**
 * The default wake port: the global object's "online" event (back on the
 * network) and "visibilitychange" (it bubbles from the document) when the
 * page shows again. Where the global object has no events, nothing.
 * @param {() => void} now
 * @returns {() => void}
 */
export function globalWake(now) {
  const g = /** @type {any} */ (globalThis);
  if (typeof g.addEventListener !== 'function') return () => {};
  const online = () => now();
  const visible = (/** @type {any} */ ev) => { if (ev?.target?.visibilityState !== 'hidden') now(); };
  g.addEventListener('online', online);
  g.addEventListener('visibilitychange', visible);
  return () => {
    g.removeEventListener('online', online);
    g.removeEventListener('visibilitychange', visible);
  };
}

/**
 * Seat tokens by room code in a key-value storage (localStorage by default,
 * shared by every tab of the origin). A storage that throws (private modes,
 * quotas) or is null degrades to memory.
 */
export class TokenStore {
  /** @param {KeyValueStorage|null} [storage] @param {string} [prefix] */
  constructor(storage, prefix = 'roomd.token.') {
    /** @type {KeyValueStorage|null} */
    this.storage = storage === undefined ? safeLocalStorage() : storage;
    this.prefix = prefix;
    /** @type {Map<string, string>} */
    this.memory = new Map();
  }
  /** @param {string} room */
  get(room) {
    const key = this.prefix + room.toUpperCase();
    try {
      const v = this.storage?.getItem(key);
      if (v) return v;
    } catch { /* fall back to memory */ }
    return this.memory.get(key) || '';
  }
  /** @param {string} room @param {string} token */
  set(room, token) {
    const key = this.prefix + room.toUpperCase();
    this.memory.set(key, token);
    try { this.storage?.setItem(key, token); } catch { /* memory only */ }
  }
  /** @param {string} room */
  forget(room) {
    const key = this.prefix + room.toUpperCase();
    this.memory.delete(key);
    try { this.storage?.removeItem(key); } catch { /* nothing */ }
  }
}

/** @returns {KeyValueStorage|null} */
function safeLocalStorage() {
  try { return /** @type {any} */ (globalThis).localStorage || null; } catch { return null; }
}

/** A socket as the client uses it: the WebSocket API's subset. */
/** @typedef {{readyState: number, send(data: string): void, close(code?: number, reason?: string): void,
 *   onopen: any, onmessage: any, onclose: any, onerror: any}} Socket */

/** One room connection; see the top of this file. */
export class RoomClient {
  /** @param {RoomClientOptions} opts */
  constructor(opts) {
    this.room = opts.room.toUpperCase();
    this.name = opts.name || '';
    this.watch = !!opts.watch;
    /** @type {string} the site's sign-in token (a JWT), sent in the hello (PROTOCOL.md §2.9) */
    this.auth = opts.auth || '';
    /** @type {string} a locked room's invite, sent in the hello (PROTOCOL.md §1, Access) */
    this.invite = opts.invite || '';
    this.game = opts.game;
    this.tokens = opts.tokens || new TokenStore();
    const loc = /** @type {any} */ (globalThis).location;
    this.url = opts.url || (loc ? socketURL(loc) : '');
    if (!this.url) throw new Error('roomd client: no socket URL (pass options.url)');
    this.WS = opts.WebSocket || /** @type {any} */ (globalThis).WebSocket;
    if (!this.WS) throw new Error('roomd client: no WebSocket (pass options.WebSocket)');
    this.clock = opts.clock || systemClock;
    this.random = opts.random || Math.random;
    this.backoff = opts.backoff || ((/** @type {number} */ n) => backoff(n, this.random));
    this.newId = opts.newId || newActionId;
    this.wake = opts.wake || globalWake;
    this.log = opts.log || console;

    /** @type {ConnState} */
    this.state = 'connecting';
    /** @type {Socket|null} */
    this.ws = null;
    this.epoch = '';
    this.rev = 0;
    this.lastTick = 0; // the last tick of a real-time match applied
    this.seen = false; // a snapshot has been seen
    /** @type {number|null} */
    this.seat = null;
    this.token = this.watch ? '' : this.tokens.get(this.room);
    /** @type {Map<string, {action: Action, resolve: (r: Receipt) => void, tries: number}>} */
    this.pending = new Map(); // sent, no receipt yet, in order
    this.resyncing = false; // a resync is out: ticks wait for its snapshot
    this.resyncId = ''; // its action id, until its receipt
    this.takingBack = false;
    this.replaced = false; // closed by 4001: a take-back may reopen
    this.closeCode = 0;
    this.closeReason = '';
    this.attempt = 0; // failed attempts since the last time online
    /** @type {number|null} */
    this.retryAfter = null; // from the last bye
    /** @type {{url: string}|null} */
    this.moved = null; // the last bye said the room moved (4009)
    this.moves = 0; // moves in a row
    this.onlineAt = 0; // when the socket came online (0: it did not)
    this.nextUrl = ''; // a moved bye's socket URL, dialed next, once
    this.heartbeatMs = 15_000;
    this.lastHeard = 0;
    this.pingAt = 0; // when the last ping went out
    /** @type {any} */
    this.timer = null; // the reconnect wait
    /** @type {any} */
    this.beat = null; // the heartbeat
    /** @type {Set<any>} */
    this.retries = new Set(); // resends after temporary refusals
    this.stopped = false;
    /** @type {(() => void)|null} */
    this.unwake = null;
    // Clock offset estimate: host now ≈ clock.now() + offset.
    this.offset = 0;
    this.offsetRtt = Infinity;
    this.offsetKnown = false;
    /** @type {Map<string, Set<(detail: any) => void>>} */
    this.listeners = new Map();
  }

  /**
   * @param {string} type
   * @param {(detail: any) => void} fn
   * @returns {() => void} unsubscribe
   */
  on(type, fn) {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(fn);
    return () => { set.delete(fn); };
  }

  /** @param {string} type @param {any} detail */
  emit(type, detail) {
    for (const fn of this.listeners.get(type) || []) {
      try { fn(detail); } catch (err) { this.log.error('roomd: listener of', type, 'failed:', err); }
    }
  }

  /** Opens the socket. */
  start() {
    if (this.stopped) return;
    this.unwake?.();
    this.unwake = this.wake(() => { if (this.state === 'reconnecting') this.connectNow(); });
    this.setState('connecting');
    this.connect();
  }

  /** Closes for good (the page goes away). */
  stop() {
    this.stopped = true;
    this.unwake?.();
    this.unwake = null;
    this.clearTimers();
    for (const t of this.retries) this.clock.clearTimeout(t);
    this.retries.clear();
    const ws = this.ws;
    this.ws = null;
    if (ws) { detach(ws); try { ws.close(Close.NORMAL, 'bye'); } catch { /* closed */ } }
    this.setState('closed');
  }

  /** Host time now, as well as this client can tell. */
  serverNow() { return this.clock.now() + this.offset; }

  /** The fastest ping round trip seen, ms; 0 before the first pong. */
  rtt() { return Number.isFinite(this.offsetRtt) ? this.offsetRtt : 0; }

  /** Reopens a connection that a newer tab replaced (4001) and sends a reconnect action. */
  takeBack() {
    if (this.state !== 'closed' || !this.replaced || this.stopped) return;
    this.replaced = false;
    this.takingBack = true;
    this.attempt = 0;
    this.closeCode = 0;
    this.token = this.tokens.get(this.room) || this.token;
    this.setState('connecting');
    this.connect();
  }

  /** Dials at once when waiting to reconnect. */
  connectNow() {
    if (this.state !== 'reconnecting' || this.ws || this.stopped) return;
    this.clearTimers();
    this.connect();
  }

  /** @param {any} command */
  command(command) { return this.act('command', { command }); }
  /** @param {any} control */
  control(control) { return this.act('control', { control }); }
  resign() { return this.act('resign', {}); }
  /** @param {string} text */
  chat(text) { return this.act('chat', { text }); }
  /** @param {string} message  the reported message's id @param {string} [reason] */
  report(message, reason) { return this.act('report', reason ? { message, reason } : { message }); }
  leave() { return this.act('leave', {}); }

  /** Asks for a snapshot. */
  resync() {
    if (!this.ws || this.state !== 'online') return;
    this.resyncing = true;
    this.resyncId = this.newId();
    this.write({ type: 'resync', id: this.resyncId, rev: this.rev });
  }

  /**
   * Sends an action. It resolves with its receipt; off line it is refused
   * at once with an "offline" notice.
   * @param {Action['type']} type
   * @param {{command?: any, control?: any}} extra
   * @returns {Promise<Receipt>}
   */
  act(type, extra) {
    if (this.state !== 'online' || !this.ws) {
      const notice = {
        code: 'offline',
        message: this.state === 'closed'
          ? 'Not connected to the room — nothing was sent.'
          : 'You are offline — nothing was sent. Wait until the connection is back.',
      };
      this.emit('notice', { ...notice, local: true });
      return Promise.resolve({ type: 'receipt', id: '', ok: false, notice });
    }
    /** @type {Action} */
    const action = { type, id: this.newId(), rev: this.rev, ...extra };
    return new Promise((resolve) => {
      this.pending.set(action.id, { action, resolve, tries: 0 });
      this.write(action);
    });
  }

  // ---- internals ----

  /** @param {ConnState} state */
  setState(state) {
    if (this.state === state && state !== 'closed') return;
    this.state = state;
    this.emit('state', { state, code: this.closeCode, reason: this.closeReason, replaced: this.replaced });
  }

  clearTimers() {
    if (this.timer) this.clock.clearTimeout(this.timer);
    if (this.beat) this.clock.clearTimeout(this.beat);
    this.timer = this.beat = null;
  }

  connect() {
    if (this.stopped) return;
    /** @type {Socket} */
    let ws;
    const url = this.nextUrl || this.url;
    this.nextUrl = '';
    this.moved = null;
    this.onlineAt = 0;
    try {
      ws = new this.WS(url);
    } catch (err) {
      this.log.warn('roomd: cannot open the socket:', err);
      this.lost(0, '');
      return;
    }
    this.ws = ws;
    this.resyncing = false;
    this.resyncId = '';
    ws.onopen = () => {
      if (ws !== this.ws) return;
      this.lastHeard = this.clock.now();
      this.pingAt = 0;
      this.armBeat(this.heartbeatMs); // a server silent before its welcome is left too
      /** @type {any} */
      const hello = { type: 'hello', room: this.room, game: this.game };
      if (this.token) hello.token = this.token;
      else if (this.name) hello.name = this.name;
      if (this.watch) hello.watch = true;
      if (this.auth) hello.auth = this.auth;
      if (this.invite) hello.invite = this.invite;
      if (this.seen) { hello.epoch = this.epoch; hello.rev = this.rev; }
      this.write(hello);
    };
    ws.onmessage = (/** @type {{data: any}} */ ev) => { if (ws === this.ws) this.receive(ev.data); };
    ws.onclose = (/** @type {{code: number, reason: string}} */ ev) => { if (ws === this.ws) this.closed(ev.code, ev.reason); };
    ws.onerror = () => { /* a close event follows */ };
  }

  /** @param {any} msg */
  write(msg) {
    const ws = this.ws;
    if (!ws || ws.readyState !== 1) return false;
    try {
      ws.send(JSON.stringify(msg));
      return true;
    } catch {
      return false; // stays pending; resent after the reconnect
    }
  }

  /**
   * The socket closed with code.
   * @param {number} code
   * @param {string} reason
   */
  closed(code, reason) {
    const ws = this.ws;
    this.ws = null;
    if (ws) detach(ws);
    this.clearTimers();
    if (this.stopped) return;
    this.closeCode = code;
    this.closeReason = reason || '';
    switch (code) {
      case Close.REPLACED:
        this.replaced = true;
        this.setState('closed');
        return;
      case Close.LEFT:
      case Close.ROOM_CLOSED:
      case Close.BAD_TOKEN:
        this.tokens.forget(this.room); // the seat is gone: the token opens nothing
        this.token = '';
        this.setState('closed');
        return;
      case Close.UPDATE_REQUIRED:
      case Close.LOCKED:
      case Close.UNAUTHORIZED:
      case Close.NORMAL:
        this.setState('closed');
        return;
    }
    // A moved bye whose close frame was lost on the way still counts.
    if (code === Close.MOVED || this.moved) {
      this.movedAway(reason);
      return;
    }
    this.lost(code, reason);
  }

  /**
   * The room moved to another node (4009): come back at once, to the bye's
   * url when it is this page's origin, else to the same URL — unless moves
   * follow each other: past MAX_MOVES_IN_A_ROW, the backoff as well.
   * @param {string} reason
   */
  movedAway(reason) {
    if (this.onlineAt && this.clock.now() - this.onlineAt >= MOVED_CALM_MS) this.moves = 0;
    this.moves++;
    this.nextUrl = movedSocketURL(this.moved?.url, /** @type {any} */ (globalThis).location);
    this.moved = null;
    this.closeCode = Close.MOVED;
    this.closeReason = reason;
    let delay = this.retryAfter ?? 0;
    this.retryAfter = null;
    if (this.moves > MAX_MOVES_IN_A_ROW) delay = Math.max(delay, this.backoff(this.moves - MAX_MOVES_IN_A_ROW - 1));
    this.setState('reconnecting');
    this.timer = this.clock.setTimeout(() => { this.timer = null; this.connect(); }, delay);
  }

  /**
   * The connection was lost: wait, then dial again.
   * @param {number} code
   * @param {string} reason
   */
  lost(code, reason) {
    this.closeCode = code;
    this.closeReason = reason;
    this.moves = 0; // a run of moves ends with any other close
    let delay = this.retryAfter;
    this.retryAfter = null;
    if (delay == null) delay = this.backoff(this.attempt);
    this.attempt++;
    this.setState('reconnecting');
    this.timer = this.clock.setTimeout(() => { this.timer = null; this.connect(); }, delay);
  }

  /** Closes a socket that has gone quiet and reconnects. */
  dropSilent() {
    const ws = this.ws;
    if (!ws) return;
    this.ws = null;
    detach(ws);
    try { ws.close(); } catch { /* gone */ }
    this.clearTimers();
    this.lost(1006, 'no answer');
  }

  /** @param {any} data */
  receive(data) {
    if (typeof data !== 'string') return;
    let parsed;
    try { parsed = JSON.parse(data); } catch { return; }
    // A frame holds one message, or a batch of them (a JSON array).
    for (const msg of Array.isArray(parsed) ? parsed : [parsed]) this.handle(msg);
  }

  /** @param {any} msg */
  handle(msg) {
    if (!msg || typeof msg !== 'object') return;
    const at = this.clock.now();
    this.lastHeard = at;
    switch (msg.type) {
      case 'welcome': return this.onWelcome(msg);
      case 'snapshot': return this.onSnapshot(msg, at);
      case 'update': return this.onUpdate(msg, at);
      case 'tick': return this.onTick(msg, at);
      case 'receipt': return this.onReceipt(msg);
      case 'presence':
        this.clocks(msg.clocks, at);
        return this.emit('presence', msg);
      case 'notice':
        if (msg.code === 'bad-token') { this.tokens.forget(this.room); this.token = ''; }
        return this.emit('notice', msg);
      case 'bye':
        if (msg.reconnect && msg.retryAfterMs > 0) this.retryAfter = msg.retryAfterMs;
        if (msg.code === Close.MOVED) this.moved = { url: typeof msg.url === 'string' ? msg.url : '' };
        return this.emit('bye', msg);
      case 'pong': return this.onPong(msg, at);
      case 'chat': return this.emit('chat', msg);
    }
  }

  /** @param {any} msg */
  onWelcome(msg) {
    this.seat = msg.seat ?? null;
    if (msg.token) {
      this.token = msg.token;
      this.tokens.set(this.room, msg.token);
      this.emit('token', { room: this.room, token: msg.token });
    }
    if (msg.heartbeatMs > 0) this.heartbeatMs = msg.heartbeatMs;
    this.startHeartbeat();
    this.emit('welcome', msg);
  }

  /** Pings at the welcome, then keeps the heartbeat (beat). */
  startHeartbeat() {
    this.ping();
    this.armBeat(this.heartbeatMs);
  }

  /** @param {number} ms */
  armBeat(ms) {
    if (this.beat) this.clock.clearTimeout(this.beat);
    this.beat = this.clock.setTimeout(() => { this.beat = null; this.heartbeat(); }, Math.max(0, ms));
  }

  /**
   * The heartbeat's timer: one timeout, which works out when it is next due
   * rather than being moved on each message. A socket that has said nothing
   * at all for heartbeatMs since a ping is dead: drop it and reconnect.
   * Otherwise a ping goes out heartbeatMs after the last one (after the
   * socket opened, when none went out yet). Timers of a hidden tab may run
   * late: lateness delays a ping and its check alike, and the check needs a
   * ping of its own unanswered by any message, so lateness alone never
   * drops a socket.
   */
  heartbeat() {
    const now = this.clock.now(), hb = this.heartbeatMs;
    if (this.pingAt && this.lastHeard < this.pingAt) {
      const left = this.pingAt + hb - now;
      if (left <= 0) { this.dropSilent(); return; }
      this.armBeat(left);
      return;
    }
    const left = (this.pingAt || this.lastHeard) + hb - now;
    if (left > 0) { this.armBeat(left); return; }
    this.ping();
    this.armBeat(hb);
  }

  ping() {
    this.pingAt = this.clock.now();
    this.write({ type: 'ping', t: this.pingAt });
  }

  /** @param {any} msg @param {number} at */
  onPong(msg, at) {
    const t = Number(msg.t), now = Number(msg.now);
    if (Number.isFinite(t) && Number.isFinite(now) && t > 0) {
      const rtt = Math.max(0, at - t);
      // Keep the estimate of the fastest round trip: its error is smallest.
      if (rtt <= this.offsetRtt * 1.5 || !this.offsetKnown) {
        this.offset = now - (t + rtt / 2);
        this.offsetRtt = Math.min(rtt, this.offsetRtt);
        this.offsetKnown = true;
      }
    }
    this.emit('pong', msg);
  }

  /** @param {Clocks|undefined} clocks @param {number} at */
  clocks(clocks, at) {
    if (!clocks || typeof clocks.now !== 'number') return;
    if (!this.offsetKnown) this.offset = clocks.now - at; // until a pong tells better
    this.emit('clocks', clocks);
  }

  /** @param {any} s @param {number} at */
  onSnapshot(s, at) {
    if (this.seen && s.epoch === this.epoch && s.rev < this.rev) return; // older: ignored
    const epochChanged = this.seen && s.epoch !== this.epoch;
    this.epoch = s.epoch;
    this.rev = s.rev;
    this.lastTick = Number(s.tick) || 0;
    this.seen = true;
    this.seat = s.seat ?? null;
    this.resyncing = false;
    const back = this.state !== 'online';
    if (back) {
      this.attempt = 0;
      this.onlineAt = this.clock.now();
      this.closeCode = 0;
      this.setState('online');
      // Actions that had no receipt go again with their ids: the server
      // applies each at most once and answers with the same receipt.
      for (const p of this.pending.values()) this.write(p.action);
    }
    this.emit('snapshot', { ...s, epochChanged });
    this.clocks(s.room?.clocks, at);
    if (back && this.takingBack) {
      this.takingBack = false;
      this.act('reconnect', {});
    }
  }

  /** @param {any} u @param {number} at */
  onUpdate(u, at) {
    if (u.epoch !== this.epoch || u.from !== this.rev) {
      if (!this.resyncing) this.resync(); // missed something: drop it, ask for a snapshot
      return;
    }
    this.rev = u.to;
    if (u.view != null && u.room?.phase === 'running') this.lastTick = 0; // a match starts: its ticks start at 1
    if (u.seat != null) this.seat = u.seat;
    this.emit('update', u);
    if (u.room) this.clocks(u.room.clocks, at);
  }

  /**
   * A tick of a real-time match (PROTOCOL.md §2.7): it follows the
   * revision as an update does, and the last tick by exactly one.
   * @param {any} t @param {number} at
   */
  onTick(t, at) {
    if (this.resyncing) return; // the snapshot asked for replaces what the ticks would build
    if (t.from !== this.rev || t.tick !== this.lastTick + 1) {
      this.resync(); // missed something: drop it and the ticks after it, ask for a snapshot
      return;
    }
    this.rev = t.to;
    this.lastTick = t.tick;
    // A real-time game shows the round trip: measure it more often than
    // the heartbeat does while the match ticks.
    if (at - this.pingAt >= TICK_PING_MS) this.ping();
    this.emit('tick', { tick: t.tick, beats: Array.isArray(t.beats) ? t.beats : [], at });
  }

  /** @param {Receipt} rc */
  onReceipt(rc) {
    if (rc.id && rc.id === this.resyncId) {
      this.resyncId = '';
      if (!rc.ok) {
        // Refused (the server sends a snapshot at most every half second):
        // ask again later if still waiting, or give up on a lasting refusal
        // so that the next gap asks again.
        if (rc.notice?.temporary) {
          const t = this.clock.setTimeout(() => {
            this.retries.delete(t);
            if (this.resyncing) this.resync();
          }, 500);
          this.retries.add(t);
        } else {
          this.resyncing = false;
        }
      }
      this.emit('receipt', rc);
      return;
    }
    const p = this.pending.get(rc.id);
    if (!rc.ok && rc.notice?.temporary && p && p.tries < 5) {
      // Not applied (rate limit, storage): send the same action again later.
      p.tries++;
      const t = this.clock.setTimeout(() => {
        this.retries.delete(t);
        if (this.pending.has(rc.id)) this.write(p.action);
      }, 400 * 2 ** p.tries);
      this.retries.add(t);
      this.emit('notice', { ...rc.notice, receipt: rc.id });
      return;
    }
    if (p) this.pending.delete(rc.id);
    if (!rc.ok && rc.notice) this.emit('notice', { ...rc.notice, receipt: rc.id });
    this.emit('receipt', rc);
    p?.resolve(rc);
  }
}

/** @param {Socket} ws */
function detach(ws) {
  ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
}
