import {
  LiteralResolutionError,
  jobDefinitionJsonSchema,
  jobDefinitionOpenApiSchemas,
  normalize,
  resolveLiterals,
  resolveOpLiterals,
  validate,
  validateOps,
  type JobDefinition,
  type NormalizedJobDefinition,
  type NormalizedRunOp,
} from '../src';
import { defValidator } from '../src/schema/compiled';
import { PATTERN_MESSAGES } from '../src/schema/patterns';
import { quote } from '../src/text';
import { job, run, volume } from './helpers';

type Loose = Record<string, unknown>;
const firstRun = (definition: Loose) => normalize(definition as unknown as JobDefinition).ops[0] as NormalizedRunOp;

describe('normalize keeps what the node needs', () => {
  it('keeps registry credentials', () => {
    const authentication = { docker: { username: 'u', password: 'p', server: 'registry.example' } };
    expect(firstRun(job([run('a', { authentication })])).args.authentication).toEqual(authentication);
  });

  it('keeps a remove-if-empty list whose spread the node has still to resolve', () => {
    const resources = ['__remove-if-empty__', { __spread__: '%%ops.s.results.r%%' }];
    expect(firstRun(job([run('a', { resources })])).args.resources).toEqual(resources);
  });

  it('drops the marker from a resource list once nothing in it waits for the node', () => {
    const resources = ['__remove-if-empty__', { type: 'Ollama', model: 'gemma' }];
    expect(firstRun(job([run('a', { resources })])).args.resources).toEqual([{ type: 'Ollama', model: 'gemma' }]);
    expect(firstRun(job([run('a', { resources: ['__remove-if-empty__'] })])).args.resources).toEqual([]);
  });

  it('resolves only variables: a variable named like a node-time global leaves that global alone', () => {
    const definition = job([run('a', { env: { J: '%%global.job%%', V: '%%global.variables.job%%' } })], { global: { variables: { job: 'mine' } } });
    expect(firstRun(definition).args.env).toEqual({ J: '%%global.job%%', V: 'mine' });
  });
});

describe('resolving literals on the node', () => {
  const handMade = (args: Loose): NormalizedJobDefinition =>
    normalize({ version: '0.1', type: 'container', ops: [{ type: 'container/run', id: 'a', args: { image: 'x', ...args } }] } as unknown as JobDefinition);

  it('resolves post-time literals still present in a definition, and leaves what it cannot', () => {
    const definition = handMade({});
    (definition.ops[0] as NormalizedRunOp).args.env = {
      V: '%%global.variables.M%%',
      H: '%%ops.a.host%%',
      X: '%%ops.b.host%%',
      N: '%%global.nodes%%',
      U: '%%global.variables.U%%',
    };
    definition.global.variables = { M: 'gemma' };
    expect((resolveLiterals(definition, {}).ops[0] as NormalizedRunOp).args.env).toEqual({
      V: 'gemma',
      H: 'a',
      X: '%%ops.b.host%%',
      N: '%%global.nodes%%',
      U: '%%global.variables.U%%',
    });
  });

  it('takes a spread of one JSON object as one entry', () => {
    const definition = handMade({ expose: [{ __spread__: '%%ops.s.results.e%%' }] });
    const resolved = resolveLiterals(definition, { results: { s: { e: '{"port": 8080}' } } });
    expect((resolved.ops[0] as NormalizedRunOp).args.expose).toEqual([{ port: 8080, type: 'api', health_checks: [] }]);
  });

  it('leaves a spread marker without a literal as it is, and refuses an env spread of a JSON array', () => {
    const definition = handMade({ expose: [{ __spread__: 'not a literal' }], env: { __spread__: '%%ops.s.results.env%%' } });
    const resolved = resolveLiterals(definition, {});
    expect((resolved.ops[0] as NormalizedRunOp).args.expose).toEqual([{ __spread__: 'not a literal', chunked: false }]);
    expect(() => resolveLiterals(definition, { results: { s: { env: '["a"]' } } })).toThrow(
      '/ops/0/args/env/__spread__: %%ops.s.results.env%% must resolve to a JSON object of strings',
    );
  });

  it('throws for one op whose spread is not JSON', () => {
    const definition = handMade({ expose: [{ __spread__: '%%ops.s.results.e%%' }] });
    expect(() => resolveOpLiterals(definition, 0, { results: { s: { e: 'not json' } } })).toThrow(LiteralResolutionError);
    expect(() => resolveOpLiterals(definition, 0, { results: { s: { e: 'not json' } } })).toThrow(/^\/ops\/0\/args\/expose\/0: %%ops.s.results.e%% is not JSON/);
  });
});

