// The HTTP API module's pure parts, run under Node (client_node_test.go,
// ASSETS replaced by a file: URL of static/) with a fake fetch. The
// expression's value is the list of failures.
(async () => {
  const api = await import('ASSETS/js/api.js');
  const failures = [];
  const check = (ok, what) => { if (!ok) failures.push(what); };

  // Leaderboard entries: {name, value} now, {name, time} from older servers.
  check(api.score({ name: 'Ann', value: 1234, room: 'R', match: 2 })?.value === 1234, 'value is read');
  check(api.score({ name: 'Bob', time: 5678 })?.value === 5678, 'time is read when there is no value');
  check(api.score({ name: 'Cy', value: 10, time: 99 })?.value === 10, 'value wins over time');
  check(api.score({ name: 'Dee' }) === null && api.score(null) === null && api.score({ name: 'E', value: 'x' }) === null, 'entries without a number are dropped');

  const bodies = {
    '/api/leaderboards/minesweeper/beginner?limit=10&mode=coop': { game: 'minesweeper', board: 'beginner', mode: 'coop', period: 'all',
      scores: [{ name: 'Ann', value: 1000 }, { name: 'Bob', time: 2000 }, { name: 'bad' }] },
    '/api/leaderboards/minesweeper/expert?limit=10': [{ name: 'Cy', value: 3000 }],
    '/api/leaderboards/minesweeper/intermediate?limit=10': { game: 'minesweeper', board: 'intermediate', mode: 'solo', period: 'all', scores: [] },
  };
  globalThis.fetch = async (path) => {
    const body = bodies[path];
    return { ok: !!body, status: body ? 200 : 404, statusText: body ? 'OK' : 'Not Found', json: async () => body || { error: 'no' } };
  };
  const lb = await api.leaderboard('minesweeper', 'beginner', 'coop');
  check(lb !== null && lb.length === 2 && lb[0].name === 'Ann' && lb[0].value === 1000 && lb[1].value === 2000, 'a mode\'s list, with both score shapes: ' + JSON.stringify(lb));
  const bare = await api.leaderboard('minesweeper', 'expert');
  check(bare !== null && bare.length === 1 && bare[0].value === 3000, 'a bare list: ' + JSON.stringify(bare));
  const empty = await api.leaderboard('minesweeper', 'intermediate');
  check(empty !== null && empty.length === 0, 'an empty list: ' + JSON.stringify(empty));
  check((await api.leaderboard('minesweeper', 'custom-1x2x0')) === null, 'a board with no list (404): null');
  return failures;
})()
