import fc from 'fast-check';
import { encodeMultipart, fieldValue, isSecretName, loggableUrl, parseJsonText, redactDeep, scrubSecrets, tsoaNameToPointer } from '../src';
import { jsonErrorOffset } from '../src/json-text';

function v8Position(text: string): number | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (err) {
    const m = / at position (\d+)/.exec((err as Error).message);
    if (m) return Number(m[1]);
    return /end of JSON input/.test((err as Error).message) ? text.length : undefined;
  }
}

describe('JSON error positions', () => {
  it.each([
    ['{"a":1,}', 7],
    ['{"a":1', 6],
    ['abc', 0],
    ['{"a": tru}', 9],
    ['[1,2', 4],
    ['{"a":"x"} x', 10],
    ['{"a":"b\\q"}', 8],
    ['', 0],
    ['{"a":01}', 6],
    ['"\u0001"', 1],
    // Whitespace jsonc-parser skips but JSON does not allow.
    ['{"a":1}\f', 7],
    ['[\u00a01]', 1],
    // A malformed token where a property name or the end was expected: its start.
    ['{tru}', 1],
    ['1 -', 2],
    ['[-]', 2],
  ])('locates the error in %j at %i', (text, at) => {
    expect(jsonErrorOffset(text)).toBe(at);
  });

  it('agrees with V8 wherever V8 names a position, for broken variants of valid JSON', () => {
    const broken = fc.tuple(fc.json(), fc.nat(), fc.constantFrom('', '}', ']', ',', ':', '"', 'x', '\\', '-', '.', ' ')).map(([json, i, ch]) => {
      const at = json.length === 0 ? 0 : i % json.length;
      return json.slice(0, at) + ch + json.slice(at + 1);
    });
    fc.assert(
      fc.property(broken, (text) => {
        const expected = v8Position(text);
        if (expected !== undefined) expect(jsonErrorOffset(text)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('reports valid JSON as having no error', () => {
    fc.assert(fc.property(fc.json(), (text) => expect(jsonErrorOffset(text)).toBe(-1)));
  });

  it('gives up on locating (without overflowing the stack) in absurdly deep JSON', () => {
    expect(jsonErrorOffset('['.repeat(100000))).toBe(-1);
    expect(() => parseJsonText('['.repeat(100000))).toThrow(/Malformed JSON body: Unexpected end of input$/);
  });
});

describe('multipart field values', () => {
  it.each([
    ['42', 42],
    ['-1.5e3', -1500],
    ['true', true],
    ['null', null],
    ['[1,"a"]', [1, 'a']],
    ['{"a":{"b":[]}}', { a: { b: [] } }],
    ['"quoted"', '"quoted"'],
    ['hello', 'hello'],
    ['', ''],
    [' 42', ' 42'],
    ['nullable', 'nullable'],
    ['{not json', '{not json'],
  ])('reads %j as %j', (text, value) => {
    expect(fieldValue('f', text, 'text/plain')).toEqual(value);
  });
});

describe('multipart encoding', () => {
  it('uses a boundary that appears in no part', () => {
    const { contentType, body } = encodeMultipart({ a: 'x', b: [1] });
    const boundary = contentType.split('boundary=')[1]!;
    expect(body.toString().split(`--${boundary}`)).toHaveLength(4);
    expect(body.toString().endsWith(`--${boundary}--\r\n`)).toBe(true);
  });

  it('escapes quotes and line breaks in member names', () => {
    const { body } = encodeMultipart({ 'a"b\nc': 1 });
    expect(body.toString()).toContain('name="a%22b%0Ac"');
  });
});

describe('tsoa names to JSON pointers', () => {
  it.each([
    ['requestBody.scopes.$0', '/scopes/0'],
    ['body.name', '/name'],
    ['requestBody', ''],
    ['id', '/id'],
    ['requestBody.a~b', '/a~0b'],
  ])('maps %s to %j', (name, pointer) => {
    expect(tsoaNameToPointer(name)).toBe(pointer);
  });
});

describe('secret hygiene', () => {
  it.each(['password', 'apiKey', 'api_key', 'x-api-key', 'key', 'secret', 'clientSecret', 'token', 'accessToken', 'Authorization', 'cookie', 'privateKey'])(
    'treats %s as secret',
    (name) => expect(isSecretName(name)).toBe(true),
  );

  it.each(['name', 'keyId', 'tokens_used', 'status', 'idempotencyKeyHash'])('treats %s as loggable', (name) => {
    expect(isSecretName(name)).toBe(false);
  });

  it('redacts at any depth without touching the original', () => {
    const input = { a: [{ b: { password: 'p' } }], keep: 1 };
    expect(redactDeep(input)).toEqual({ a: [{ b: { password: '[Redacted]' } }], keep: 1 });
    expect(input.a[0]!.b.password).toBe('p');
  });

  it('survives cycles', () => {
    const a: Record<string, unknown> = { name: 'a' };
    a['self'] = a;
    expect(redactDeep(a)).toEqual({ name: 'a', self: '[Truncated]' });
  });

  it('scrubs credentials from connection strings and key=value text', () => {
    expect(scrubSecrets('redis://:pw@cache:6379 and postgres://u:p@db/x password=abc sslmode=require')).toBe(
      'redis://[Redacted]@cache:6379 and postgres://[Redacted]@db/x password=[Redacted] sslmode=require',
    );
  });

  it('hides secret-looking query parameters in logged URLs', () => {
    expect(loggableUrl('/jobs?limit=5&api_key=k&signature=s&x=1')).toBe('/jobs?limit=5&api_key=[Redacted]&signature=[Redacted]&x=1');
  });
});
