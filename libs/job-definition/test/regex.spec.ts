import { checkRegex, compileResultRegex } from '../src/regex/re2';
import { validate } from '../src';
import { job, run } from './helpers';

describe('result regexes (RE2)', () => {
  it.each(['.*', '(-?[\\d.]+)', '(a|b)*', '(\\d{1,3}\\.){3}\\d{1,3}', '(?<name>\\w+)=(\\w+)', '(a+)+', '(a|ab)*', '(\\w*x)*'])(
    'accepts %s: linear-time matching makes nested quantifiers harmless',
    (source) => {
      expect(checkRegex(source)).toEqual({});
    },
  );

  // The classic catastrophic-backtracking patterns: a backtracking engine takes exponential (or
  // high polynomial) time on a near-miss text; RE2 stays linear, so they are safe and accepted.
  it.each([
    ['^(a+)+$', `${'a'.repeat(3000)}!`],
    ['(a|b+)*$', `${'ab'.repeat(1500)}!`],
    ['(a*)*$', `${'a'.repeat(3000)}!`],
    ['(a|a)*$', `${'a'.repeat(3000)}!`],
    ['(.*a){20}', `${'a'.repeat(19)}${'b'.repeat(3000)}`],
  ])('accepts the classic ReDoS pattern %s and matches a near-miss text in linear time', (source, text) => {
    expect(checkRegex(source)).toEqual({});
    const { regex } = compileResultRegex(source);
    const started = Date.now();
    regex.matcher(text).find();
    // A backtracking engine needs far longer than this (2^n steps for n = 3000 characters).
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it.each([
    ['\\', 'does not compile'],
    ['(', 'does not compile'],
    ['(a)\\1', 'backreferences, lookahead or lookbehind'],
    ['a(?<=cmd: ).*', 'backreferences, lookahead or lookbehind'],
    ['(?<!x)y', 'backreferences, lookahead or lookbehind'],
    ['x(?=y)', 'backreferences, lookahead or lookbehind'],
  ])('refuses %s', (source, reason) => {
    expect(checkRegex(source).error).toContain(reason);
  });

  it("gives RE2's own reason, after what kind of problem it is", () => {
    expect(checkRegex('(x')).toEqual({ error: 'does not compile: error parsing regexp: missing closing ): `(x`' });
    expect(checkRegex('(b)\\1')).toEqual({
      error:
        'uses syntax RE2 does not support (results run on a linear-time engine without backreferences, lookahead or lookbehind other than a leading (?<=...)): error parsing regexp: invalid escape sequence: `\\1`',
    });
  });

  it("matches a leading lookbehind as a prefix outside the value, keeping the author's first group", () => {
    const plain = compileResultRegex('(?<=cmd: ).*');
    const m = plain.regex.matcher('x cmd: run it');
    expect(m.find() && m.group(plain.valueGroup)).toBe('run it');
    const grouped = compileResultRegex('(?<=v)=(\\d+)');
    const g = grouped.regex.matcher('v=42');
    expect(g.find() && g.group(grouped.valueGroup)).toBe('42');
  });

  it('makes a regex that cannot compile an error at validation, naming the result', () => {
    const definition = job([run('a', {}, undefined, { results: { ok: 'v=(\\d+)', bad: { regex: 'x(?=y)', logType: ['stdout'] } } })]);
    const result = validate(definition);
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual([{ path: '/ops/0/results/bad/regex', message: expect.stringContaining('RE2') }]);
  });
});
