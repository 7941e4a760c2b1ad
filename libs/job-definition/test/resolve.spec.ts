import { LiteralResolutionError, normalize, resolveLiterals, resolveOpLiterals, unresolvedLiterals, type JobDefinition, type NormalizedRunOp } from '../src';
import { job, loadExample, run } from './helpers';

const literalsExample = () => normalize(loadExample<JobDefinition>('nosana-cli__job-examples__job-literals.json'));

const setterResults = {
  cmd: ['--model', 'deepseek', '--port', '9000'],
  env_json: '{"MODEL": "deepseek", "HOST": "h.example"}',
  expose_json: '[{"port": 9000, "health_checks": [{"type": "http", "path": "/v1/models", "method": "GET", "expected_status": 200, "continuous": false}]}]',
  entrypoint: [],
  resources_json: '[{"type": "Ollama", "model": "gpt-oss:20b"}]',
};

describe('resolveOpLiterals', () => {
  it('resolves one op exactly as resolveLiterals resolves it within the whole definition', () => {
    const definition = literalsExample();
    const context = { host: 'h', job: 'job1', results: { 'literal-setter': setterResults } };
    const all = resolveLiterals(definition, context);
    definition.ops.forEach((_, i) => expect(resolveOpLiterals(definition, i, context)).toEqual(all.ops[i]));
  });
});

describe('resolveLiterals', () => {
  it('resolves node-time globals and leaves results that do not exist yet', () => {
    const resolved = resolveLiterals(literalsExample(), { host: 'job1.node.example', job: 'job1' });
    const setter = resolved.ops[0] as NormalizedRunOp;
    expect(setter.args.cmd?.[0]).toContain("echo 'host: job1.node.example'");
    expect(setter.args.cmd?.[0]).toContain('cmd: deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B');
    expect(unresolvedLiterals(setter)).toEqual([]);
    expect(unresolvedLiterals(resolved.ops[1])).toEqual([
      '%%ops.literal-setter.results.cmd%%',
      '%%ops.literal-setter.results.entrypoint%%',
      '%%ops.literal-setter.results.env_json%%',
      '%%ops.literal-setter.results.expose_json%%',
      '%%ops.literal-setter.results.resources_json%%',
    ]);
  });

  it('splices results, spreads JSON and drops the empty entrypoint once results exist', () => {
    const resolved = resolveLiterals(literalsExample(), { host: 'h', results: { 'literal-setter': setterResults } });
    const op = resolved.ops[1] as NormalizedRunOp;
    expect(op.args.cmd).toEqual(['hello', '--model', 'deepseek', '--port', '9000', 'test test']);
    expect(Object.entries(op.args.env)).toEqual([
      ['Random_Var', 'static_value'],
      ['MODEL', 'deepseek'],
      ['HOST', 'h.example'],
      ['ANOTHER_VAR', 'another_static_value'],
    ]);
    expect(op.args.expose).toEqual([
      { port: 1000, type: 'api', health_checks: [] },
      { port: 9000, type: 'api', health_checks: [{ type: 'http', path: '/v1/models', method: 'GET', expected_status: 200, continuous: false, headers: {} }] },
    ]);
    expect(op.args.entrypoint).toBeNull();
    expect(op.args.resources).toEqual([
      { type: 'Ollama', model: 'gpt-oss:20b' },
      { type: 'S3', url: 'https://models.nosana.io/test', target: '/data-models/' },
    ]);
    expect(unresolvedLiterals(resolved)).toEqual([]);
    expect(normalize(resolved)).toEqual(resolved);
  });

  it('joins several values in a string and parses chunked spreads once', () => {
    const definition = normalize(
      job([
        run('s', {}, { group: 'one' }, { results: { words: 'w', parts: 'p' } }),
        run('a', { env: { ALL: 'x %%ops.s.results.words%% y' }, expose: { __spread__: '%%ops.s.results.parts%%', chunked: true } }, { group: 'two' }),
      ]) as unknown as JobDefinition,
    );
    const resolved = resolveLiterals(definition, { results: { s: { words: ['1', '2'], parts: ['[80, ', '81]'] } } });
    const op = resolved.ops[1] as NormalizedRunOp;
    expect(op.args.env).toEqual({ ALL: 'x 1 2 y' });
    expect(op.args.expose.map((e) => ('port' in e ? e.port : e))).toEqual([80, 81]);
  });

  it('throws a LiteralResolutionError naming the path when a spread is not JSON or not valid there', () => {
    const bad = { ...setterResults, expose_json: 'not json', resources_json: '[{"type": "GCS"}]' };
    let caught: unknown;
    try {
      resolveLiterals(literalsExample(), { results: { 'literal-setter': bad } });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(LiteralResolutionError);
    expect((caught as LiteralResolutionError).issues).toEqual([
      { path: '/ops/1/args/expose/1', message: expect.stringMatching(/^%%ops.literal-setter.results.expose_json%% is not JSON: /) },
      { path: '/ops/1/args/resources/0/type', message: 'from %%ops.literal-setter.results.resources_json%%: must be "S3", "HF" or "Ollama"' },
    ]);
  });

  it('refuses an env spread that is not an object of strings', () => {
    const bad = { ...setterResults, env_json: '{"N": 1}' };
    expect(() => resolveLiterals(literalsExample(), { results: { 'literal-setter': bad } })).toThrow(
      '/ops/1/args/env/__spread__: %%ops.literal-setter.results.env_json%% must resolve to a JSON object of strings',
    );
  });
});
