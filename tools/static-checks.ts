/**
 * The test command's checks before the test suites, at once: formatting,
 * dependencies (knip), the type check and lint share no files they write, so
 * on two cores they take about half the time they take one after another.
 * The contract check runs first and alone: it generates into directories
 * the type check and lint would otherwise read half-written.
 *
 * Each check's output is printed whole when it ends (not interleaved), after
 * a line with its time; the exit status is 1 when any check failed.
 *
 *   tsx tools/static-checks.ts
 */
import { spawn } from 'node:child_process';

interface Check {
  name: string;
  command: string;
}

const first: Check[] = [{ name: 'contract', command: 'nx run api-spec:check' }];
const together: Check[] = [
  { name: 'format', command: 'npm run -s format:check' },
  { name: 'deps', command: 'npm run -s deps' },
  { name: 'typecheck', command: 'tsc -p tsconfig.json' },
  { name: 'lint', command: 'eslint .' },
];

function run(check: Check): Promise<boolean> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', check.command], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('close', (code, signal) => {
      const ok = code === 0;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const text = Buffer.concat(output).toString().trimEnd();
      process.stdout.write(`checks: ${check.name} (${check.command}) ${ok ? 'passed' : `FAILED (${signal ?? `exit ${code}`})`} in ${seconds} s\n`);
      if (text) process.stdout.write(`${text}\n`);
      resolve(ok);
    });
  });
}

async function main(): Promise<void> {
  const contract = await Promise.all(first.map(run));
  const rest = contract.every(Boolean) ? await Promise.all(together.map(run)) : [];
  process.exitCode = contract.every(Boolean) && rest.length === together.length && rest.every(Boolean) ? 0 : 1;
}

void main();
