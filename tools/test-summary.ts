/**
 * Sums the jest results every project wrote to tmp/test-results and prints
 * one closing line, `tests: N passed, N failed`, for people and CI alike.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const dir = resolve(__dirname, '..', 'tmp', 'test-results');
let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
  const result = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { numPassedTests: number; numFailedTests: number; numPendingTests: number };
  passed += result.numPassedTests;
  failed += result.numFailedTests;
  skipped += result.numPendingTests;
}
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
