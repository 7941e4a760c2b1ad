/** A real agent over the real engine, with short timings, for the specs. */
import type { JobContainerLimits } from '@ocg/contracts';
import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { createAuthHeader, nodeApiMessage, createSigner, generateWallet, type Wallet } from '@ocg/auth';
import { createLogger } from '@ocg/http';
import { removeNodeObjects, testNodeId, testResourceDir } from '@ocg/testing';
import { normalize, validate, type JobDefinition, type NormalizedJobDefinition } from '@ocg/job-definition';
import { NodeAgent } from '../../src/agent';
import { loadConfig, type ResolvedConfig } from '../../src/config';
import { createDocker, type Docker } from '../../src/docker/client';
import { labelFilter, LABEL } from '../../src/docker/labels';
import type { JobStatus, JobSummary, OpStatus } from '../../src/executor/types';
import { LocalJobSource } from '../../src/local-source';
import { BUSYBOX_IMAGE, ensureBusyboxImage, requireDocker } from './images';
import { RecordingReporter } from './recorder';

export { BUSYBOX_IMAGE };

export const TEST_ENV = {
  API_PORT: '0',
  INGRESS_PORT: '0',
  LOG_LEVEL: 'silent',
  NODE_GPUS: 'false',
  NODE_DOMAIN: 'node.test',
  CONTAINER_MEMORY_MB: '128',
  STOP_GRACE_SECONDS: '1',
  HEALTH_STARTUP_INTERVAL_MS: '200',
  HEALTH_CONTINUOUS_INTERVAL_MS: '200',
  HEALTH_TIMEOUT_MS: '1000',
  HEALTH_FAILURES_TO_OFFLINE: '1',
  FINISHED_JOB_RETENTION_SECONDS: '300',
  /** The tests' registry listens on 127.0.0.1. */
  ALLOW_PRIVATE_REGISTRIES: '127.0.0.1,localhost',
};

export interface TestAgent {
  agent: NodeAgent;
  config: ResolvedConfig;
  docker: Docker;
  reporter: RecordingReporter;
  source: LocalJobSource;
  /** Posts a definition as `wallet` (a new one by default); returns the job address. */
  /**
   * `prepare` changes the normalized definition as the control plane would (e.g. private op labels);
   * `containerLimits`: as a claim from the control plane would carry them (the market's).
   */
  submit(
    definition: unknown,
    opts?: { wallet?: Wallet; durationSeconds?: number; prepare?: (d: NormalizedJobDefinition) => NormalizedJobDefinition; containerLimits?: JobContainerLimits },
  ): Promise<{ job: string; wallet: Wallet }>;
  status(job: string): JobStatus;
  op(job: string, id: string): OpStatus;
  /** Waits until the op is in `state` (fails at once if the job ended without it). */
  waitOp(job: string, id: string, state: OpStatus['state'] | ((op: OpStatus) => boolean), timeoutMs?: number): Promise<OpStatus>;
  waitEnded(job: string): Promise<JobSummary>;
  /** Leaves the containers running, as a killed agent would. */
  close(): Promise<void>;
}

/** Checks Docker and builds the test image unless the engine has it. */
export async function prepareEngine(): Promise<void> {
  const docker = createDocker('/var/run/docker.sock');
  await requireDocker(docker);
  await ensureBusyboxImage(docker);
}

export const newNodeId = testNodeId;

