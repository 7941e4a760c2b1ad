import { checkRegex, compileResultRegex } from '../src';
import { childPath, comparePaths, escapeSegment, setMember } from '../src/pointer';

const valueOf = (source: string, text: string): string | null => {
  const { regex, valueGroup } = compileResultRegex(source);
  const m = regex.matcher(text);
  return m.find() ? m.group(valueGroup) : null;
};

describe('JSON pointers', () => {
  it('escapes ~ and / in segments (RFC 6901), in that order', () => {
    expect(['plain', 'a/b', 'a~b', '~/', 'a~1', 3].map((s) => escapeSegment(s))).toEqual(['plain', 'a~1b', 'a~0b', '~0~1', 'a~01', '3']);
    expect(childPath('/ops', 0, 'x/y')).toBe('/ops/0/x~1y');
  });

  it('orders pointers in document order, indexes as numbers, parents first', () => {
    expect(comparePaths('/ops/2', '/ops/10')).toBeLessThan(0);
    expect(comparePaths('/ops/10', '/ops/2')).toBeGreaterThan(0);
    expect(comparePaths('/ops/a', '/ops/b')).toBe(-1);
    expect(comparePaths('/ops/b', '/ops/a')).toBe(1);
    expect(comparePaths('/ops', '/ops/0')).toBeLessThan(0);
    expect(comparePaths('/ops/0', '/ops')).toBeGreaterThan(0);
    expect(comparePaths('/ops/1', '/ops/1')).toBe(0);
    // an empty segment is a key, not index 0
    expect(comparePaths('/ops/', '/ops/0')).toBe(-1);
    expect(comparePaths('/ops/0', '/ops/')).toBe(1);
  });

  it('sets a "__proto__" member as plain data, leaving the prototype alone', () => {
    const target: Record<string, unknown> = {};
    setMember(target, '__proto__', { polluted: true });
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(target, '__proto__')).toEqual({ value: { polluted: true }, enumerable: true, writable: true, configurable: true });
    expect(JSON.stringify(target)).toBe('{"__proto__":{"polluted":true}}');
  });
});

describe('result regexes on RE2', () => {
  it('takes the first group as the value, else the whole match', () => {
    expect(valueOf('v=(\\d+)', 'x v=42 y')).toBe('42');
    expect(valueOf('\\d+', 'x 42 y')).toBe('42');
  });

  it('reads a leading lookbehind as a prefix outside the value, the author groups after it', () => {
    expect(valueOf('(?<=v=)\\d+', 'v=42')).toBe('42');
    expect(valueOf('(?<=v=)(\\d)\\d', 'v=42')).toBe('4');
    expect(valueOf('(?<=\\))x', ')x')).toBe('x');
    expect(valueOf('(?<=[)])x', ')x')).toBe('x');
    expect(valueOf('(?<=a)(b|c)', 'ac')).toBe('c');
  });

  it('refuses a lookbehind that is not the whole prefix or is not closed', () => {
    expect(checkRegex('(?<=a)b|c').error).toMatch(/RE2 does not support/);
    expect(checkRegex('(?<=abc').error).toMatch(/does not compile/);
    expect(checkRegex('x(?=y)').error).toMatch(/RE2 does not support/);
  });

  it('gives the same verdict object for a pattern seen before', () => {
    const source = `cached-${Date.now()}`;
    expect(checkRegex(source)).toBe(checkRegex(source));
  });
});
