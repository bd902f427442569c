// The client module's rules for a real-time match's ticks (PROTOCOL.md
// §2.7), against a fake WebSocket and a fake clock: contiguous ticks are
// handed on with their arrival time; a tick whose number is not the next or
// whose `from` is not the revision seen is dropped and answered by one
// resync, and every tick after it is dropped until the snapshot, which says
// the tick its view is at; the update that starts a match starts the count
// again; a resync the server refuses for now is asked again. Run
// under Node by client_node_test.go (ASSETS replaced by a file: URL of
// static/) and in a page by browser_test.go. The value is the list of
// failures.
(async () => {
  const { RoomClient, TokenStore } = await import('ASSETS/js/client.js');
  const failures = [];
  const check = (ok, what) => { if (!ok) failures.push(what); };

  class FakeWS {
    static all = [];
    constructor(url) { this.url = url; this.readyState = 0; this.sent = []; FakeWS.all.push(this); }
    send(s) { this.sent.push(JSON.parse(s)); }
    close() { this.readyState = 3; }
    open() { this.readyState = 1; this.onopen && this.onopen(); }
    recv(msg) { this.onmessage && this.onmessage({ data: JSON.stringify(msg) }); }
  }
  class FakeClock {
    constructor() { this.t = 5_000; this.timers = new Map(); this.next = 1; }
    now() { return this.t; }
    setTimeout(fn, ms) { const id = this.next++; this.timers.set(id, { at: this.t + ms, fn }); return id; }
    clearTimeout(id) { this.timers.delete(id); }
    setInterval() { return 0; } // no heartbeat in this test
    clearInterval() {}
    advance(ms) {
      this.t += ms;
      for (const [id, x] of [...this.timers]) if (x.at <= this.t) { this.timers.delete(id); x.fn(); }
    }
  }

  const clock = new FakeClock();
  let ids = 0;
  const c = new RoomClient({ room: 'SNK1', game: { id: 'snake', rulesVersion: 'snake/1' }, tokens: new TokenStore(null),
    url: 'ws://test/ws', WebSocket: FakeWS, clock, newId: () => 'id-' + (++ids), log: { warn() {}, error() {} } });
  const ticks = [];
  const snapshots = [];
  c.on('tick', (t) => ticks.push(t));
  c.on('snapshot', (s) => snapshots.push(s));
  c.start();
  const ws = FakeWS.all.at(-1);
  ws.open();
  ws.recv({ type: 'welcome', conn: 'k', seat: 0, heartbeatMs: 15000 });
  const room = { code: 'SNK1', phase: 'running', hz: 20, seats: [], clocks: { now: 0, elapsedMs: 0, running: true } };
  ws.recv({ type: 'snapshot', epoch: 'E', rev: 7, seat: 0, view: { phase: 'countdown' }, room, tick: 40 });
  check(c.state === 'online' && c.rev === 7 && c.lastTick === 40, `the snapshot sets the revision and the tick: rev ${c.rev}, tick ${c.lastTick}`);

  const tick = (from, to, n, beats = []) => ({ type: 'tick', from, to, tick: n, beats });
  const resyncs = () => ws.sent.filter((m) => m.type === 'resync');

  // Contiguous ticks: each is handed on, with the revision it reaches.
  ws.recv(tick(7, 7, 41));
  clock.advance(50);
  ws.recv(tick(7, 9, 42, [{ t: 'turn', s: 0, d: 'up' }])); // two inputs moved the revision
  clock.advance(50);
  ws.recv(tick(9, 9, 43, [{ t: 'move', d: 'u.' }]));
  check(ticks.map((t) => t.tick).join() === '41,42,43', 'contiguous ticks are applied: ' + ticks.map((t) => t.tick));
  check(c.rev === 9 && c.lastTick === 43, `rev ${c.rev} and lastTick ${c.lastTick} follow the ticks`);
  check(ticks[1].beats[0].d === 'up' && ticks[2].beats[0].d === 'u.', 'each tick carries its beats');
  check(ticks[0].at === 5_000 && ticks[2].at === 5_100, `each tick carries its arrival time: ${ticks.map((t) => t.at)}`);
  check(resyncs().length === 0, 'no resync while the ticks follow');
  // A batched frame (several ticks in one JSON array) is the same.
  ws.onmessage({ data: JSON.stringify([tick(9, 9, 44), tick(9, 10, 45)]) });
  check(c.lastTick === 45 && c.rev === 10 && ticks.length === 5, 'ticks of a batched frame are applied in order');

  // A gap in the tick numbers: dropped, one resync, later ticks dropped too.
  ws.recv(tick(10, 10, 47));
  check(c.lastTick === 45 && ticks.length === 5, 'a tick after a gap in the numbers is dropped');
  check(resyncs().length === 1 && resyncs()[0].rev === 10, 'a gap in the ticks sends one resync: ' + JSON.stringify(resyncs()));
  ws.recv(tick(10, 10, 48));
  ws.recv(tick(10, 10, 46)); // even the missing one, late: the snapshot is asked for
  check(ticks.length === 5 && resyncs().length === 1, 'the ticks after a gap are dropped until the snapshot, with no second resync');
  ws.recv({ type: 'receipt', id: resyncs()[0].id, ok: true, rev: 10 });
  ws.recv({ type: 'snapshot', epoch: 'E', rev: 10, seat: 0, view: { phase: 'running' }, room, tick: 48 });
  check(c.lastTick === 48 && snapshots.length === 2, 'the snapshot sets lastTick to its tick: ' + c.lastTick);
  ws.recv(tick(10, 10, 49));
  check(ticks.at(-1).tick === 49 && c.lastTick === 49, 'ticks go on from the snapshot\'s');

  // A gap in the revision (an update missed): the same.
  ws.recv(tick(11, 11, 50));
  check(c.lastTick === 49 && c.rev === 10 && resyncs().length === 2, 'a tick whose from is not the revision seen is dropped and answered by a resync');
  ws.recv(tick(11, 11, 51));
  check(ticks.at(-1).tick === 49 && resyncs().length === 2, 'and the ticks after it are dropped');

  // The server refuses the resync for now (one snapshot per half second):
  // the client asks again half a second later, and still drops ticks.
  ws.recv({ type: 'receipt', id: resyncs()[1].id, ok: false, notice: { code: 'rate-limited', message: 'a snapshot was sent less than half a second ago', temporary: true } });
  ws.recv(tick(11, 11, 52));
  check(ticks.at(-1).tick === 49 && resyncs().length === 2, 'a refused resync: no resync at once, ticks still dropped');
  clock.advance(499);
  check(resyncs().length === 2, 'not before half a second');
  clock.advance(1);
  check(resyncs().length === 3, 'the resync is asked again after half a second: ' + resyncs().length);
  ws.recv({ type: 'receipt', id: resyncs()[2].id, ok: true, rev: 11 });
  ws.recv({ type: 'snapshot', epoch: 'E', rev: 11, seat: 0, view: { phase: 'running' }, room, tick: 53 });
  ws.recv(tick(11, 12, 54));
  check(ticks.at(-1).tick === 54 && c.rev === 12, 'after the snapshot the ticks are applied again');

  // The match ends with an update (with the view, whose tick is the last
  // one); a rematch's update carries the new match's view, whose ticks
  // start at 1.
  ws.recv({ type: 'update', epoch: 'E', from: 12, to: 13, by: null, room: { ...room, phase: 'ended' }, view: { phase: 'over' } });
  check(c.lastTick === 54, 'the update that ends a match keeps the last tick: ' + c.lastTick);
  ws.recv({ type: 'update', epoch: 'E', from: 13, to: 14, by: 0, room, view: { phase: 'countdown' } });
  check(c.lastTick === 0 && c.rev === 14, 'the update that starts a match starts the tick count again: ' + c.lastTick);
  ws.recv(tick(14, 14, 1));
  check(ticks.at(-1).tick === 1 && c.lastTick === 1, 'the new match\'s first tick is applied');
  check(resyncs().length === 3, 'no resync across the rematch');

  // While the match ticks, a ping goes out every 2 s (the heartbeat's is
  // every 15 s): rtt() gets more samples.
  const pings = () => ws.sent.filter((m) => m.type === 'ping').length;
  const before = pings();
  for (let n = 2; n <= 81; n++) {
    clock.advance(50);
    ws.recv(tick(14, 14, n));
  }
  check(pings() - before === 2, `a ping every 2 s while ticking: ${pings() - before} in 4 s`);
  const ping = ws.sent.filter((m) => m.type === 'ping').at(-1);
  const rtt = clock.now() - ping.t;
  ws.recv({ type: 'pong', t: ping.t, now: ping.t + 1 });
  check(rtt > 0 && c.rtt() === rtt, `the round trip from a tick-time ping: ${c.rtt()}, want ${rtt}`);

  // A reconnect's snapshot replaces the tick too.
  ws.recv({ type: 'snapshot', epoch: 'E', rev: 14, seat: 0, view: { phase: 'running' }, room, tick: 300 });
  ws.recv(tick(14, 14, 301));
  check(c.lastTick === 301, 'ticks go on from a later snapshot\'s tick');
  c.stop();
  check(clock.timers.size === 0, `stop leaves no timer (${clock.timers.size})`);
  return failures;
})()
