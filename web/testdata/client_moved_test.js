// The client module's handling of close 4009 (the room moved to another
// node, PROTOCOL.md §2.3) and its bounded backoff, against a fake WebSocket
// and a fake clock, under Node (client_moved_test.go; ASSETS replaced by a
// file: URL of static/). The page's origin is a fake location set on the
// global object for the run. The expression's value is the list of
// failures.
(async () => {
  const { RoomClient, TokenStore, Close, backoff, movedSocketURL, MAX_MOVES_IN_A_ROW } = await import('ASSETS/js/client.js');
  const failures = [];
  const check = (ok, what) => { if (!ok) failures.push(what); };

  class FakeWS {
    static all = [];
    constructor(url) { this.url = url; this.readyState = 0; this.sent = []; FakeWS.all.push(this); }
    send(s) { this.sent.push(JSON.parse(s)); }
    close() { this.readyState = 3; }
    open() { this.readyState = 1; this.onopen && this.onopen(); }
    recv(msg) { this.onmessage && this.onmessage({ data: JSON.stringify(msg) }); }
    drop(code, reason = '') { this.readyState = 3; this.onclose && this.onclose({ code, reason }); }
  }
  class FakeClock {
    constructor() { this.t = 1_000_000; this.timers = new Map(); this.next = 1; }
    now() { return this.t; }
    setTimeout(fn, ms) { const id = this.next++; this.timers.set(id, { at: this.t + ms, fn, every: 0 }); return id; }
    clearTimeout(id) { this.timers.delete(id); }
    setInterval(fn, ms) { const id = this.next++; this.timers.set(id, { at: this.t + ms, fn, every: ms }); return id; }
    clearInterval(id) { this.timers.delete(id); }
    advance(ms) {
      const end = this.t + ms;
      for (;;) {
        let due = null;
        for (const [id, x] of this.timers) if (x.at <= end && (!due || x.at < due[1].at)) due = [id, x];
        if (!due) break;
        const [id, x] = due;
        this.t = x.at;
        if (x.every) x.at += x.every; else this.timers.delete(id);
        x.fn();
      }
      this.t = end;
    }
  }
  const last = () => FakeWS.all[FakeWS.all.length - 1];
  const room = { code: 'MOV123', phase: 'running', seats: [] };
  const snapshot = (rev) => ({ type: 'snapshot', epoch: 'E1', rev, seat: 0, view: null, room });
  const moved = (url, retryAfterMs) => ({ type: 'bye', code: 4009, reason: 'room moved', reconnect: true, retryAfterMs, url });

  // The module's pieces.
  check(Close.MOVED === 4009 && MAX_MOVES_IN_A_ROW === 3, 'Close.MOVED and the limit of moves in a row');
  check(backoff(0, () => 0) === 500 && backoff(1, () => 0) === 1000 && backoff(2, () => 0) === 1750 && backoff(40, () => 0) === 1750,
    'the backoff doubles from 500 ms and stops at 1.75 s');
  check(backoff(1e9, () => 0.999999) < 2000 && backoff(-1, () => 0) === 500, 'the backoff never waits 2 s or more');
  const page = { protocol: 'https:', host: 'games.example', origin: 'https://games.example' };
  check(movedSocketURL('https://games.example', page) === 'wss://games.example/ws', 'a url of the page\'s origin is followed');
  check(movedSocketURL('https://games.example/', page) === 'wss://games.example/ws', 'a trailing slash changes nothing');
  for (const url of ['https://node-b.example', 'http://games.example', 'https://games.example:444', 'not a url', '', null, 42, undefined]) {
    check(movedSocketURL(url, page) === '', `${JSON.stringify(url)} is not followed`);
  }
  check(movedSocketURL('https://games.example', undefined) === '', 'without a location nothing is followed');

  const hadLocation = Object.prototype.hasOwnProperty.call(globalThis, 'location');
  const oldLocation = globalThis.location;
  Object.defineProperty(globalThis, 'location', { value: page, configurable: true, writable: true });
  try {
    const clock = new FakeClock();
    const waits = [];
    const tokens = new TokenStore(null);
    tokens.set('MOV123', 'tok-m');
    const c = new RoomClient({ room: 'MOV123', game: { id: 'minesweeper', rulesVersion: 'minesweeper/1' }, tokens,
      url: 'wss://lb.games.example/ws', WebSocket: FakeWS, clock, random: () => 0,
      backoff: (n) => { waits.push(n); return 1000; }, wake: () => () => {}, log: { warn() {}, error() {} } });
    const states = [];
    c.on('state', (d) => states.push(d.state + ':' + d.code));
    c.start();
    last().open();
    last().recv({ type: 'welcome', conn: 'a', seat: 0, heartbeatMs: 15000 });
    last().recv(snapshot(5));
    check(c.state === 'online', 'online');

    // Moved to a node of the page's origin, at once: the new node gets the
    // same token and the position seen, and the action without a receipt
    // again with its id.
    c.command({ type: 'reveal', r: 1, c: 1 });
    const action = last().sent.at(-1);
    clock.advance(20_000); // online long enough: this move starts a new run
    last().recv(moved('https://games.example', 0));
    last().drop(4009, 'room moved');
    check(c.state === 'reconnecting' && c.closeCode === 4009 && states.includes('reconnecting:4009'), 'reconnecting after 4009: ' + states.join());
    let n = FakeWS.all.length;
    clock.advance(0);
    check(FakeWS.all.length === n + 1 && last().url === 'wss://games.example/ws', 'a move to the page\'s origin dials it at once: ' + last().url);
    check(waits.length === 0, 'no backoff for a move');
    last().open();
    const hello = last().sent[0];
    check(hello.type === 'hello' && hello.token === 'tok-m' && hello.epoch === 'E1' && hello.rev === 5, 'the hello after a move: ' + JSON.stringify(hello));
    last().recv(snapshot(5));
    check(last().sent.some((m) => m.id === action.id && m.type === 'command'), 'the action without a receipt goes again after a move, same id');

    // A move to another origin stays on the same URL; retryAfterMs is the
    // wait, exactly.
    clock.advance(20_000);
    last().recv(moved('https://node-b.example', 200));
    last().drop(4009);
    n = FakeWS.all.length;
    clock.advance(199);
    check(FakeWS.all.length === n, 'no socket before retryAfterMs');
    clock.advance(1);
    check(FakeWS.all.length === n + 1 && last().url === 'wss://lb.games.example/ws', 'another origin: the same URL after retryAfterMs: ' + last().url);
    check(waits.length === 0, 'still no backoff');

    // A moved bye whose close frame was lost (1006) is still a move.
    last().open();
    last().recv(snapshot(5));
    clock.advance(20_000);
    last().recv(moved('', 0));
    last().drop(1006);
    n = FakeWS.all.length;
    clock.advance(0);
    check(FakeWS.all.length === n + 1 && waits.length === 0 && c.closeCode === 4009, 'a moved bye then 1006 comes back at once');

    // Moves in a row (connections that do not stay online 10 s): three are
    // followed at once, the fourth waits the backoff's first step.
    last().open();
    last().recv(snapshot(5));
    clock.advance(20_000); // this connection was calm: the run below starts at 1
    for (let i = 1; i <= MAX_MOVES_IN_A_ROW; i++) {
      last().recv(moved('', 0));
      last().drop(4009);
      n = FakeWS.all.length;
      clock.advance(0);
      check(FakeWS.all.length === n + 1, `move ${i} in a row followed at once`);
      last().open();
      last().recv(snapshot(5)); // online, but only for a moment
      clock.advance(100);
    }
    last().recv(moved('', 0));
    last().drop(4009);
    n = FakeWS.all.length;
    clock.advance(999);
    check(FakeWS.all.length === n && waits.length === 1 && waits[0] === 0, `move ${MAX_MOVES_IN_A_ROW + 1} in a row waits the backoff: ${waits}`);
    clock.advance(1);
    check(FakeWS.all.length === n + 1, 'then dials');
    // Any other close ends the run.
    last().open();
    last().drop(1006);
    clock.advance(1000);
    last().open();
    last().recv(moved('', 0));
    last().drop(4009);
    n = FakeWS.all.length;
    clock.advance(0);
    check(FakeWS.all.length === n + 1, 'after a lost socket, a move is followed at once again');
    c.stop();
    check(clock.timers.size === 0, 'stop leaves no timer');
  } finally {
    if (hadLocation) globalThis.location = oldLocation; else delete globalThis.location;
  }
  return failures;
})()
