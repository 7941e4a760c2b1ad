import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { validate, type Issue, type ValidationResult } from '@ocg/job-definition';

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
  const loaded = load(file);
  const result: ValidationResult = 'problem' in loaded
    ? { valid: false, errors: [{ path: '', message: loaded.problem }], warnings: [] }
    : validate(loaded.definition);
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

function load(file: string): { definition: unknown } | { problem: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : message;
    return { problem: `cannot read ${file}: ${reason}` };
  }
  try {
    return { definition: JSON.parse(text.replace(/^\uFEFF/, '')) };
  } catch (error) {
    return { problem: `invalid JSON in ${file}${where(text, error as Error)}: ${firstClause((error as Error).message)}` };
  }
}

/** V8 quotes the whole input after the reason ("Unexpected token 'x', "…" is not valid JSON"): keep the reason. */
function firstClause(message: string): string {
  return message.split(/, (?:\.\.\.)?"|\n/)[0].replace(/ in JSON at position \d+.*$/, '');
}

/** " at line L, column C" of the first syntax error (V8 gives a position only for some errors). */
function where(text: string, error: Error): string {
  const given = /at position (\d+)/.exec(error.message);
  const offset = given ? Number(given[1]) : firstErrorOffset(text.replace(/^\uFEFF/, ''));
  if (offset === undefined) return '';
  const before = text.replace(/^\uFEFF/, '').slice(0, offset);
  const line = before.split('\n').length;
  return ` at line ${line}, column ${offset - before.lastIndexOf('\n')}`;
}

/** A JSON number, literal or string (string characters: anything from space up but `"` and `\`). */
const SCALAR = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|"(?:[ !#-[\]-\u{10FFFF}]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/uy;
const SPACE = /[ \t\n\r]*/y;

/** Offset where a JSON scanner first fails (iterative, so any depth). */
function firstErrorOffset(text: string): number | undefined {
  const stack: string[] = [];
  let i = 0;
  const skip = (): void => {
    SPACE.lastIndex = i;
    SPACE.exec(text);
    i = SPACE.lastIndex;
  };
  const token = (re: RegExp): boolean => {
    re.lastIndex = i;
    if (!re.test(text)) return false;
    i = re.lastIndex;
    return true;
  };
  let expect: 'value' | 'key' | 'after' = 'value';
  for (skip(); ; skip()) {
    const c = text[i];
    if (expect === 'value') {
      if (c === '{' || c === '[') {
        stack.push(c);
        i++;
        skip();
        if (text[i] === (c === '{' ? '}' : ']')) { stack.pop(); i++; expect = 'after'; } else expect = c === '{' ? 'key' : 'value';
      } else if (token(SCALAR)) expect = 'after';
      else return i;
    } else if (expect === 'key') {
      if (c !== '"' || !token(SCALAR)) return i;
      skip();
      if (text[i++] !== ':') return i - 1;
      expect = 'value';
    } else {
      const top = stack[stack.length - 1];
      if (top === undefined) return i < text.length ? i : undefined;
      if (c === ',') { i++; expect = top === '{' ? 'key' : 'value'; }
      else if (c === (top === '{' ? '}' : ']')) { stack.pop(); i++; }
      else return i;
    }
  }
}
