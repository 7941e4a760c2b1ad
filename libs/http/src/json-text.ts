import { MalformedBodyError } from './http-error';

/** Thrown inside the scanner to unwind with the offending offset. */
class SyntaxAt {
  constructor(readonly at: number) {}
}

const isDigit = (ch: string): boolean => ch >= '0' && ch <= '9' && ch.length === 1;

/** Deeper than this we stop locating and report without a position (no stack overflow). */
const MAX_DEPTH = 1000;

/**
 * Offset of the first syntax error in `text`, or -1 when there is none or it is too deep
 * to find. V8 names a position for most errors but not for "Unexpected token"; this
 * scanner gives every malformed body a position, and only runs once parsing has failed.
 */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const fail = (): never => {
    throw new SyntaxAt(i);
  };
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text.charAt(i))) i++;
  };
  const expect = (ch: string): void => {
    ws();
    if (text[i] !== ch) fail();
    i++;
  };
  const literal = (word: string): void => {
    for (const ch of word) {
      if (text[i] !== ch) fail();
      i++;
    }
  };
  const digits = (): void => {
    if (!isDigit(text.charAt(i))) fail();
    while (isDigit(text.charAt(i))) i++;
  };
  // Step by step rather than one regex, so the offset lands on the exact bad character.
  const number = (): void => {
    if (text[i] === '-') i++;
    if (text[i] === '0') i++;
    else digits();
    if (text[i] === '.') {
      i++;
      digits();
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      digits();
    }
  };
  const string = (): void => {
    i++;
    for (;;) {
      const c = text.charCodeAt(i);
      if (i >= text.length || c < 0x20) fail();
      i++;
      if (c === 0x22) return;
      if (c !== 0x5c) continue;
      const e = text[i];
      if (e === 'u') {
        i++;
        for (let k = 0; k < 4; k++, i++) if (!/[0-9a-fA-F]/.test(text.charAt(i))) fail();
      } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i++;
      else fail();
    }
  };
  const members = (close: string, member: () => void): void => {
    i++;
    ws();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      member();
      ws();
      if (text[i] === close) {
        i++;
        return;
      }
      expect(',');
    }
  };
  const value = (depth: number): void => {
    if (depth > MAX_DEPTH) throw new SyntaxAt(-1);
    ws();
    const c = text[i];
    if (c === '{') {
      return members('}', () => {
        ws();
        if (text[i] !== '"') fail();
        string();
        expect(':');
        value(depth + 1);
      });
    }
    if (c === '[') return members(']', () => value(depth + 1));
    if (c === '"') return string();
    if (c === 't') return literal('true');
    if (c === 'f') return literal('false');
    if (c === 'n') return literal('null');
    if (c === '-' || isDigit(c ?? '')) return number();
    fail();
  };
  try {
    value(0);
    ws();
    if (i < text.length) fail();
    return -1;
  } catch (e) {
    if (e instanceof SyntaxAt) return e.at;
    throw e;
  }
}

/** V8's reason without its position and without the echoed input snippet. */
function reasonOf(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return msg
    .replace(/,\s*".*" is not valid JSON$/s, '')
    .replace(/ at position \d+.*$/s, '')
    .replace(/ in JSON$/, '')
    .replace(/ of JSON input$/, ' of input')
    // The offending character can be a raw line break; show it escaped.
    .replace(/[^ -\uffff]/g, (c) => JSON.stringify(c).slice(1, -1));
}

function where(text: string, at: number): string {
  if (at < 0) return '';
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  const column = at - before.lastIndexOf('\n');
  return ` at position ${at} (line ${line}, column ${column})`;
}

/**
 * JSON.parse that fails with a 400 MALFORMED_BODY naming what was parsed, the reason
 * and where: `Malformed JSON body: Expected ',' or '}' after property value at position 6 (line 1, column 7)`.
 */
export function parseJsonText(text: string, what = 'JSON body'): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new MalformedBodyError(`Malformed ${what}: ${reasonOf(err)}${where(text, jsonErrorOffset(text))}`);
  }
}
