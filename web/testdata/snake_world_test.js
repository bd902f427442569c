// The snake page's view model (games/snake/world.js) against core/snake:
// snake_world_test.go plays matches with the Go rules and writes, for each
// viewer, its first view, each tick's beats and its view after each tick
// (TRACES, a file). Starting from the first view and applying the beats,
// the model must hold the server's view after every tick, byte for byte.
// Run under Node (ASSETS replaced by a file: URL of static/). The value is
// the list of failures.
(async () => {
  const { fromWire, applyBeats, toWire } = await import('ASSETS/js/games/snake/world.js');
  const fs = await import('node:fs');
  const traces = JSON.parse(fs.readFileSync('TRACES', 'utf8'));
  const failures = [];
  let ticks = 0;
  for (const [n, tr] of traces.entries()) {
    const v = fromWire(tr.start);
    for (let k = 0; k < tr.beats.length; k++) {
      applyBeats(v, tr.beats[k] || []);
      ticks++;
      const got = JSON.stringify(toWire(v)), want = JSON.stringify(tr.views[k]);
      if (got !== want) {
        failures.push(`trace ${n} (viewer ${tr.seat}), tick ${k + 1} (beats ${JSON.stringify(tr.beats[k])}):\n  got  ${got}\n  want ${want}`);
        break;
      }
    }
  }
  if (!ticks) failures.push('no tick was checked');
  return failures;
})()
