// Which test files cover which mutants, recorded during Stryker's initial (coverage) run.
// Kept in the worker's memory and in a file in the sandbox, so a restarted worker still knows.
const fs = require('node:fs');
const path = require('node:path');

const FILE = path.join(process.cwd(), '.stryker-file-coverage.json');
/** @type {Record<string, string[]> | undefined} mutant id -> test files */
let byMutant;

/**
 * Every mutant id tests have reached so far, with its hit count. Hits outside a test
 * (module load, beforeAll) do not count: a mutant run takes only the tests that reached
 * the mutant, and jest skips the hooks of a file whose tests are all filtered out.
 */
function counts(context) {
  const total = new Map();
  const add = (hits) => Object.entries(hits).forEach(([id, n]) => total.set(id, (total.get(id) ?? 0) + n));
  Object.values(context?.mutantCoverage?.perTest ?? {}).forEach(add);
  return total;
}

/** Notes the test file as covering every mutant whose count grew while it ran. */
function record(testPath, before, after) {
  byMutant ??= {};
  for (const [id, n] of after) {
    if (n > (before.get(id) ?? 0)) (byMutant[id] ??= []).includes(testPath) || byMutant[id].push(testPath);
  }
  fs.writeFileSync(FILE, JSON.stringify(byMutant));
}

/** The test files covering a mutant; undefined when unknown (then every file runs). */
function filesCovering(id) {
  if (byMutant === undefined && fs.existsSync(FILE)) byMutant = JSON.parse(fs.readFileSync(FILE, 'utf8'));
  const files = byMutant?.[id];
  return files && new Set(files);
}

module.exports = { counts, record, filesCovering };
