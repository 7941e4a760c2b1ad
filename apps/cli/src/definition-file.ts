/**
 * Reading a job definition file: the exact text (what the CAS stores, so its
 * id is the file's IPFS id) and the parsed JSON, or a problem a person can
 * act on: the file cannot be read, or where its JSON breaks.
 */
import { readFileSync } from 'node:fs';

export type LoadedDefinition = { definition: unknown; text: string } | { problem: string };

export function loadDefinition(file: string): LoadedDefinition {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : message;
    return { problem: `cannot read ${file}: ${reason}` };
  }
  try {
    const json = text.replace(/^\uFEFF/, '');
    return { definition: JSON.parse(json), text: json };
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
