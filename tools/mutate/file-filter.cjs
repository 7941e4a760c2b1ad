// jest `filter` for mutant runs: only the test files that reached the active mutant in the
// initial run. Stryker narrows the tests by name only, so jest would still load every
// related file (for an app: each one starts the whole app) for every mutant.
const { filesCovering } = require('./file-coverage.cjs');

module.exports = async (testPaths) => {
  const id = process.env.__STRYKER_ACTIVE_MUTANT__;
  const files = id === undefined ? undefined : filesCovering(id);
  return { filtered: files ? testPaths.filter((p) => files.has(p)) : testPaths };
};
