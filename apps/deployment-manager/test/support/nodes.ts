/** Nodes for tests: simulated ones that sign real requests, and a real node-agent process. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { createSigner, signNodeRequest, type WalletSigner } from '@ocg/auth';
import { freePort, launchServices, removeNodeObjects, testNodeId, type LaunchedStack, testResourceDir } from '@ocg/testing';
import { NODE_DOMAIN } from './deployment-manager';
import { call, type Managers, type Reply } from './managers';

export const cpuSpecs = { cpus: 4, memoryBytes: 8 * 2 ** 30, gpus: [] };

/** A node that is only a key: registers with host-manager and signs every request like node-agent. */
export class SignedNode {
  readonly seed = randomBytes(32);
  readonly signer: WalletSigner = createSigner(this.seed);

  get address(): string {
    return this.signer.address;
  }

  /** A signed POST; `sign` breaks the signature on purpose (another key, another body, no headers). */
  send<T = any>(base: string, path: string, body: unknown, sign: { signer?: WalletSigner; signedBody?: unknown; unsigned?: boolean } = {}): Promise<Reply<T>> {
    const headers = sign.unsigned ? {} : signNodeRequest(sign.signer ?? this.signer, { method: 'POST', path, body: sign.signedBody ?? body });
    return call<T>(base, 'POST', path, { body, headers: { ...headers, 'x-ocg-node': this.address } });
  }

  /** `capacity`: how many jobs it may run at once (high by default, so claims in tests are not limited by it). */
  async register(m: Managers, market: string, joinToken: string, capacity = 1000): Promise<void> {
    const res = await this.send(m.hostManagerUrl, '/nodes/register', { market, joinToken, specs: cpuSpecs, domain: NODE_DOMAIN, ingressUrl: 'http://127.0.0.1:9', capacity });
    if (res.status !== 200) throw new Error(`node not registered: ${JSON.stringify(res.body)}`);
  }
}

/** The gateway as a process in front of the managers and an (in-process or not) deployment-manager. */
export async function startGateway(m: Managers, deploymentManagerUrl: string, lines: string[] = m.lines): Promise<LaunchedStack> {
  return launchServices({
    only: ['gateway'],
    databaseUrl: m.databaseUrl,
    redisUrl: m.redisUrl,
    ports: { gateway: await freePort() },
    logLevel: 'warn',
    serviceEnv: { gateway: { CLIENT_MANAGER_URL: m.clientManagerUrl, HOST_MANAGER_URL: m.hostManagerUrl, DEPLOYMENT_MANAGER_URL: deploymentManagerUrl } },
    onLine: (line) => lines.push(`gateway | ${line}`),
  });
}

export interface AgentProcess {
  node: SignedNode;
  nodeId: string;
  lines: string[];
  child: ChildProcess;
  /** SIGTERM: the agent leaves its containers running for the next one. */
  stop(): Promise<void>;
  /** Removes every container, network and volume of this agent's node id. */
  cleanup(): Promise<void>;
}

const AGENT_ENTRY = resolve(__dirname, '../../../node-agent/src/main.ts');

/**
 * A real node-agent in control-plane mode, as a child process: the test
 * cannot import another app (module boundaries), and a process also runs
 * main.ts's composition. Short timings so tests take seconds.
 */
export async function startAgent(opts: {
  controlPlaneUrl: string;
  market: string;
  joinToken: string;
  node?: SignedNode;
  nodeId?: string;
  env?: Record<string, string>;
}): Promise<AgentProcess> {
  const node = opts.node ?? new SignedNode();
  // A restarted agent keeps its predecessor's node id to adopt its jobs.
  const nodeId = opts.nodeId ?? testNodeId('dm');
  const lines: string[] = [];
  const env = {
    ...process.env,
    CONTROL_PLANE_URL: opts.controlPlaneUrl,
    MARKET: opts.market,
    JOIN_TOKEN: opts.joinToken,
    NODE_KEY: node.seed.toString('hex'),
    NODE_ID: nodeId,
    API_PORT: '0',
    INGRESS_PORT: '0',
    NODE_DOMAIN,
    NODE_GPUS: 'false',
    RESOURCE_CACHE_DIR: testResourceDir(),
    LOG_LEVEL: 'info',
    CONTAINER_MEMORY_MB: '128',
    STOP_GRACE_SECONDS: '1',
    HEALTH_STARTUP_INTERVAL_MS: '200',
    HEALTH_CONTINUOUS_INTERVAL_MS: '500',
    CLAIM_WAIT_SECONDS: '5',
    SYNC_INTERVAL_MS: '500',
    ...opts.env,
  };
  const child = spawn(process.execPath, ['--import', 'tsx', AGENT_ENTRY], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [child.stdout!, child.stderr!]) createInterface({ input: stream }).on('line', (line) => lines.push(line));
  let gone = false;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  void exited.then(() => (gone = true));
  await waitForLine(lines, 'node agent in control-plane mode', 60_000, () => gone);
  return {
    node,
    nodeId,
    lines,
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
    cleanup: () => removeNodeObjects(nodeId),
  };
}

async function waitForLine(lines: string[], text: string, timeoutMs: number, exited: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!lines.some((l) => l.includes(text))) {
    if (exited()) throw new Error(`node-agent exited before it was ready:\n${lines.slice(-20).join('\n')}`);
    if (Date.now() > deadline) throw new Error(`no "${text}" within ${timeoutMs} ms:\n${lines.slice(-20).join('\n')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
