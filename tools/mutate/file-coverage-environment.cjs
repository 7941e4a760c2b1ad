// jest's node environment, noting per test file the mutants it reached during Stryker's
// initial run (Stryker mixes its own coverage hooks into this class). See file-filter.cjs.
const { TestEnvironment } = require('jest-environment-node');
const { counts, record } = require('./file-coverage.cjs');

const ACTIVE_MUTANT = '__STRYKER_ACTIVE_MUTANT__';

class FileCoverageEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
  }

  instrumenterContext() {
    return this.global[this.global.__strykerGlobalNamespace__ ?? '__stryker__'];
  }

  async setup() {
    await super.setup();
    this.before = counts(this.instrumenterContext());
  }

  async teardown() {
    if (!process.env[ACTIVE_MUTANT] && this.before) record(this.testPath, this.before, counts(this.instrumenterContext()));
    await super.teardown();
  }
}

module.exports = FileCoverageEnvironment;