describe('messages', () => {
  it('names an op without id by its pointer', () => {
    const noId = (name: string, execution?: Loose) => ({ type: 'container/create-volume', args: { name }, ...(execution ? { execution } : {}) });
    const later = validate(job([run('a', { volumes: [{ name: 'd', dest: '/d' }] }), noId('d')]));
    expect(later.errors).toContainEqual({ path: '/ops/0/args/volumes/0/name', message: 'volume "d" is created by op /ops/1 in a later stage (a stage of its own)' });
    const same = validate(job([run('a', { volumes: [{ name: 'd', dest: '/d' }] }, { group: 'g' }), noId('d', { group: 'g' })]));
    expect(same.warnings).toContainEqual({
      path: '/ops/0/args/volumes/0/name',
      message: 'volume "d" is created in the same stage; add /ops/1 to depends_on so it exists before this op starts',
    });
    const aliases = validate(job([{ type: 'container/run', args: { image: 'x', aliases: 'db' } }, run('b', { aliases: 'db' })]));
    expect(aliases.errors).toContainEqual({ path: '/ops/1/args/aliases', message: 'host name "db" already belongs to op /ops/0 (/ops/0)' });
  });

  it('suggests nothing for a very long unknown member, and shortens long values it quotes', () => {
    const long = `gpu${'x'.repeat(70)}`;
    expect(validate(job([run('a', { [long]: true })])).errors).toEqual([{ path: `/ops/0/args/${long}`, message: `unknown member "${long}"` }]);
    expect(quote('abcdef', 3)).toBe('"abc…"');
    expect(quote('abc', 3)).toBe('"abc"');
    expect(quote('y'.repeat(81))).toBe(`"${'y'.repeat(80)}…"`);
  });

  it('reports an issue found twice once', () => {
    const result = validate(job([run('a', { env: { A: '%%ops.nowhere.host%% and %%ops.nowhere.host%%' } })]));
    expect(result.errors).toEqual([{ path: '/ops/0/args/env/A', message: 'unknown op id "nowhere"' }]);
  });

  it('reports a list over its limit in words', () => {
    const volumes = Array.from({ length: 101 }, (_, i) => ({ name: 'd', dest: `/d${i}` }));
    expect(validate(job([volume('v', 'd'), run('a', { volumes }, { depends_on: ['v'] })])).errors).toEqual([
      { path: '/ops/1/args/volumes', message: 'must hold at most 100 item(s)' },
    ]);
  });

  it('has a message for every pattern of the schema', () => {
    const patterns = new Set<string>();
    JSON.stringify(jobDefinitionJsonSchema, (key, value: unknown) => {
      if (key === 'pattern' && typeof value === 'string') patterns.add(value);
      return value;
    });
    expect(patterns.size).toBeGreaterThanOrEqual(8);
    for (const pattern of patterns) expect([pattern, PATTERN_MESSAGES[pattern]]).toEqual([pattern, expect.stringMatching(/^must /)]);
  });
});

describe('limits and guards', () => {
  it('accepts 1000 ops and refuses 1001 (validateOps shares the check)', () => {
    const ops = (n: number) => Array.from({ length: n }, (_, i) => run(`op-${i}`));
    expect(validate(job(ops(1000))).errors).toEqual([]);
    expect(validate(job(ops(1001))).errors).toEqual([{ path: '/ops', message: 'must hold at most 1000 item(s)' }]);
  });

  it('warns about a volume outside a list of ops that joins another job', () => {
    expect(validateOps([run('a', { volumes: [{ name: 'd', dest: '/d' }] })])).toEqual({
      valid: true,
      errors: [],
      warnings: [{ path: '/0/args/volumes/0/name', message: 'volume "d" is not created in this list; the job these ops join must create it' }],
    });
    expect(validateOps([run('a', { volumes: [{ name: 'd', dest: '/d' }] })], { externalOpIds: [] }).errors).toEqual([
      { path: '/0/args/volumes/0/name', message: 'volume "d" is not created by any container/create-volume op' },
    ]);
  });

  it('turns a failure while checking into one error instead of throwing', () => {
    const hostile = {
      type: 'container',
      ops: [],
      get version(): string {
        throw new Error('boom');
      },
    };
    expect(validate(hostile)).toEqual({ valid: false, errors: [{ path: '', message: 'the definition could not be checked: boom' }], warnings: [] });
  });

  it('knows no schema def it does not have', () => {
    expect(() => defValidator('nothing')).toThrow('no schema def "nothing"');
  });
});

