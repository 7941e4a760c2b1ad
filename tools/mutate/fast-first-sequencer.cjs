// jest's order for mutant runs (with bail): files that failed last time first (a neighbouring
// mutant is likely killed by the same file), then the quickest. jest's own order runs the
// slowest first, which keeps workers busy but makes a killed mutant cost the most.
const Sequencer = require('@jest/test-sequencer').default;

class FastFirstSequencer extends Sequencer {
  sort(tests) {
    for (const test of tests) test.duration = this.time(test);
    const rank = (t) => [this.hasFailed(t) ? 0 : 1, t.duration ?? Number.MAX_SAFE_INTEGER];
    return [...tests].sort((a, b) => {
      const [ra, rb] = [rank(a), rank(b)];
      return ra[0] - rb[0] || ra[1] - rb[1];
    });
  }
}

module.exports = FastFirstSequencer;
