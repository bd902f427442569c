// @ts-check
// The browser twin of transport.RemoteTransport: one WebSocket per room,
// following PROTOCOL.md §2. It keeps seat tokens by room code in
// localStorage (shared by every tab), sends actions with fresh ids and the
// revision it has seen, resends actions that had no receipt after a
// reconnect (same ids), resyncs on a gap, reconnects with backoff or after
// the server's retryAfterMs, and stops for good on 4001–4004.
//
// It knows nothing of any game: views and beats are handed on as they come.

/** @typedef {'connecting'|'online'|'reconnecting'|'closed'} ConnState */

/**
 * @typedef {object} Notice
 * @property {string} code
 * @property {string} message
 * @property {boolean} [temporary]
 */

/**
 * @typedef {object} Receipt
 * @property {'receipt'} type
 * @property {string} id
 * @property {boolean} ok
 * @property {number} [rev]
 * @property {Notice} [notice]
 */

/**
 * @typedef {object} Clocks
 * @property {number} now        host time of the reading, ms since the Unix epoch
 * @property {number} elapsedMs
 * @property {boolean} running
 * @property {number} [startedAt]
 */

/**
 * @typedef {object} SeatInfo
 * @property {number} seat
 * @property {string} name
 * @property {boolean} ready
 * @property {boolean} ai
 * @property {boolean} connected
 */

/**
 * @typedef {object} RoomInfo
 * @property {string} code
 * @property {string} phase         lobby, running, ended (or closed)
 * @property {number|null} host
 * @property {SeatInfo[]} seats
 * @property {any} settings
 * @property {string} mode
 * @property {number} minSeats
 * @property {number} maxSeats
 * @property {boolean} ai
 * @property {{id: string, rulesVersion: string}} game
 * @property {number[]} connected
 * @property {number} spectators
 * @property {boolean} frozen
 * @property {number} match
 * @property {Clocks} clocks
 */

/**
 * @typedef {object} Result
 * @property {number} match
 * @property {string} status
 * @property {number} time
 * @property {number[]} winners
 * @property {number} seed
 * @property {any} config
 * @property {any[]} log
 */

/**
 * @typedef {object} Action
 * @property {string} type
 * @property {string} id
 * @property {number} rev
 * @property {any} [command]
 * @property {any} [control]
 */

export const PROTOCOL = 1;

/** Close codes (PROTOCOL.md §2.3). */
export const Close = Object.freeze({
  NORMAL: 1000,
  POLICY: 1008,
  RESTARTING: 4000,
  REPLACED: 4001,
  LEFT: 4002,
  UPDATE_REQUIRED: 4003,
  ROOM_CLOSED: 4004,
});

/**
 * The wait before reconnect attempt n (from 0): min(10 s, 500 ms·2ⁿ) plus up
 * to 250 ms of jitter.
 * @param {number} attempt
 * @param {() => number} [random]
 */
export function backoff(attempt, random = Math.random) {
  return Math.min(10_000, 500 * 2 ** Math.min(attempt, 10)) + random() * 250;
}