describe('normalize keeps every member that changes how a container runs', () => {
  it('keeps gpu, private, volumes and health-check headers', () => {
    const check = { type: 'http', path: '/h', method: 'GET', expected_status: 200, continuous: true, headers: { Authorization: 'Bearer t', 'X-B': '' } };
    const definition = job([
      volume('v', 'data'),
      run('a', { gpu: true, private: true, volumes: [{ name: 'data', dest: '/data' }], expose: [{ port: 80, health_checks: [check] }] }, { depends_on: ['v'] }),
    ]);
    expect(validate(definition).errors).toEqual([]);
    const op = normalize(definition as unknown as JobDefinition).ops[1] as NormalizedRunOp;
    expect(op.args).toMatchObject({ gpu: true, private: true, volumes: [{ name: 'data', dest: '/data' }] });
    expect(op.args.expose).toEqual([{ port: 80, type: 'api', health_checks: [check] }]);
    const off = normalize(job([run('a', { gpu: false, private: false })]) as unknown as JobDefinition).ops[0] as NormalizedRunOp;
    expect(off.args).toMatchObject({ gpu: false, private: false, volumes: [] });
  });
});

describe('spreads by position', () => {
  it('checks a spread in expose as ports at any index, and names every bad value', () => {
    const expose = [...Array.from({ length: 10 }, (_, i) => 1000 + i), { __spread__: '%%ops.s.results.e%%' }];
    const definition = normalize(job([run('a', { expose })]) as unknown as JobDefinition);
    const resolved = resolveLiterals(definition, { results: { s: { e: '[8080]' } } });
    expect((resolved.ops[0] as NormalizedRunOp).args.expose[10]).toEqual({ port: 8080, type: 'api', health_checks: [] });
    let caught: unknown;
    try {
      resolveLiterals(definition, { results: { s: { e: ['nope', '{"port": 0}'] } } });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(LiteralResolutionError);
    expect((caught as Error).name).toBe('LiteralResolutionError');
    expect((caught as Error).message).toMatch(
      /^\/ops\/0\/args\/expose\/10: %%ops.s.results.e%% is not JSON: .*; \/ops\/0\/args\/expose\/10\/port: from %%ops.s.results.e%%: must be between 1 and 65535$/,
    );
  });
});

describe('OpenAPI components', () => {
  it('names the root by the prefix and each def after it, without the JSON Schema identity', () => {
    const schemas = jobDefinitionOpenApiSchemas();
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(['JobDefinition', 'JobDefinitionRunArgs', 'JobDefinitionOpList']));
    expect(schemas['JobDefinition']).not.toHaveProperty('$schema');
    expect(schemas['JobDefinition']).not.toHaveProperty('$id');
    expect(schemas['JobDefinition']).not.toHaveProperty('$defs');
    expect((schemas['JobDefinition'] as { properties: { ops: unknown } }).properties.ops).toEqual({ $ref: '#/components/schemas/JobDefinitionOpList' });
    const custom = jobDefinitionOpenApiSchemas('Jd');
    expect(Object.keys(custom).every((name) => name.startsWith('Jd'))).toBe(true);
    expect(custom['JdOp']).toEqual({ oneOf: [{ $ref: '#/components/schemas/JdRunOp' }, { $ref: '#/components/schemas/JdCreateVolumeOp' }] });
    expect(custom['JdPort']).toEqual(jobDefinitionJsonSchema.$defs.port);
  });
});
