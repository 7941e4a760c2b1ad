import fc from 'fast-check';
import { normalize, planStages, resolveLiterals, validate, type JobDefinition, type ValidationResult } from '../src';
import { jobExamples, propertyRuns } from './helpers';

type Loose = Record<string, unknown>;

function expectWellFormed(result: ValidationResult): void {
  expect(result.valid).toBe(result.errors.length === 0);
  for (const issue of [...result.errors, ...result.warnings]) {
    expect(issue.path === '' || issue.path.startsWith('/')).toBe(true);
    expect(issue.message.length).toBeGreaterThan(0);
  }
}

/** For a definition validate accepted: normalize is idempotent and the node-side steps hold. */
function expectNormalizes(definition: unknown): void {
  const once = normalize(definition as JobDefinition);
  expect(normalize(once)).toEqual(once);
  expect(planStages(once).ops).toHaveLength(once.ops.length);
  expect(resolveLiterals(once, {})).toEqual(once);
}

// --- mutated real examples ----------------------------------------------------------------

const examples = jobExamples().map(([, definition]) => definition);

const mutation = fc.record({
  kind: fc.constantFrom('replace', 'delete', 'add'),
  target: fc.nat(),
  child: fc.nat(),
  key: fc.constantFrom('id', 'type', 'port', 'group', 'depends_on', 'expose', 'x', '__spread__', 'continuous'),
  value: fc.jsonValue({ maxDepth: 3 }),
});

function containers(root: unknown): Array<Loose | unknown[]> {
  const found: Array<Loose | unknown[]> = [];
  const visit = (value: unknown) => {
    if (typeof value !== 'object' || value === null) return;
    found.push(value as Loose);
    Object.values(value).forEach(visit);
  };
  visit(root);
  return found;
}

type Mutation = { kind: string; target: number; child: number; key: string; value: unknown };

function mutate(definition: Loose, steps: Mutation[]): Loose {
  const copy = structuredClone(definition);
  for (const step of steps) {
    const all = containers(copy);
    const node = all[step.target % all.length] as Loose;
    const keys = Object.keys(node);
    const key = step.kind === 'add' || keys.length === 0 ? (Array.isArray(node) ? String(node.length) : step.key) : keys[step.child % keys.length];
    if (step.kind === 'delete') {
      if (Array.isArray(node)) node.splice(Number(key), 1);
      else delete node[key];
    } else node[key] = step.value;
  }
  return copy;
}

const mutatedExample = fc.tuple(fc.nat({ max: examples.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 4 })).map(([index, steps]) => mutate(examples[index], steps));

// --- valid-by-construction definitions -----------------------------------------------------

const port = fc.integer({ min: 1, max: 65535 });
const healthCheck = fc.oneof(
  fc.record(
    {
      type: fc.constant('http'),
      path: fc.constantFrom('/', '/health'),
      method: fc.constantFrom('GET', 'POST'),
      expected_status: fc.constantFrom(200, 204),
      continuous: fc.boolean(),
      headers: fc.dictionary(fc.stringMatching(/^[A-Za-z-]{1,8}$/), fc.string()),
      body: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: ['type', 'path', 'method', 'expected_status', 'continuous'] },
  ),
  fc.record({ type: fc.constant('websocket'), expected_response: fc.string(), continuous: fc.boolean() }),
);
const exposeEntry = fc.oneof(
  port,
  port.map(String),
  fc.record({ port, type: fc.constantFrom('api', 'web', 'none'), health_checks: fc.array(healthCheck, { maxLength: 2 }) }, { requiredKeys: ['port'] }),
);
const argv = fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 }), fc.constant(['__remove-if-empty__', 'x']));
const restart = fc.oneof(
  fc.constantFrom('no', 'always', 'on-failure', 'unless-stopped'),
  fc.record({ policy: fc.constant('on-failure'), restart_tries: fc.integer({ min: 1, max: 9 }) }, { requiredKeys: ['policy'] }),
);
const resource = fc.oneof(
  fc.record({ type: fc.constant('S3'), url: fc.constant('s3://bucket/p'), target: fc.constant('/data') }),
  fc.record({ type: fc.constant('HF'), repo: fc.constant('org/model'), target: fc.constant('/m'), files: fc.array(fc.string(), { maxLength: 2 }) }),
  fc.record({ type: fc.constant('Ollama'), model: fc.constant('%%global.variables.MODEL%%') }),
);
const opSpec = fc.record({
  args: fc.record(
    {
      cmd: argv,
      entrypoint: argv,
      aliases: fc.constantFrom('alias-a', 'alias-b'),
      env: fc.dictionary(fc.stringMatching(/^[A-Z_]{1,6}$/), fc.string()),
      gpu: fc.boolean(),
      expose: fc.oneof(exposeEntry, fc.array(exposeEntry, { maxLength: 3 })),
      restart_policy: restart,
      resources: fc.array(resource, { maxLength: 2 }),
      work_dir: fc.constant('/app'),
    },
    { requiredKeys: [] },
  ),
  group: fc.option(fc.constantFrom('g1', 'g2', 'g3'), { nil: undefined }),
  deps: fc.array(fc.nat(), { maxLength: 2 }),
  timeout: fc.option(fc.integer({ min: 1, max: 3600 }), { nil: undefined }),
  stop: fc.boolean(),
  results: fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.constantFrom('x: (.*)', '(?<=v=)\\d+', '.*')),
});

const validDefinition = fc.array(opSpec, { minLength: 1, maxLength: 6 }).map((specs) => ({
  version: '0.1',
  type: 'container',
  global: { variables: { MODEL: 'gemma' } },
  ops: specs.map((spec, i) => {
    const aliases = spec.args.aliases ? { aliases: `${spec.args.aliases}-${i}` } : {};
    const dependsOn = i === 0 ? [] : [...new Set(spec.deps.map((d) => `op${d % i}`))];
    const execution = {
      ...(spec.group ? { group: spec.group } : {}),
      depends_on: dependsOn,
      ...(spec.timeout ? { timeout: spec.timeout } : {}),
      stop_if_dependent_stops: spec.stop && dependsOn.length > 0,
    };
    return { type: 'container/run', id: `op${i}`, args: { image: 'ubuntu', ...spec.args, ...aliases }, execution, results: spec.results };
  }),
}));

describe('properties', () => {
  it('validate never throws on arbitrary JSON and reports well-formed issues', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => expectWellFormed(validate(value))),
      propertyRuns(500),
    );
  });

  it('validate never throws on arbitrary values', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => expectWellFormed(validate(value))),
      propertyRuns(300),
    );
  });

  it('validate never throws on mutated examples, and normalize is idempotent on those it accepts', () => {
    fc.assert(
      fc.property(mutatedExample, (definition) => {
        const result = validate(definition);
        expectWellFormed(result);
        if (result.valid) expectNormalizes(definition);
      }),
      propertyRuns(500),
    );
  });

  it('normalize is idempotent on valid definitions', () => {
    fc.assert(
      fc.property(validDefinition, (definition) => {
        fc.pre(validate(definition).valid);
        expectNormalizes(definition);
      }),
      propertyRuns(300),
    );
  });
});