/** A fresh action id: 128 random bits, base64url (22 characters). */
export function newActionId() {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return btoa(String.fromCharCode(...b)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The socket URL of the server that served this page. */
export function socketURL(loc = location) {
  return (loc.protocol === 'https:' ? 'wss://' : 'ws://') + loc.host + '/ws';
}

/**
 * Seat tokens by room code in localStorage, shared by every tab of the
 * origin. Storage that throws (private modes, quotas) degrades to memory.
 */
export class TokenStore {
  /** @param {Storage|null} [storage] @param {string} [prefix] */
  constructor(storage, prefix = 'roomd.token.') {
    /** @type {Storage|null} */
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

function safeLocalStorage() {
  try { return globalThis.localStorage || null; } catch { return null; }
}

/**
 * @typedef {object} RoomClientOptions
 * @property {string} room                 the room code
 * @property {string} [name]               the name to ask for with a seat
 * @property {boolean} [watch]             join as a spectator
 * @property {{id: string, rulesVersion: string, build?: string}} game
 * @property {TokenStore} [tokens]
 * @property {string} [url]                the socket URL (default: this origin's /ws)
 * @property {typeof WebSocket} [WebSocket]
 * @property {() => number} [random]
 * @property {(attempt: number) => number} [backoff]
 */

/**
 * One room connection. Listen with on(type, fn): 'state', 'welcome',
 * 'snapshot', 'update', 'receipt', 'presence', 'notice', 'bye', 'pong',
 * 'clocks', 'token'.
 */
export class RoomClient {
  /** @param {RoomClientOptions} opts */
  constructor(opts) {
    this.room = opts.room.toUpperCase();
    this.name = opts.name || '';
    this.watch = !!opts.watch;
    this.game = opts.game;
    this.tokens = opts.tokens || new TokenStore();
    this.url = opts.url || socketURL();
    this.WS = opts.WebSocket || WebSocket;
    this.random = opts.random || Math.random;
    this.backoff = opts.backoff || ((n) => backoff(n, this.random));

    /** @type {ConnState} */
    this.state = 'connecting';
    /** @type {WebSocket|null} */
    this.ws = null;
    this.epoch = '';
    this.rev = 0;
    this.seen = false; // a snapshot has been seen
    /** @type {number|null} */
    this.seat = null;
    this.token = this.watch ? '' : this.tokens.get(this.room);
    /** @type {Map<string, {action: Action, resolve: (r: Receipt) => void, tries: number}>} */
    this.pending = new Map(); // sent, no receipt yet, in order
    this.resyncing = false;
    this.takingBack = false;
    this.replaced = false; // closed by 4001: a take-back may reopen
    this.closeCode = 0;
    this.closeReason = '';
    this.attempt = 0; // failed attempts since the last time online
    /** @type {number|null} */
    this.retryAfter = null; // from the last bye
    this.heartbeatMs = 15_000;
    this.lastHeard = 0;
    this.pingAt = 0; // when the last ping went out
    /** @type {ReturnType<typeof setTimeout>|null} */
    this.timer = null;
    /** @type {ReturnType<typeof setInterval>|null} */
    this.beat = null;
    this.stopped = false;
    // Clock offset estimate: host now ≈ Date.now() + offset.
    this.offset = 0;
    this.offsetRtt = Infinity;
    this.offsetKnown = false;
    /** @type {Map<string, Set<(detail: any) => void>>} */
    this.listeners = new Map();
    // Back on the network, or back to a hidden tab: no need to sit out the
    // backoff.
    this.onOnline = () => { if (this.state === 'reconnecting') this.connectNow(); };
    this.onVisible = () => { if (document.visibilityState === 'visible' && this.state === 'reconnecting') this.connectNow(); };
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
    return () => set.delete(fn);
  }

  /** @param {string} type @param {any} detail */
  emit(type, detail) {
    for (const fn of this.listeners.get(type) || []) {
      try { fn(detail); } catch (err) { console.error('roomd: listener of', type, 'failed:', err); }
    }
  }

  /** Opens the socket. */
  start() {
    globalThis.addEventListener?.('online', this.onOnline);
    globalThis.document?.addEventListener('visibilitychange', this.onVisible);
    this.setState('connecting');
    this.connect();
  }

  /** Closes for good (the page goes away). */
  stop() {
    this.stopped = true;
    globalThis.removeEventListener?.('online', this.onOnline);
    globalThis.document?.removeEventListener('visibilitychange', this.onVisible);
    this.clearTimers();
    const ws = this.ws;
    this.ws = null;
    if (ws) { detach(ws); try { ws.close(1000, 'bye'); } catch { /* closed */ } }
    this.setState('closed');
  }

  /** Host time now, as well as this client can tell. */
  serverNow() { return Date.now() + this.offset; }

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
  leave() { return this.act('leave', {}); }

  /** Asks for a snapshot. */
  resync() {
    if (!this.ws || this.state !== 'online') return;
    this.resyncing = true;
    this.write({ type: 'resync', id: newActionId(), rev: this.rev });
  }

  /**
   * Sends an action. It resolves with its receipt; off line it is refused
   * at once with an "offline" notice.
   * @param {string} type
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
    const action = { type, id: newActionId(), rev: this.rev, ...extra };
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
    if (this.timer) clearTimeout(this.timer);
    if (this.beat) clearInterval(this.beat);
    this.timer = this.beat = null;
  }

  connect() {
    if (this.stopped) return;
    let ws;
    try {
      ws = new this.WS(this.url);
    } catch (err) {
      console.warn('roomd: cannot open the socket:', err);
      this.lost(0, '');
      return;
    }
    this.ws = ws;
    this.resyncing = false;
    ws.onopen = () => {
      if (ws !== this.ws) return;
      this.lastHeard = Date.now();
      this.pingAt = 0;
      /** @type {any} */
      const hello = { type: 'hello', room: this.room, game: this.game };
      if (this.token) hello.token = this.token;
      else if (this.name) hello.name = this.name;
      if (this.watch) hello.watch = true;
      if (this.seen) { hello.epoch = this.epoch; hello.rev = this.rev; }
      this.write(hello);
    };
    ws.onmessage = (ev) => { if (ws === this.ws) this.receive(ev.data); };
    ws.onclose = (ev) => { if (ws === this.ws) this.closed(ev.code, ev.reason); };
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
        this.tokens.forget(this.room); // the seat is gone: the token opens nothing
        this.token = '';
        this.setState('closed');
        return;
      case Close.UPDATE_REQUIRED:
      case Close.NORMAL:
      case Close.POLICY:
        this.setState('closed');
        return;
    }
    this.lost(code, reason);
  }

  /**
   * The connection was lost: wait, then dial again.
   * @param {number} code
   * @param {string} reason
   */
  lost(code, reason) {
    this.closeCode = code;
    this.closeReason = reason;
    let delay = this.retryAfter;
    this.retryAfter = null;
    if (delay == null) delay = this.backoff(this.attempt);
    this.attempt++;
    this.setState('reconnecting');
    this.timer = setTimeout(() => { this.timer = null; this.connect(); }, delay);
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

  /** @param {string|ArrayBuffer|Blob} data */
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
    const at = Date.now();
    this.lastHeard = at;
    switch (msg.type) {
      case 'welcome': return this.onWelcome(msg);
      case 'snapshot': return this.onSnapshot(msg, at);
      case 'update': return this.onUpdate(msg, at);
      case 'receipt': return this.onReceipt(msg);
      case 'presence':
        this.clocks(msg.clocks, at);
        return this.emit('presence', msg);
      case 'notice':
        if (msg.code === 'bad-token') { this.tokens.forget(this.room); this.token = ''; }
        return this.emit('notice', msg);
      case 'bye':
        if (msg.reconnect && msg.retryAfterMs > 0) this.retryAfter = msg.retryAfterMs;
        return this.emit('bye', msg);
      case 'pong': return this.onPong(msg, at);
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

  /**
   * Pings every heartbeatMs. A socket that has said nothing at all since a
   * ping sent more than two heartbeats ago is dead: drop it and reconnect.
   * (Timers of a hidden tab may run late; the check waits for a ping of
   * its own to go unanswered, so lateness alone never drops a socket.)
   */
  startHeartbeat() {
    if (this.beat) clearInterval(this.beat);
    this.ping();
    this.beat = setInterval(() => {
      if (this.pingAt && this.lastHeard < this.pingAt && Date.now() - this.pingAt > 2 * this.heartbeatMs) {
        this.dropSilent();
        return;
      }
      if (!this.pingAt || this.lastHeard >= this.pingAt) this.ping();
    }, this.heartbeatMs);
  }

  ping() {
    this.pingAt = Date.now();
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
    this.seen = true;
    this.seat = s.seat ?? null;
    this.resyncing = false;
    const back = this.state !== 'online';
    if (back) {
      this.attempt = 0;
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
    if (u.seat != null) this.seat = u.seat;
    this.emit('update', u);
    if (u.room) this.clocks(u.room.clocks, at);
  }

  /** @param {Receipt} rc */
  onReceipt(rc) {
    const p = this.pending.get(rc.id);
    if (!rc.ok && rc.notice?.temporary && p && p.tries < 5) {
      // Not applied (rate limit, storage): send the same action again later.
      p.tries++;
      setTimeout(() => { if (this.pending.has(rc.id)) this.write(p.action); }, 400 * 2 ** p.tries);
      this.emit('notice', { ...rc.notice, receipt: rc.id });
      return;
    }
    if (p) this.pending.delete(rc.id);
    if (!rc.ok && rc.notice) this.emit('notice', { ...rc.notice, receipt: rc.id });
    this.emit('receipt', rc);
    p?.resolve(rc);
  }
}

/** @param {WebSocket} ws */
function detach(ws) {
  ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
}
