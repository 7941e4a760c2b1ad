/**
 * validate and normalize on a 50-op definition, against JSON.parse of the same
 * text measured in the same run (a machine-independent yardstick: "checking a
 * definition costs N parses of it").
 *
 *   tsx libs/job-definition/bench/validate.bench.ts [seconds per measurement, default 3]
 */
import { normalize, validate, type JobDefinition } from '../src';

const OPS = 50;
const GROUP_SIZE = 5;

function op(i: number): Record<string, unknown> {
  const group = `stage-${Math.floor(i / GROUP_SIZE)}`;
  const first = i % GROUP_SIZE === 0;
  const previousStage = i >= GROUP_SIZE ? `op-${i - GROUP_SIZE}` : undefined;
  return {
    type: 'container/run',
    id: `op-${i}`,
    args: {
      image: `registry.example/model-server:${i}`,
      cmd: ['--model', '%%global.variables.MODEL%%', '--port', String(8000 + i)],
      env: {
        UPSTREAM: first ? 'none' : `http://%%ops.op-${i - 1}.host%%:${7999 + i}`,
        PREVIOUS: previousStage ? `%%ops.${previousStage}.results.tokens%%` : '',
        JOB: '%%global.job%%',
      },
      gpu: i % 2 === 0,
      expose: [{ port: 8000 + i, type: 'api', health_checks: [{ type: 'http', path: '/health', method: 'GET', expected_status: 200, continuous: true }] }, 9000 + i],
      resources: [{ type: 'HF', repo: 'org/model', target: '/models', files: ['model.safetensors'] }],
      restart_policy: { policy: 'on-failure', restart_tries: 3 },
    },
    results: {
      tokens: '"tokens_per_second":(-?[\\d.]+)',
      status: { regex: 'status=(\\w+)', logType: ['stdout', 'stderr'] },
    },
    execution: { group, ...(first ? {} : { depends_on: [`op-${i - 1}`] }), timeout: 600 },
  };
}

function measure(run: () => unknown, seconds: number): number {
  const warmUntil = performance.now() + 300;
  while (performance.now() < warmUntil) run();
  let count = 0;
  const start = performance.now();
  const stop = start + seconds * 1000;
  let now = start;
  while (now < stop) {
    for (let i = 0; i < 10; i++) run();
    count += 10;
    now = performance.now();
  }
  return (count * 1000) / (now - start);
}

function main(): void {
  const seconds = Number(process.argv[2] ?? 3);
  const definition = { version: '0.1', type: 'container', global: { variables: { MODEL: 'gemma' } }, ops: Array.from({ length: OPS }, (_, i) => op(i)) };
  const text = JSON.stringify(definition);
  const parsed = JSON.parse(text) as JobDefinition;
  const check = validate(parsed);
  if (!check.valid) throw new Error(`bench definition is invalid: ${JSON.stringify(check.errors.slice(0, 3))}`);

  console.log(`job definition: ${OPS} ops, ${text.length} bytes of JSON; ${seconds} s per measurement`);
  const baseline = measure(() => JSON.parse(text), seconds);
  const rows: Array<[string, number]> = [
    ['JSON.parse (baseline)', baseline],
    ['validate', measure(() => validate(parsed), seconds)],
    ['normalize', measure(() => normalize(parsed), seconds)],
    ['validate + normalize', measure(() => validate(parsed).valid && normalize(parsed), seconds)],
  ];
  for (const [name, opsPerSecond] of rows) {
    const ratio = baseline / opsPerSecond;
    console.log(`${name.padEnd(24)}${opsPerSecond.toFixed(0).padStart(10)} ops/s   ${ratio.toFixed(1).padStart(6)}x the time of JSON.parse`);
  }
}

main();
