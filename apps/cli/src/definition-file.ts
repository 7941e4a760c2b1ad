/**
 * Reading a job definition file: the exact text (what the CAS stores, so its
 * id is the file's IPFS id) and the parsed JSON, or a problem a person can
 * act on: the file cannot be read, or where its JSON breaks.
 */
import { readFileSync } from 'node:fs';
import { jsonErrorOffset } from '@ocg/http';

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
    return { problem: `invalid JSON in ${file}${where(text)}: ${firstClause((error as Error).message)}` };
  }
}

/** V8 quotes the whole input after the reason ("Unexpected token 'x', "…" is not valid JSON"): keep the reason. */
function firstClause(message: string): string {
  return message.split(/, (?:\.\.\.)?"|\n/)[0].replace(/ in JSON at position \d+.*$/, '');
}

/** " at line L, column C" of the first syntax error, as jsonc-parser locates it (through @ocg/http). */
function where(text: string): string {
  const json = text.replace(/^\uFEFF/, '');
  const offset = jsonErrorOffset(json);
  if (offset < 0) return '';
  const before = json.slice(0, offset);
  const line = before.split('\n').length;
  return ` at line ${line}, column ${offset - before.lastIndexOf('\n')}`;
}
