// Prints the mutation score per module from the reports the `mutate` targets left
// (tmp/stryker/<project>-report.json) and exits 1 if one is below the threshold.
import fs from 'node:fs';
import { MUTATED_PROJECTS, THRESHOLD, reportFile } from './projects';

interface Report {
  files: Record<string, { mutants: { status: string }[] }>;
}

const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);

/** Stryker's mutation score: detected / (detected + undetected); ignored and errored mutants count in neither. */
export function score(report: Report): { score: number; detected: number; undetected: number } {
  let detected = 0;
  let undetected = 0;
  for (const file of Object.values(report.files)) {
    for (const m of file.mutants) {
      if (DETECTED.has(m.status)) detected++;
      else if (UNDETECTED.has(m.status)) undetected++;
    }
  }
  const total = detected + undetected;
  return { score: total === 0 ? 100 : (100 * detected) / total, detected, undetected };
}

function main(): void {
  let failed = false;
  console.log('mutation score per module:');
  for (const { name } of MUTATED_PROJECTS) {
    const file = reportFile(name);
    if (!fs.existsSync(file)) {
      console.log(`  ${name.padEnd(16)} no report (${file})`);
      failed = true;
      continue;
    }
    const s = score(JSON.parse(fs.readFileSync(file, 'utf8')) as Report);
    const ok = s.score >= THRESHOLD;
    failed ||= !ok;
    console.log(`  ${name.padEnd(16)} ${s.score.toFixed(2).padStart(6)}%  (${s.detected} detected, ${s.undetected} survived or not covered)${ok ? '' : `  BELOW ${THRESHOLD}%`}`);
  }
  process.exitCode = failed ? 1 : 0;
}

if (require.main === module) main();
