import { checkRegex } from '../src/regex/safety';

describe('result regex safety', () => {
  it.each([
    ['(a+)+', 'nested quantifiers'],
    ['(\\w*x)*', 'nested quantifiers'],
    ['(?:a{1,30})+', 'nested quantifiers'],
    ['((ab)*c)+', 'nested quantifiers'],
    ['(a|a)*', 'alternatives'],
    ['(a|ab)+', 'alternatives'],
    ['(\\d|\\w)+', 'alternatives'],
    ['(.|x){2,}', 'alternatives'],
    ['([a-f]|[0-9a])*', 'alternatives'],
    ['(a|b?)*', 'empty text'],
    ['(?:a|(?=x))+', 'empty text'],
    ['(x|\\1)*', 'empty text'],
  ])('refuses %s', (source, reason) => {
    expect(checkRegex(source).unsafe).toContain(reason);
  });

  it.each([
    '.*', '(?<=cmd: ).*', '(-?[\\d.]+)', '(a|b)*', '(?:foo|bar)+', '(\\d{1,3}\\.){3}\\d{1,3}', '(a+){2}', '[^"]*"',
    '(?<name>\\w+)=(\\w+)', '(a|[^a])*', '(?:\\s|x)+',
  ])('accepts %s', (source) => {
    expect(checkRegex(source)).toEqual({});
  });

  it('reports the engine message for a regex that does not compile', () => {
    expect(checkRegex('\\').compileError).toMatch(/at end of pattern/);
    expect(checkRegex('(?<=').compileError).toBeDefined();
  });

  it('falls back to the star-height check when regjsparser cannot parse a regex V8 takes', () => {
    jest.isolateModules(() => {
      jest.doMock('regjsparser', () => ({
        parse: () => {
          throw new Error('unsupported');
        },
      }));
      const isolated = jest.requireActual<typeof import('../src/regex/safety')>('../src/regex/safety');
      expect(isolated.checkRegex('(a|ab)*')).toEqual({});
      expect(isolated.checkRegex('(a+)+')).toEqual({ unsafe: 'nested quantifiers' });
    });
  });
});
