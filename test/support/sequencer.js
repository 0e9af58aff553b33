/* eslint-disable @typescript-eslint/no-require-imports -- jest loads its sequencer untransformed, as CommonJS */
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const KNOWN_SECONDS = require('../durations.json');

/**
 * Longest files first, so that no long file starts last while the other workers sit idle. Jest knows durations only
 * from an earlier run in its cache; a fresh clone has none and jest would order by file size (the fuzzing suite is a
 * small file and one of the longest). test/durations.json holds the durations (seconds) of the files that took 10 s or more in a full serial run,
 * and of the files it lacked that took 5 s or more in a full three-worker run (on a loaded machine, scaled by the median ratio of the
 * files both runs timed; files that failed there are capped at 60 s), so that a fresh clone does not leave them for the end. The cache,
 * when it has a figure, wins. A file known to neither counts as short.
 */
class LongestFirst extends Sequencer {
  sort(tests) {
    const seconds = (test) => {
      const cached = this.time(test);
      if (cached != null) return cached / 1000;
      return KNOWN_SECONDS[path.relative(test.context.config.rootDir, test.path).split(path.sep).join('/')] ?? 1;
    };
    const failedFirst = (test) => (this.hasFailed(test) ? 1 : 0);
    return [...tests].sort((a, b) => failedFirst(b) - failedFirst(a) || seconds(b) - seconds(a));
  }
}

module.exports = LongestFirst;
