import { createScanner, visit, type ParseError } from 'jsonc-parser';
import { MalformedBodyError } from './http-error';

/** jsonc-parser's ParseErrorCode and SyntaxKind values used here (its d.ts declares them as const enums). */
const InvalidSymbol = 1;
const UnexpectedEndOfString = 12;
const UnexpectedEndOfNumber = 13;
const InvalidUnicode = 14;
const InvalidEscapeCharacter = 15;
const InvalidCharacter = 16;
const TRIVIA = 15;
const EOF = 17;

/** Whitespace jsonc-parser skips that JSON does not allow (vertical tab, form feed, Unicode spaces, BOM). */
const NOT_JSON_SPACE = /[^ \t\n\r]/;

/**
 * Where, inside the token jsonc-parser flagged, the first character that
 * cannot continue it is: the parser reports a bad token as a whole ("tru",
 * a string with a bad escape); V8 and a person want the character.
 */
function inToken(text: string, error: ParseError): number {
  const { offset, length } = error;
  const token = text.slice(offset, offset + length);
  switch (error.error) {
    case InvalidSymbol:
      return offset + keywordMismatch(token);
    case UnexpectedEndOfNumber:
      return offset + length;
    case UnexpectedEndOfString:
    case InvalidEscapeCharacter:
    case InvalidUnicode:
    case InvalidCharacter:
      return offset + stringProblem(token);
    default:
      return offset;
  }
}

/** "tru}" fails at "}", "nul" at its end, "-x" after the minus, "abc" at once. */
function keywordMismatch(token: string): number {
  if (token.startsWith('-')) return 1;
  const word = ['true', 'false', 'null'].find((w) => w[0] === token[0]);
  if (!word) return 0;
  let i = 0;
  while (i < token.length && token[i] === word[i]) i++;
  return i;
}

/** The first control character, bad escape or bad `\u` digit in a string token (offset in the token). */
function stringProblem(token: string): number {
  for (let i = 1; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (c < 0x20) return i;
    if (token[i] !== '\\') continue;
    const e = token[++i];
    if (e === 'u') {
      for (let k = 1; k <= 4; k++) if (!/[0-9a-fA-F]/.test(token.charAt(i + k))) return i + k;
      i += 4;
    } else if (e === undefined || !'"\\/bfnrt'.includes(e)) return i;
  }
  return token.length;
}

/** The first stretch of whitespace jsonc-parser took that JSON does not. */
function badSpace(text: string): number {
  const scanner = createScanner(text, false);
  for (let kind = scanner.scan(); kind !== EOF; kind = scanner.scan()) {
    if (kind !== TRIVIA) continue;
    const at = scanner.getTokenValue().search(NOT_JSON_SPACE);
    if (at >= 0) return scanner.getTokenOffset() + at;
  }
  return -1;
}

type Expecting = 'value' | 'key' | 'next';

/** jsonc-parser's errors at the first failing offset, each with what was expected there (its errors do not say). */
function firstErrors(text: string): Array<ParseError & { expecting: Expecting }> {
  const found: Array<ParseError & { expecting: Expecting }> = [];
  const open: string[] = [];
  let expecting: Expecting = 'value';
  const close = () => {
    open.pop();
    expecting = 'next';
  };
  visit(
    text,
    {
      onObjectBegin: () => void (open.push('{'), (expecting = 'key')),
      onArrayBegin: () => void (open.push('['), (expecting = 'value')),
      onObjectEnd: close,
      onArrayEnd: close,
      onLiteralValue: () => void (expecting = 'next'),
      onSeparator: (sep) => void (expecting = sep === ':' || open[open.length - 1] === '[' ? 'value' : 'key'),
      onError: (error, offset, length) => {
        if (found.length === 0 || found[0].offset === offset) found.push({ error, offset, length, expecting });
      },
    },
    { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false },
  );
  return found;
}

/**
 * Offset of the first syntax error in `text`, or -1 when there is none or it
 * is too deep to find (jsonc-parser recurses per level). The parser finds the
 * token; V8 names a position for most errors but not for "Unexpected token".
 */
export function jsonErrorOffset(text: string): number {
  let errors: Array<ParseError & { expecting: Expecting }>;
  try {
    errors = firstErrors(text);
  } catch (err) {
    if (err instanceof RangeError) return -1;
    throw err;
  }
  // A token can be both malformed and misplaced ('1 "abc'): the misplacement, at its start, comes first.
  const token = errors.length > 0 ? Math.min(...errors.map((e) => (e.error === InvalidSymbol && e.expecting !== 'value' ? e.offset : inToken(text, e)))) : -1;
  const space = badSpace(text);
  return space >= 0 && (token < 0 || space < token) ? space : token;
}

/** V8's reason without its position and without the echoed input snippet. */
function reasonOf(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return (
    msg
      .replace(/,\s*".*" is not valid JSON$/s, '')
      .replace(/ at position \d+.*$/s, '')
      .replace(/ in JSON$/, '')
      .replace(/ of JSON input$/, ' of input')
      // The offending character can be a raw line break; show it escaped.
      .replace(/[^ -\uffff]/g, (c) => JSON.stringify(c).slice(1, -1))
  );
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
