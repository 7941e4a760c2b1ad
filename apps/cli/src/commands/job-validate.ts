import type { Command } from 'commander';
import { validate, type Issue, type ValidationResult } from '@ocg/job-definition';
import { loadDefinition } from '../definition-file';

interface ValidateOptions {
  file: string;
  json?: boolean;
}

/** Adds `validate --file <path> [--json]` to the `job` command: checks a definition without posting it. */
export function registerJobValidate(job: Command): void {
  job
    .command('validate')
    .description('check a job definition file without posting it')
    .requiredOption('--file <path>', 'job definition file (JSON)')
    .option('--json', 'print the result as JSON')
    .action((options: ValidateOptions) => runValidate(options));
}

function runValidate({ file, json }: ValidateOptions): void {
  const loaded = loadDefinition(file);
  const result: ValidationResult = 'problem' in loaded ? { valid: false, errors: [{ path: '', message: loaded.problem }], warnings: [] } : validate(loaded.definition);
  if (!result.valid) process.exitCode = 1;
  if (json) {
    process.stdout.write(`${JSON.stringify({ file, ...result }, null, 2)}\n`);
  } else if ('problem' in loaded) {
    process.stderr.write(`${loaded.problem}\n`);
  } else {
    process.stdout.write(report(file, result));
  }
}

function report(file: string, result: ValidationResult): string {
  const line = (label: string) => (issue: Issue) => `${label.padEnd(8)}${issue.path || '(root)'}: ${issue.message}\n`;
  const lines = [...result.errors.map(line('error')), ...result.warnings.map(line('warning'))];
  const counts = `${plural(result.errors.length, 'error')}, ${plural(result.warnings.length, 'warning')}`;
  return `${lines.join('')}${file}: ${result.valid ? 'valid' : 'invalid'} (${counts})\n`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
