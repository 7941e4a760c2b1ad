/**
 * Sums the jest results every project wrote to tmp/test-results and prints
 * one closing line, `tests: N passed, N failed`, for people and CI alike.
 * Failed tests are named above it (file, test, the first lines of the
 * failure), so the end of a long CI log says what broke.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

interface Assertion {
  fullName: string;
  status: string;
  failureMessages?: string[];
}
interface Result {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numRuntimeErrorTestSuites?: number;
  testResults?: { name: string; status: string; message?: string; assertionResults?: Assertion[] }[];
}

const root = resolve(__dirname, '..');
const dir = join(root, 'tmp', 'test-results');
// eslint-disable-next-line no-control-regex
const plain = (text: string): string => text.replace(/\u001b\[[0-9;]*m/g, '');
const excerpt = (text: string): string =>
  plain(text)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(0, 8)
    .map((line) => `      ${line.trim()}`)
    .join('\n');

let passed = 0;
let failed = 0;
let skipped = 0;
let brokenFiles = 0;
const failures: string[] = [];
const files = (() => {
  try {
    return readdirSync(dir).filter((f) => f.endsWith('.json'));
  } catch {
    return [];
  }
})();
for (const file of files) {
  const result = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Result;
  passed += result.numPassedTests;
  failed += result.numFailedTests;
  skipped += result.numPendingTests;
  brokenFiles += result.numRuntimeErrorTestSuites ?? 0;
  for (const suite of result.testResults ?? []) {
    const name = relative(root, suite.name);
    const failedTests = (suite.assertionResults ?? []).filter((a) => a.status === 'failed');
    for (const test of failedTests) failures.push(`  ${name}: ${test.fullName}\n${excerpt((test.failureMessages ?? []).join('\n'))}`);
    if (suite.status === 'failed' && failedTests.length === 0) failures.push(`  ${name}: the file failed to run\n${excerpt(suite.message ?? '')}`);
  }
}
if (failures.length > 0) console.log(`failed:\n${failures.join('\n')}`);
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}${brokenFiles ? `, ${brokenFiles} files failed to run` : ''}`);
process.exitCode = failed > 0 || brokenFiles > 0 || passed === 0 ? 1 : 0;
