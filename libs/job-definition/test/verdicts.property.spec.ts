/**
 * Property tests of verdicts, not only shapes: a generated valid definition is
 * accepted and means the same after normalization (gpu, private, volumes,
 * health-check headers included); the same definition with one fault is
 * refused at the pointer of that fault.
 */
import fc from 'fast-check';
import { normalize, validate } from '../src';
import { propertyRuns } from './helpers';

type Loose = Record<string, unknown>;

const name = fc.stringMatching(/^[a-z][a-z0-9]{0,5}$/);
const headerName = fc.stringMatching(/^X-[A-Za-z]{1,6}$/);
const healthCheck = fc.record({
  type: fc.constant('http'),
  path: fc.constantFrom('/', '/health'),
  method: fc.constantFrom('GET', 'POST'),
  expected_status: fc.constantFrom(200, 204),
  continuous: fc.boolean(),
  headers: fc.dictionary(headerName, fc.stringMatching(/^[a-z0-9]{0,8}$/), { maxKeys: 3 }),
});
const runSpec = fc.record({
  gpu: fc.option(fc.boolean(), { nil: undefined }),
  private: fc.option(fc.boolean(), { nil: undefined }),
  mounts: fc.array(fc.nat(), { maxLength: 2 }),
  env: fc.dictionary(fc.stringMatching(/^[A-Z][A-Z_]{0,5}$/), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
  port: fc.integer({ min: 1, max: 65535 }),
  checks: fc.array(healthCheck, { maxLength: 2 }),
  deps: fc.array(fc.nat(), { maxLength: 2 }),
});

interface Generated {
  definition: Loose;
  /** Indexes of the container/run ops in definition.ops. */
  runs: number[];
}

const validDefinition: fc.Arbitrary<Generated> = fc
  .tuple(fc.uniqueArray(name, { minLength: 1, maxLength: 2 }), fc.array(runSpec, { minLength: 1, maxLength: 4 }))
  .map(([volumes, specs]) => {
    const volumeOps = volumes.map((v) => ({ type: 'container/create-volume', id: `vol-${v}`, args: { name: v } }));
    const runOps = specs.map((s, i) => {
      const args: Loose = { image: 'ubuntu', env: s.env, expose: [{ port: s.port, health_checks: s.checks }] };
      if (s.gpu !== undefined) args.gpu = s.gpu;
      if (s.private !== undefined) args.private = s.private;
      if (s.mounts.length > 0) args.volumes = [...new Set(s.mounts.map((m) => volumes[m % volumes.length]))].map((v) => ({ name: v, dest: `/mnt/${v}` }));
      const earlier = [...volumeOps.map((o) => o.id), ...specs.slice(0, i).map((_, j) => `run${j}`)];
      const dependsOn = [...new Set(s.deps.map((d) => earlier[d % earlier.length]))];
      return { type: 'container/run', id: `run${i}`, args, execution: { depends_on: dependsOn } };
    });
    return { definition: { version: '0.1', type: 'container', ops: [...volumeOps, ...runOps] }, runs: runOps.map((_, i) => volumeOps.length + i) };
  });

describe('verdicts on generated definitions', () => {
  it('accepts every generated valid definition', () => {
    fc.assert(
      fc.property(validDefinition, ({ definition }) => {
        expect(validate(definition).errors).toEqual([]);
        expect(validate(definition).valid).toBe(true);
      }),
      propertyRuns(200),
    );
  });

  it('keeps the meaning through normalization: gpu, private, volumes, env, ports, health-check headers, dependencies', () => {
    fc.assert(
      fc.property(validDefinition, ({ definition, runs }) => {
        const normalized = normalize(definition as never);
        const ops = definition.ops as Array<{ id: string; args: Loose; execution: { depends_on: string[] } }>;
        expect(normalized.ops.map((op) => op.id)).toEqual(ops.map((op) => op.id));
        for (const i of runs) {
          const input = ops[i];
          const out = normalized.ops[i] as unknown as { args: Loose; execution: { depends_on: string[] } };
          const expose = (input.args.expose as Array<{ port: number; health_checks: Loose[] }>)[0];
          expect(out.args).toMatchObject({
            image: 'ubuntu',
            gpu: input.args.gpu === true,
            private: input.args.private === true,
            volumes: input.args.volumes ?? [],
            env: input.args.env,
            expose: [{ port: expose.port, type: 'api', health_checks: expose.health_checks }],
          });
          expect(out.execution.depends_on).toEqual(input.execution.depends_on);
        }
        expect(normalize(normalized)).toEqual(normalized);
      }),
      propertyRuns(200),
    );
  });
});

/** One fault in a run op: what it changes, and the pointer (relative to the op) the refusal must name. */
const faults: Array<{ what: string; at: string; apply: (op: Loose, all: Loose[]) => void }> = [
  { what: 'image not a string', at: '/args/image', apply: (op) => ((op.args as Loose).image = 42) },
  { what: 'image missing', at: '/args', apply: (op) => delete (op.args as Loose).image },
  { what: 'type missing', at: '', apply: (op) => delete op.type },
  { what: 'id missing', at: '', apply: (op) => delete op.id },
  {
    what: 'health check without continuous',
    at: '/args/expose/0/health_checks/0',
    apply: (op) => (((op.args as Loose).expose as Loose[])[0].health_checks = [{ type: 'http', path: '/', method: 'GET', expected_status: 200 }]),
  },
  { what: 'env value not a string', at: '/args/env/N', apply: (op) => ((op.args as Loose).env = { N: 1 }) },
  { what: 'unknown member', at: '/args/gpus', apply: (op) => ((op.args as Loose).gpus = true) },
  { what: 'gpu not a boolean', at: '/args/gpu', apply: (op) => ((op.args as Loose).gpu = 'yes') },
  { what: 'private not a boolean', at: '/args/private', apply: (op) => ((op.args as Loose).private = 1) },
  { what: 'port out of range', at: '/args/expose/0/port', apply: (op) => (((op.args as Loose).expose as Loose[])[0].port = 70000) },
  { what: 'unknown dependency', at: '/execution/depends_on/0', apply: (op) => ((op.execution as Loose).depends_on = ['nowhere']) },
  { what: 'duplicate id', at: '/id', apply: (op, all) => (op.id = all[0].id) },
  { what: 'volume nobody creates', at: '/args/volumes/0/name', apply: (op) => ((op.args as Loose).volumes = [{ name: 'ghost', dest: '/g' }]) },
  { what: 'relative volume destination', at: '/args/volumes/0/dest', apply: (op, all) => ((op.args as Loose).volumes = [{ name: (all[0].args as Loose).name, dest: 'g' }]) },
  { what: 'timeout below 1', at: '/execution/timeout', apply: (op) => ((op.execution as Loose).timeout = 0) },
  { what: 'result regex that does not compile', at: '/results/r', apply: (op) => (op.results = { r: '(' }) },
];

describe('verdicts on generated faults', () => {
  it('refuses a valid definition with one fault, at the pointer of the fault', () => {
    fc.assert(
      fc.property(validDefinition, fc.nat(), fc.constantFrom(...faults), ({ definition, runs }, pick, fault) => {
        const broken = structuredClone(definition);
        const ops = broken.ops as Loose[];
        const index = runs[pick % runs.length];
        fault.apply(ops[index], ops);
        const result = validate(broken);
        expect(result.valid).toBe(false);
        expect(result.errors.map((e) => e.path)).toContain(`/ops/${index}${fault.at}`);
      }),
      propertyRuns(300),
    );
  });
});
