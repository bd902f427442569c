// The client module's protocol rules, against a fake WebSocket and a fake
// clock. It runs twice: in a page of roomd (browser_test.go evaluates this
// file, ASSETS replaced by the assets' URL) and under Node
// (client_node_test.go, ASSETS replaced by a file: URL of static/), where
// there is no DOM, no WebSocket and no localStorage: the module needs only
// its ports. The expression's value is the list of failures.
(async () => {
  const { RoomClient, TokenStore, backoff, Close, States, systemClock } = await import('ASSETS/js/client.js');
  const failures = [];
  const check = (ok, what) => { if (!ok) failures.push(what); };
  const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

  class FakeWS {
    static all = [];
    constructor(url) { this.url = url; this.readyState = 0; this.sent = []; FakeWS.all.push(this); }
    send(s) { this.sent.push(JSON.parse(s)); }
    close() { this.readyState = 3; }
    open() { this.readyState = 1; this.onopen && this.onopen(); }
    recv(msg) { this.onmessage && this.onmessage({ data: JSON.stringify(msg) }); }
    drop(code, reason = '') { this.readyState = 3; this.onclose && this.onclose({ code, reason }); }
  }
  const last = () => FakeWS.all[FakeWS.all.length - 1];
  const room = { code: 'ABC123', phase: 'running', seats: [], clocks: { now: Date.now(), elapsedMs: 0, running: false } };
  const snapshot = (epoch, rev) => ({ type: 'snapshot', epoch, rev, seat: 0, view: null, room });
  const update = (epoch, from) => ({ type: 'update', epoch, from, to: from + 1, by: 0, beats: [{ type: 'flag', r: 0, c: 0, flagged: true }] });

  // Backoff: min(1.75 s, 500 ms·2ⁿ) plus up to 250 ms of jitter.
  check(backoff(0, () => 0) === 500 && backoff(1, () => 0) === 1000 && backoff(2, () => 0) === 1750, 'backoff doubles from 500 ms');
  check(backoff(5, () => 0) === 1750 && backoff(30, () => 0) === 1750, 'backoff stops at 1.75 s');
  check(backoff(0, () => 0.999999) < 750 && backoff(0, () => 0.5) === 625, 'jitter is up to 250 ms');

  const tokens = new TokenStore(null);
  tokens.set('ABC123', 'tok-1');
  let waits = 0;
  const c = new RoomClient({ room: 'abc123', game: { id: 'minesweeper', rulesVersion: 'minesweeper/1' }, tokens,
    url: 'ws://test/ws', WebSocket: FakeWS, backoff: () => { waits++; return 5; } });
  const seen = { snapshots: [], updates: [], notices: [], states: [] };
  c.on('snapshot', (s) => seen.snapshots.push(s));
  c.on('update', (u) => seen.updates.push(u));
  c.on('notice', (n) => seen.notices.push(n));
  c.on('state', (s) => seen.states.push(s.state));
  c.start();
  check(c.state === 'connecting', 'starts connecting');
  last().open();
  const hello = last().sent[0];
  check(hello && hello.type === 'hello' && hello.room === 'ABC123' && hello.token === 'tok-1' && hello.game.rulesVersion === 'minesweeper/1' && hello.rev === undefined,
    'hello carries the room, the stored token and the game: ' + JSON.stringify(hello));
  last().recv({ type: 'welcome', conn: 'x', seat: 0, heartbeatMs: 15000 });
  last().recv(snapshot('E1', 5));
  check(c.state === 'online' && c.rev === 5, 'online at the snapshot');

  // Updates follow the revision; a gap is dropped and answered by a resync.
  last().recv(update('E1', 5));
  check(c.rev === 6 && seen.updates.length === 1, 'an update moves the revision');
  last().recv(update('E1', 9));
  check(c.rev === 6 && seen.updates.length === 1, 'an update after a gap is dropped');
  const resync = last().sent.find((m) => m.type === 'resync');
  check(resync && resync.rev === 6 && resync.id, 'a gap sends a resync: ' + JSON.stringify(last().sent));
  last().recv(update('E1', 10));
  check(last().sent.filter((m) => m.type === 'resync').length === 1, 'one resync per gap');
  last().recv(snapshot('E1', 10));
  check(c.rev === 10 && seen.snapshots.length === 2, 'the resync snapshot is taken');
  last().recv(snapshot('E1', 8));
  check(c.rev === 10 && seen.snapshots.length === 2, 'an older snapshot of the same epoch is ignored');
  last().recv(snapshot('E2', 3));
  check(c.rev === 3 && c.epoch === 'E2' && seen.snapshots.length === 3, 'a snapshot of a new epoch wins');

  // Actions: a fresh id and the revision seen; a receipt settles them.
  const p1 = c.command({ type: 'reveal', r: 1, c: 1 });
  const a1 = last().sent.at(-1);
  check(a1.type === 'command' && a1.rev === 3 && a1.id.length >= 16 && a1.command.r === 1, 'a command carries a fresh id and the revision: ' + JSON.stringify(a1));
  c.command({ type: 'flag', r: 2, c: 2 });
  const a2 = last().sent.at(-1);
  check(a2.id !== a1.id, 'every action has its own id');
  last().recv({ type: 'receipt', id: a1.id, ok: false, notice: { code: 'game:NotHidden', message: '(1, 1) is revealed' } });
  const r1 = await p1;
  check(!r1.ok && seen.notices.some((n) => n.code === 'game:NotHidden'), 'a refused receipt resolves the action and shows its notice');

  // The socket drops with a2 unanswered: reconnect, resend a2 with its id.
  last().drop(1006);
  check(c.state === 'reconnecting', 'a lost socket reconnects');
  const off = await c.command({ type: 'reveal', r: 0, c: 0 });
  check(!off.ok && off.notice.code === 'offline' && seen.notices.at(-1).code === 'offline', 'an action while offline is refused with an offline notice');
  await tick(30);
  check(FakeWS.all.length === 2 && waits === 1, 'one new socket after the backoff');
  last().open();
  const hello2 = last().sent[0];
  check(hello2.epoch === 'E2' && hello2.rev === 3 && hello2.token === 'tok-1', 'the hello says what was seen: ' + JSON.stringify(hello2));
  last().recv(snapshot('E2', 4));
  const resent = last().sent.filter((m) => m.type === 'command');
  check(resent.length === 1 && resent[0].id === a2.id && resent[0].command.type === 'flag', 'the unanswered action is resent with its id: ' + JSON.stringify(resent));

  // A bye's retryAfterMs replaces the backoff.
  last().recv({ type: 'bye', code: 4000, reason: 'server restarting', reconnect: true, retryAfterMs: 20 });
  const before = waits;
  last().drop(4000);
  check(c.state === 'reconnecting' && waits === before, 'after a bye the wait is its retryAfterMs, not the backoff');
  await tick(60);
  check(FakeWS.all.length === 3, 'reconnected after retryAfterMs');
  last().open();
  last().recv(snapshot('E2', 4));
  check(c.state === 'online', 'online again');

  // 4001: closed, until a take-back reopens and sends a reconnect action.
  last().drop(4001);
  check(c.state === 'closed' && c.replaced, 'replaced (4001) stops');
  await tick(30);
  check(FakeWS.all.length === 3, 'no reconnect after 4001');
  c.takeBack();
  check(FakeWS.all.length === 4, 'a take-back opens a socket');
  last().open();
  last().recv(snapshot('E2', 4));
  check(last().sent.some((m) => m.type === 'reconnect' && m.id), 'a take-back sends a reconnect action: ' + JSON.stringify(last().sent));

  // 4004: closed for good, the token forgotten.
  last().drop(4004);
  check(c.state === 'closed' && tokens.get('ABC123') === '', 'room closed (4004) forgets the token');
  await tick(30);
  check(FakeWS.all.length === 4, 'no reconnect after 4004');
  // The rest of PROTOCOL.md §2.3's table: which codes stop for good, which
  // of those forget the room's token, and that the others (1008, in no
  // row, among them) reconnect.
  for (const [code, stops, forgets] of [
    [1000, true, false], [4002, true, true], [4003, true, false], [4005, true, false], [4006, true, true],
    [1001, false, false], [1002, false, false], [1006, false, false], [1008, false, false], [1009, false, false],
    [1011, false, false], [4000, false, false], [4008, false, false], [4013, false, false], [4029, false, false],
  ]) {
    tokens.set('ABC123', 'tok-2');
    const d = new RoomClient({ room: 'ABC123', game: { id: 'minesweeper', rulesVersion: 'minesweeper/1' }, tokens,
      url: 'ws://test/ws', WebSocket: FakeWS, backoff: () => 5 });
    d.start();
    last().open();
    const sockets = FakeWS.all.length;
    last().drop(code);
    await tick(30);
    const stopped = d.state === 'closed' && FakeWS.all.length === sockets;
    check(stopped === stops, `${code} ${stops ? 'stops for good' : 'reconnects'}: state ${d.state}, ${FakeWS.all.length - sockets} new sockets`);
    check((tokens.get('ABC123') === '') === forgets, `${code}: the token is ${forgets ? '' : 'not '}forgotten`);
    d.stop();
  }
  // A bad-token notice forgets the token at once (4006 follows).
  tokens.set('ABC123', 'tok-3');
  const bt = new RoomClient({ room: 'ABC123', game: { id: 'minesweeper', rulesVersion: 'minesweeper/1' }, tokens,
    url: 'ws://test/ws', WebSocket: FakeWS, backoff: () => 5 });
  bt.start();
  last().open();
  last().recv({ type: 'notice', code: 'bad-token', message: 'this seat token is not one of this room\'s seats' });
  check(tokens.get('ABC123') === '' && bt.token === '', 'a bad-token notice forgets the token');
  bt.stop();

  // Heartbeat: a socket that answers pings stays; a silent one is dropped.
  const hb = new RoomClient({ room: 'HB1', game: { id: 'nim', rulesVersion: 'nim/1' }, tokens: new TokenStore(null),
    url: 'ws://test/ws', WebSocket: FakeWS, backoff: () => 10_000 });
  hb.start();
  const live = last();
  live.open();
  live.recv({ type: 'welcome', conn: 'h', seat: null, heartbeatMs: 20 });
  live.recv(snapshot('H', 1));
  const answer = setInterval(() => {
    const ping = live.sent.filter((m) => m.type === 'ping').at(-1);
    if (ping) live.recv({ type: 'pong', t: ping.t, now: Date.now() });
  }, 5);
  await tick(150);
  check(hb.state === 'online' && live.sent.filter((m) => m.type === 'ping').length >= 3, 'a socket that answers pings stays online');
  clearInterval(answer);
  await tick(150);
  check(hb.state === 'reconnecting', 'a socket that stops answering is dropped: ' + hb.state);
  hb.stop();

  // A new seat's token is kept by room code; a spectator sends no token.
  const store = new TokenStore(null);
  const e = new RoomClient({ room: 'NEW1', name: 'Ann', game: { id: 'nim', rulesVersion: 'nim/1' }, tokens: store, url: 'ws://test/ws', WebSocket: FakeWS });
  e.start();
  last().open();
  check(last().sent[0].name === 'Ann' && !last().sent[0].token, 'a hello without a token asks for a seat by name');
  last().recv({ type: 'welcome', conn: 'y', seat: 1, token: 'new-token', heartbeatMs: 15000 });
  check(store.get('NEW1') === 'new-token', 'the welcome token is stored by room code');
  e.stop();
  store.set('W1', 'mine');
  const w = new RoomClient({ room: 'W1', watch: true, game: { id: 'nim', rulesVersion: 'nim/1' }, tokens: store, url: 'ws://test/ws', WebSocket: FakeWS });
  w.start();
  last().open();
  check(last().sent[0].watch === true && !last().sent[0].token, 'a spectator says watch and sends no token');
  w.stop();
  c.stop();

  // ---- the ports, with a fake clock: exact times, no waiting ----

  class FakeClock {
    constructor() { this.t = 1_000_000; this.timers = new Map(); this.next = 1; }
    now() { return this.t; }
    setTimeout(fn, ms) { const id = this.next++; this.timers.set(id, { at: this.t + ms, fn, every: 0 }); return id; }
    clearTimeout(id) { this.timers.delete(id); }
    setInterval(fn, ms) { const id = this.next++; this.timers.set(id, { at: this.t + ms, fn, every: ms }); return id; }
    clearInterval(id) { this.timers.delete(id); }
    // advance runs every timer due within ms, in time order.
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
  check(Close.REPLACED === 4001 && Close.ROOM_CLOSED === 4004 && Close.BAD_TOKEN === 4006 && States.join() === 'connecting,online,reconnecting,closed', 'Close and States');
  check(typeof systemClock.now() === 'number', 'systemClock reads the time');

  const clock = new FakeClock();
  let wakeUp = null, unwoken = 0, ids = 0;
  const p = new RoomClient({ room: 'PORT1', name: 'Pat', game: { id: 'nim', rulesVersion: 'nim/1' }, tokens: new TokenStore(null),
    url: 'ws://test/ws', WebSocket: FakeWS, clock, random: () => 0, newId: () => 'id-' + (++ids),
    wake: (now) => { wakeUp = now; return () => { unwoken++; wakeUp = null; }; }, log: { warn() {}, error() {} } });
  const states = [];
  p.on('state', (d) => states.push(d.state + ':' + d.code));
  p.start();
  check(typeof wakeUp === 'function', 'start subscribes to the wake port');
  // Attempts that never get online wait 500, 1000, 1750 ms (random() = 0).
  let sockets = FakeWS.all.length;
  for (const wait of [500, 1000, 1750]) {
    last().open();
    last().drop(1006);
    clock.advance(wait - 1);
    check(FakeWS.all.length === sockets, `no new socket before ${wait} ms`);
    clock.advance(1);
    check(FakeWS.all.length === sockets + 1, `a new socket after exactly ${wait} ms`);
    sockets++;
  }
  last().open();
  check(last().sent[0].name === 'Pat', 'the hello of a new seat names it');
  last().recv({ type: 'welcome', conn: 'p', seat: 0, token: 'pt', heartbeatMs: 1000 });
  last().recv(snapshot('P', 1));
  check(p.state === 'online', 'online with the fake clock');
  // Online again: the backoff starts over.
  last().drop(1006);
  clock.advance(500);
  check(FakeWS.all.length === sockets + 1, 'online resets the backoff to 500 ms');
  sockets++;
  // The wake port dials at once.
  last().drop(1006);
  check(p.state === 'reconnecting' && FakeWS.all.length === sockets, 'reconnecting, waiting');
  wakeUp();
  check(FakeWS.all.length === sockets + 1, 'a wake-up dials without waiting');
  sockets++;
  last().open();
  last().recv({ type: 'welcome', conn: 'p', seat: 0, heartbeatMs: 1000 });
  last().recv(snapshot('P', 1));

  // Pongs set the host clock's offset; serverNow reads the clock port.
  const ping = last().sent.find((m) => m.type === 'ping');
  check(ping && ping.t === clock.now(), 'a ping carries the clock port\'s time');
  clock.advance(40);
  last().recv({ type: 'pong', t: ping.t, now: ping.t + 5020 });
  check(p.rtt() === 40 && p.serverNow() === clock.now() + 5000, `the offset from a pong: rtt ${p.rtt()}, offset ${p.serverNow() - clock.now()}`);

  // Heartbeat: a ping a heartbeat after the last one, once it was answered;
  // a ping that nothing answers for a heartbeat drops the socket — the
  // server, silent since its pong 40 ms after the first ping, is left
  // 1960 ms later: within two heartbeats.
  const quiet = last();
  clock.advance(960); // a heartbeat after the first ping, which was answered: a new ping
  const pings = quiet.sent.filter((m) => m.type === 'ping').length;
  check(pings === 2, `a ping every heartbeat while answered: ${pings}`);
  clock.advance(999);
  check(p.state === 'online', 'still online just under a heartbeat after the unanswered ping');
  check(quiet.sent.filter((m) => m.type === 'ping').length === 2, 'no second ping while one is unanswered');
  clock.advance(1);
  check(p.state === 'reconnecting' && p.closeCode === 1006, 'dropped when a ping goes unanswered for a heartbeat: ' + p.state);
  clock.advance(500); // the backoff
  const welcomed = last();
  check(welcomed !== quiet, 'a new socket after the backoff');
  welcomed.open();
  // A server silent from its welcome on (no pong, nothing) is left exactly
  // two heartbeats after it (its ping goes out a heartbeat after the
  // welcome's, which the welcome itself counts as answered here, the fake
  // clock not moving between the two).
  welcomed.recv({ type: 'welcome', conn: 'p', seat: 0, heartbeatMs: 1000 });
  clock.advance(1999);
  check(p.ws === welcomed, 'a silent server is kept for two heartbeats after its welcome');
  clock.advance(1);
  check(p.ws !== welcomed && p.state === 'reconnecting' && p.closeCode === 1006, 'a server silent after its welcome is left two heartbeats after it');
  clock.advance(1000); // the backoff
  // A socket silent from its opening (no welcome at all) is pinged a
  // heartbeat after it and left a heartbeat later.
  const mute = last();
  check(mute !== welcomed, 'a new socket after the backoff');
  mute.open();
  clock.advance(999);
  check(mute.sent.filter((m) => m.type === 'ping').length === 0, 'no ping before a heartbeat of silence');
  clock.advance(1000);
  check(mute.sent.filter((m) => m.type === 'ping').length === 1 && p.ws === mute, 'a socket silent since it opened is pinged after a heartbeat, and kept for another');
  clock.advance(1);
  check(p.ws !== mute && p.closeCode === 1006, 'a socket silent since it opened is left two heartbeats after it');
  clock.advance(1750); // the backoff
  last().open();
  last().recv(snapshot('P', 1));

  // A temporary refusal sends the same action again, same id, later.
  const act = p.command({ type: 'take', n: 1 });
  const sent = last().sent.at(-1);
  check(sent.id === 'id-' + ids, 'action ids come from the newId port');
  last().recv({ type: 'receipt', id: sent.id, ok: false, notice: { code: 'rate-limited', message: 'slow down', temporary: true } });
  clock.advance(799);
  check(last().sent.filter((m) => m.id === sent.id).length === 1, 'no resend before 800 ms');
  clock.advance(1);
  check(last().sent.filter((m) => m.id === sent.id).length === 2, 'the same action again after 800 ms');
  last().recv({ type: 'receipt', id: sent.id, ok: true, rev: 2 });
  check((await act).ok, 'the resent action resolves with its receipt');

  // A bye's retryAfterMs is the wait, exactly.
  last().recv({ type: 'bye', code: 4000, reason: 'restarting', reconnect: true, retryAfterMs: 1234 });
  sockets = FakeWS.all.length;
  last().drop(4000);
  clock.advance(1233);
  check(FakeWS.all.length === sockets, 'no socket before retryAfterMs');
  clock.advance(1);
  check(FakeWS.all.length === sockets + 1, 'a socket at retryAfterMs');
  p.stop();
  check(unwoken === 1 && clock.timers.size === 0, `stop unsubscribes and leaves no timer (${clock.timers.size})`);
  check(states.at(-1) === 'closed:4000' || states.at(-1).startsWith('closed'), 'stop ends closed: ' + states.at(-1));
  return failures;
})()
