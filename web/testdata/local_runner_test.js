// The local session runner (static/js/local/runner.js) under Node, on the
// committed WebAssembly core, loaded as the page loads it but from files
// (client_node_test.go replaces ASSETS by a file: URL of static/). The
// expression's value is the list of failures.
(async () => {
  const fs = await import('node:fs');
  const zlib = await import('node:zlib');
  const { LocalSession, dailySeed, UNDO_POLICY } = await import('ASSETS/js/local/runner.js');
  await import('ASSETS/wasm/wasm_exec.js');
  const manifest = JSON.parse(fs.readFileSync(new URL('ASSETS/wasm/manifest.json'), 'utf8'));
  const cores = {}; // by game: its module's core
  for (const mod of manifest.modules) {
    const wasm = zlib.gunzipSync(fs.readFileSync(new URL('ASSETS/wasm/' + mod.url + '.gz')));
    const go = new Go();
    const { instance } = await WebAssembly.instantiate(wasm, go.importObject);
    go.run(instance);
    const raw = globalThis.roomdCore; // this module's, until the next one starts
    const core = { manifest, module: mod.name, call: (req) => JSON.parse(raw.call(JSON.stringify(req))) };
    for (const g of mod.games) cores[g] = core;
  }

  const failures = [];
  const check = (ok, what) => { if (!ok) failures.push(what); };
  const tick = () => new Promise((r) => setTimeout(r, 0));
  const memory = () => {
    const m = new Map();
    return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => m.set(k, String(v)), removeItem: (k) => m.delete(k), m };
  };
  /** A session with its last published state. */
  const open = (opts) => {
    const box = { states: [] };
    box.s = new LocalSession(cores[opts.game], { aiDelayMs: 0, ...opts, onChange: (st, beats) => { box.last = st; box.states.push({ st, beats }); } });
    return box;
  };
  /** Waits until the AI has nothing left to do now. */
  const settle = async (box) => { for (let i = 0; i < 200 && box.s.aiTimer; i++) await tick(); };
  const firstFree = (view) => {
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) if (view.board[r][c] === '.') return { type: 'mark', r, c };
    return null;
  };

  // Against the AI: tic-tac-toe to the end; the AI answers every mark.
  {
    const b = open({ game: 'tictactoe', mode: 'ai', seats: [{ name: 'Ann' }, { name: 'AI', ai: true }], config: {}, seed: 7 });
    b.s.start();
    for (let i = 0; i < 9 && !b.last.status.over; i++) {
      const rc = b.s.command(firstFree(b.last.view));
      check(rc.ok, 'a free square is refused: ' + JSON.stringify(rc));
      await settle(b);
    }
    check(b.last.status.over, 'tic-tac-toe against the AI does not end');
    const r = b.s.result();
    check(r && r.status === b.last.status.phase && Array.isArray(r.winners), 'result ' + JSON.stringify(r));
    const ai = b.s.log.filter((e) => e.seat === 1).length, me = b.s.log.length - ai;
    check(ai >= 2 && ai >= me - 1 && ai <= me, `the AI moved ${ai} times to my ${me}`);
    const refused = b.s.command({ type: 'mark', r: 0, c: 0 });
    check(!refused.ok && refused.notice.code.startsWith('game:'), 'a move after the end: ' + JSON.stringify(refused));
    b.s.dispose();
  }

  // Co-op Minesweeper against the AI (issue 43): the AI waits for the
  // human's first move, as in a room, then plays on.
  {
    const b = open({ game: 'minesweeper', mode: 'ai', seats: [{ name: 'Ann' }, { name: 'AI', ai: true }], config: { mode: 'coop', level: 'beginner' }, seed: 5 });
    b.s.start();
    for (let i = 0; i < 20; i++) await tick();
    check(b.s.log.length === 0 && !b.s.aiTimer && b.last.thinking.length === 0, `the AI moved before me: ${b.s.log.length} moves`);
    const rc = b.s.command({ type: 'reveal', r: 4, c: 4 });
    check(rc.ok, 'my first reveal is refused: ' + JSON.stringify(rc));
    await settle(b);
    check(b.last.status.over || b.s.log.some((e) => e.seat === 1), 'the AI does not play after my first move');
    b.s.dispose();
  }

  // Pass-and-play opens on the seat to act, with no hand-off screen (issue
  // 43): a card duel draws its first seat, and one opened on "Pass the
  // device to Player 2" before anyone had seen a board.
  {
    const firsts = new Set();
    for (let seed = 1; seed <= 12; seed++) {
      const b = open({ game: 'cards', mode: 'pass', seats: [{ name: 'Ann' }, { name: 'Bob' }], config: {}, seed });
      b.s.start();
      const first = b.last.pending[0];
      firsts.add(first);
      check(b.last.viewer === first && !b.last.handoff, `seed ${seed}: seat ${first} plays first, the screen shows viewer ${b.last.viewer}, hand-off ${JSON.stringify(b.last.handoff)}`);
      b.s.dispose();
    }
    check(firsts.has(1), 'no duel of 12 seeds has the second seat play first');
  }

  // Undo by policy: vs AI at most 3, each taking back the human's move and
  // the AI's answer; the fourth is refused, and every one is counted.
  {
    check(UNDO_POLICY.ai === 3 && UNDO_POLICY.pass === 'none' && UNDO_POLICY.daily === 'none' && UNDO_POLICY.solo === 'unlimited', 'policy ' + JSON.stringify(UNDO_POLICY));
    const b = open({ game: 'nim', mode: 'ai', seats: [{ name: 'Ann' }, { name: 'AI', ai: true }], config: { pile: 40 }, seed: 3 });
    b.s.start();
    check(!b.s.undo().ok && b.last.undo.why === 'Nothing to undo yet.', 'an undo with nothing to undo: ' + JSON.stringify(b.last.undo));
    let mine = 0; // the pile before my last take
    const take = async (n) => { mine = b.last.view.pile; b.s.command({ type: 'take', n }); await settle(b); };
    for (let i = 0; i < 3; i++) await take(1);
    for (let i = 0; i < 3; i++) {
      const rc = b.s.undo();
      check(rc.ok, 'undo ' + (i + 1) + ': ' + JSON.stringify(rc));
      check(b.last.view.pile === mine && b.last.pending[0] === 0, `undo ${i + 1}: the pile is ${b.last.view.pile}, it was ${mine} before my take (the AI's answer taken back too)`);
      await take(2);
    }
    const fourth = b.s.undo();
    check(!fourth.ok && /No undo left/.test(fourth.notice.message) && b.last.undo.remaining === 0, 'the fourth undo: ' + JSON.stringify(fourth));
    check(b.s.undos === 3 && b.last.assists.includes('undo'), 'undos counted ' + b.s.undos + ' ' + b.last.assists);
    b.s.dispose();
  }

  // Pass-and-play: after each move a hand-off screen shows nobody's view
  // (no secret in it, no beats) until reveal; no undo.
  {
    const b = open({ game: 'nim', mode: 'pass', seats: [{ name: 'Ann' }, { name: 'Bob' }], config: { pile: 12 }, seed: 5 });
    b.s.start();
    check(b.last.viewer === 0 && !b.last.handoff && b.last.view.you === 0 && b.last.view.secret != null, 'the first player sees their own view: ' + JSON.stringify(b.last));
    b.states.length = 0;
    b.s.command({ type: 'take', n: 1 });
    check(b.last.handoff && b.last.handoff.seat === 1 && b.last.handoff.name === 'Bob' && b.last.viewer === null, 'hand-off to Bob: ' + JSON.stringify(b.last.handoff));
    check(b.last.view.secret === undefined && b.last.view.you === undefined, 'the hand-off screen shows a secret: ' + JSON.stringify(b.last.view));
    check(b.states.every((x) => x.beats === null), 'beats published behind the hand-off screen');
    const blocked = b.s.command({ type: 'take', n: 1 });
    check(!blocked.ok && blocked.notice.code === 'handoff', 'a move behind the hand-off screen: ' + JSON.stringify(blocked));
    b.s.reveal();
    check(b.last.viewer === 1 && b.last.view.you === 1 && b.last.view.secret != null, 'after reveal, Bob sees his view: ' + JSON.stringify(b.last.view));
    const u = b.s.undo();
    check(!u.ok && /Pass-and-play has no undo/.test(u.notice.message), 'an undo in pass-and-play: ' + JSON.stringify(u));
    for (let i = 0; i < 20 && !b.last.status.over; i++) { if (b.last.handoff) b.s.reveal(); b.s.command({ type: 'take', n: 1 }); }
    check(b.last.status.over && b.last.viewer === null && b.last.view.you === undefined, 'the end shows nobody\'s view: ' + JSON.stringify(b.last));
    b.s.dispose();
  }

  // Daily: the same date gives the same board on every device, another
  // date another; no undo; the shared line names no cell.
  {
    check(dailySeed('minesweeper', '2026-12-01') === dailySeed('minesweeper', '2026-12-01'), 'the daily seed changes within a day');
    check(dailySeed('minesweeper', '2026-12-01') !== dailySeed('minesweeper', '2026-12-02'), 'two days have the same seed');
    check(dailySeed('minesweeper', '2026-12-01') !== dailySeed('spellgrid', '2026-12-01'), 'two games have the same seed');
    const boards = [];
    for (const day of ['2026-12-01', '2026-12-01', '2026-12-02']) {
      const b = open({ game: 'minesweeper', mode: 'daily', seats: [{ name: 'Ann' }], config: { mode: 'solo', level: 'beginner' }, day });
      b.s.start();
      b.s.command({ type: 'reveal', r: 0, c: 0 });
      b.s.command({ type: 'reveal', r: 8, c: 8 });
      boards.push(JSON.stringify(b.last.view));
      check(!b.s.undo().ok, 'the daily game has an undo');
      b.s.dispose();
    }
    check(boards[0] === boards[1], 'two devices on one day see different boards');
    // A daily game saved before midnight is the same game after it.
    const storage = memory();
    const late = open({ game: 'minesweeper', mode: 'daily', seats: [{ name: 'Ann' }], config: { mode: 'solo', level: 'beginner' }, day: '2026-12-01', storage });
    late.s.start();
    late.s.command({ type: 'reveal', r: 0, c: 0 });
    const env = JSON.parse(storage.getItem(LocalSession.key('minesweeper', 'daily')));
    const next = LocalSession.restore(cores[env.game], env, { aiDelayMs: 0 });
    check(next.session && next.session.day === '2026-12-01' && JSON.stringify(next.session.state().view) === JSON.stringify(late.last.view),
      'a daily game restored the next day: ' + (next.error || next.session?.day));
    next.session?.dispose();
    late.s.dispose();
    check(boards[0] !== boards[2], 'two days show the same board');
  }

  // Saves: every change is saved; the save restores the same game, view
  // and undo count; a save of other rules, or whose log the rules refuse,
  // says why.
  {
    const storage = memory();
    const b = open({ game: 'baba', mode: 'solo', seats: [{ name: 'Ann' }], config: { level: 'baba-is-you' }, seed: 11, storage });
    b.s.start();
    for (let i = 0; i < 3; i++) check(b.s.command({ type: 'step', dir: 'right' }).ok, 'a step is refused');
    check(b.s.undo().ok, 'an undo in solo is refused');
    const key = LocalSession.key('baba', 'solo');
    const env = JSON.parse(storage.getItem(key));
    check(env && env.log.length === 2 && env.undos === 1 && env.rulesVersion === 'baba/1', 'the save ' + JSON.stringify(env));
    const r = LocalSession.restore(cores[env.game], env, { aiDelayMs: 0, storage });
    check(!!r.session, 'restore: ' + r.error);
    if (r.session) {
      const st = r.session.state();
      check(JSON.stringify(st.view) === JSON.stringify(b.last.view) && st.undos === 1, 'the restored game differs');
      r.session.dispose();
    }
    const old = LocalSession.restore(cores[env.game], { ...env, rulesVersion: 'baba/0' }, {});
    check(/rules changed/.test(old.error || ''), 'a save of other rules: ' + JSON.stringify(old));
    const bad = LocalSession.restore(cores[env.game], { ...env, log: [...env.log, { seat: 0, move: { type: 'step', dir: 'sideways' }, t: 5 }] }, {});
    check(/does not replay: entry 2/.test(bad.error || ''), 'a save the rules refuse: ' + JSON.stringify(bad));
    check(LocalSession.restore(cores[env.game], { v: 9 }, {}).error, 'an unreadable save restored');
    b.s.dispose();
  }
  // A real-time game: snake against the AI, ticked by the runner at its
  // rate, ticks without gaps, an input queued for the next tick, no ticks
  // while paused, no undo.
  {
    const ticks = [];
    const b = open({ game: 'snake', mode: 'ai', seats: [{ name: 'Ann' }, { name: 'AI', ai: true }], config: {}, seed: 21, hz: 20,
      onTick: (t) => ticks.push(t) });
    b.s.start();
    await new Promise((r) => setTimeout(r, 600));
    check(ticks.length >= 5 && ticks.every((t, i) => t === i + 1), 'ticks ' + JSON.stringify(ticks));
    const rc = b.s.command({ type: 'turn', dir: 'up' });
    check(rc.ok && rc.tick === b.s.tick + 1, 'an input: ' + JSON.stringify(rc) + ' at tick ' + b.s.tick);
    check(!b.s.undoState().available && /real-time/.test(b.s.undoState().why), 'undo in a real-time game: ' + JSON.stringify(b.s.undoState()));
    b.s.pause();
    const at = ticks.length;
    await new Promise((r) => setTimeout(r, 300));
    check(ticks.length === at, `${ticks.length - at} ticks ran while paused`);
    b.s.resumeTicking();
    await new Promise((r) => setTimeout(r, 300));
    check(ticks.length > at && ticks.every((t, i) => t === i + 1), 'no ticks after resuming, or a gap: ' + JSON.stringify(ticks.slice(at - 2)));
    b.s.dispose();
  }

  // Turn clocks in pass-and-play, on a clock the test turns by hand: a
  // per-move limit starts afresh each turn and runs through the hand-off
  // screen; the seat out of time loses (status timeout, timedOut, the
  // other seat the winner) and no command is taken after; a chess clock
  // charges each turn and adds the increment; a save keeps the times; the
  // other modes have no clock.
  {
    let now = 1000;
    const clockOpts = { now: () => now };
    const b = open({ game: 'tictactoe', mode: 'pass', seats: [{ name: 'Ann' }, { name: 'Bob' }], config: {}, seed: 3, clock: { moveMs: 3000 }, ...clockOpts });
    b.s.start();
    let tc = b.last.turnClock;
    check(tc && tc.running.join() === '0' && tc.remainingMs.join() === '3000,3000' && tc.deadline > 0, 'the first turn clock: ' + JSON.stringify(tc));
    now += 2500;
    check(b.s.command({ type: 'mark', r: 0, c: 0 }).ok, "Ann's mark is refused");
    tc = b.last.turnClock;
    check(tc.running.join() === '1' && tc.remainingMs.join() === '3000,3000', 'after Ann\'s mark: ' + JSON.stringify(tc));
    now += 2000; // behind the hand-off screen: Bob's time runs
    check(b.s.turnClock().remainingMs[1] === 1000, "Bob's clock behind the hand-off screen: " + JSON.stringify(b.s.turnClock()));
    b.s.reveal();
    now += 1000;
    const late = b.s.command({ type: 'mark', r: 1, c: 1 });
    check(!late.ok && late.notice.code === 'timeout', 'a mark after the deadline: ' + JSON.stringify(late));
    const r = b.s.result();
    check(b.last.status.over && r && r.status === 'timeout' && r.timedOut?.join() === '1' && r.winners.join() === '0' && r.remainingMs?.join() === '3000,0',
      'the timeout result: ' + JSON.stringify(r));
    check(b.last.turnClock.running.length === 0 && b.last.viewer === null, 'after the timeout: ' + JSON.stringify(b.last.turnClock) + ' viewer ' + b.last.viewer);
    check(b.states.filter((x) => x.st.status?.phase === 'timeout').length === 1, 'the timeout published more than once');
    b.s.dispose();

    // The runner's own timer ends the game without a command.
    const c = open({ game: 'tictactoe', mode: 'pass', seats: [{ name: 'Ann' }, { name: 'Bob' }], config: {}, seed: 3, clock: { moveMs: 1000 } });
    c.s.start();
    for (let i = 0; i < 300 && !c.last.status.over; i++) await new Promise((res) => setTimeout(res, 10));
    check(c.last.status.phase === 'timeout' && c.s.result()?.timedOut?.join() === '0', "the runner's timer: " + JSON.stringify(c.last.status));
    c.s.dispose();

    // A chess clock: each turn charged, the increment added at its end; the
    // save keeps the times and the restored game goes on from them.
    now = 0;
    const storage = memory();
    const d = open({ game: 'tictactoe', mode: 'pass', seats: [{ name: 'Ann' }, { name: 'Bob' }], config: {}, seed: 3, storage,
      clock: { baseMs: 10000, incrementMs: 2000 }, ...clockOpts });
    d.s.start();
    now += 4000;
    d.s.command({ type: 'mark', r: 0, c: 0 });
    d.s.reveal();
    now += 1500;
    d.s.command({ type: 'mark', r: 1, c: 1 });
    tc = d.last.turnClock;
    check(tc.remainingMs.join() === '8000,10500' && tc.running.join() === '0', 'the chess clock after two turns: ' + JSON.stringify(tc));
    const env = JSON.parse(storage.getItem(LocalSession.key('tictactoe', 'pass')));
    check(env.clock?.baseMs === 10000 && env.remainingMs?.join() === '8000,10500', 'the save: ' + JSON.stringify({ clock: env.clock, remainingMs: env.remainingMs }));
    d.s.dispose();
    now = 50_000; // the page was closed: not charged
    const back = LocalSession.restore(cores.tictactoe, env, { aiDelayMs: 0, ...clockOpts, onChange: () => {} });
    check('session' in back && back.session.turnClock()?.remainingMs.join() === '8000,10500' && back.session.turnClock()?.running.join() === '0',
      'the restored clock: ' + JSON.stringify('session' in back ? back.session.turnClock() : back));
    if ('session' in back) back.session.dispose();

    // A game whose rule is the AI's: the AI plays the turn of the seat out
    // of time, and the game goes on with the other seat's turn.
    now = 0;
    const g = open({ game: 'tictactoe', mode: 'pass', seats: [{ name: 'Ann' }, { name: 'Bob' }], config: {}, seed: 3, clock: { moveMs: 2000 }, onTimeout: 'ai', ...clockOpts });
    g.s.start();
    now += 2500;
    const after = g.s.command({ type: 'mark', r: 0, c: 0 });
    check(!after.ok && after.notice.code === 'handoff' && g.s.log.length === 1 && g.s.log[0].seat === 0 && !g.last.status.over
      && g.last.turnClock.running.join() === '1' && g.last.handoff?.seat === 1,
      'the AI rule: ' + JSON.stringify({ after, log: g.s.log, status: g.last.status, tc: g.last.turnClock, handoff: g.last.handoff }));
    g.s.dispose();

    // No clock against the AI, nor in a clock that is out of bounds.
    const e = open({ game: 'tictactoe', mode: 'ai', seats: [{ name: 'Ann' }, { name: 'AI', ai: true }], config: {}, seed: 3, clock: { moveMs: 3000 } });
    e.s.start();
    check(e.last.turnClock === null, 'a clock against the AI: ' + JSON.stringify(e.last.turnClock));
    e.s.dispose();
    const f = open({ game: 'tictactoe', mode: 'pass', seats: [{ name: 'Ann' }, { name: 'Bob' }], config: {}, seed: 3, clock: { moveMs: 10 } });
    f.s.start();
    check(f.last.turnClock === null, 'a clock of 10 ms: ' + JSON.stringify(f.last.turnClock));
    f.s.dispose();
  }
  return failures;
})()