export async function startTestAgent(node: string, env: Record<string, string> = {}): Promise<TestAgent> {
  const config = { ...loadConfig({ ...TEST_ENV, RESOURCE_CACHE_DIR: testResourceDir(), ...env }), NODE_ID: node };
  const docker = createDocker(config.DOCKER_SOCKET);
  const reporter = new RecordingReporter();
  const source = new LocalJobSource();
  const logger = createLogger({ service: 'node-agent', level: config.LOG_LEVEL });
  const agent = await NodeAgent.start(config, logger, { source, reporter, docker });
  const status = (job: string) => agent.executor.status(job);
  const op = (job: string, id: string) => status(job).ops.find((o) => o.id === id)!;
  return {
    agent,
    config,
    docker,
    reporter,
    source,
    status,
    op,
    async submit(definition, opts = {}) {
      const wallet = opts.wallet ?? generateWallet();
      const job = bs58.encode(randomBytes(32));
      const checked = validate(definition);
      if (!checked.valid) throw new Error(`invalid test definition: ${JSON.stringify(checked.errors)}`);
      const deadline = Date.now() + (opts.durationSeconds ?? 120) * 1000;
      const normalized = normalize(definition as JobDefinition);
      await source.submit({ job, poster: wallet.address, definition: opts.prepare ? opts.prepare(normalized) : normalized, deadline, containerLimits: opts.containerLimits });
      return { job, wallet };
    },
    waitOp: (job, id, want, timeoutMs = 20_000) => {
      const test = typeof want === 'function' ? want : (o: OpStatus) => o.state === want;
      return waitFor(
        () => {
          const s = status(job);
          const found = s.ops.find((o) => o.id === id)!;
          if (test(found)) return found;
          if (s.endedAt) throw new Error(`job ended (${s.state}: ${s.reason}) while waiting for ${id}; ${id} is ${found.state}: ${found.reason}`);
          return undefined;
        },
        `op ${id} to be ${typeof want === 'string' ? want : 'as expected'}`,
        timeoutMs,
      );
    },
    waitEnded: (job) => agent.executor.whenEnded(job),
    close: () => agent.close(),
  };
}

/** Polls until `probe` returns a value (not undefined/false); rethrows what it throws. */
export async function waitFor<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    last = await probe();
    if (last !== undefined && last !== false) return last as T;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** Names of this node's containers, networks and volumes still in the engine (for one job, or all). */
export async function leftovers(docker: Docker, node: string, job?: string): Promise<string[]> {
  const filters = labelFilter(node, job ? { [LABEL.job]: job } : {});
  const containers = await docker.listContainers({ all: true, filters });
  const networks = await docker.listNetworks({ filters });
  const { Volumes } = await docker.listVolumes({ filters });
  return [...containers.map((c) => `container ${c.Names[0]}`), ...networks.map((n) => `network ${n.Name}`), ...(Volumes ?? []).map((v) => `volume ${v.Name}`)];
}

/** Last-resort cleanup after a failed spec, so one failure does not leak into the next run. */
export async function removeEverything(docker: Docker, node: string): Promise<void> {
  await removeNodeObjects(node, docker);
}

/** A spec's end: stops its job if it still runs, closes the agent, and checks that the engine holds nothing of the node. */
export async function closeAgentAndCheck(t: TestAgent | undefined, node: string, job: string): Promise<void> {
  if (!t) return;
  if (t.agent.executor.running().includes(job)) await t.agent.executor.stopAndWait(job, 'test done');
  await t.close();
  const left = await leftovers(t.docker, node);
  await removeEverything(t.docker, node);
  expect(left).toEqual([]);
}

/** The node API header the CLI makes: `ocg-node-api:<node>:<job>`, timed. */
export function signedHeader(wallet: Wallet, node: string, job: string, now?: number): string {
  return createAuthHeader(createSigner(wallet.secretKey), nodeApiMessage(node, job), now === undefined ? {} : { now }).header;
}

/** A container/run op on the busybox image. */
export function runOp(id: string, script: string, extra: { args?: object; execution?: object; results?: object } = {}): object {
  return { type: 'container/run', id, args: { image: BUSYBOX_IMAGE, cmd: ['sh', '-c', script], ...extra.args }, execution: extra.execution, results: extra.results };
}

export function definition(ops: object[]): object {
  return { version: '0.1', type: 'container', ops: JSON.parse(JSON.stringify(ops)) as object[] };
}

/** A shell line that serves `text` at / on `port` with busybox httpd in the foreground. */
export function serve(port: number, text = 'ok', dir = `/www${port}`): string {
  return `mkdir -p ${dir} && echo ${text} > ${dir}/index.html && httpd -f -p ${port} -h ${dir}`;
}
