/**
 * The whole control plane as separate processes on a Postgres and a Redis of
 * the test's own, and a real node agent on the local Docker engine, each of
 * which the fault-injection suite can kill -9, stop and start again on the
 * same port (other processes reach each other by URL).
 */
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import Docker from 'dockerode';
import { generateApiKey } from '@ocg/auth';
import {
  BUSYBOX_IMAGE,
  freePort,
  launchServices,
  removeNodeObjects,
  testNodeId,
  startEphemeralPostgres,
  startEphemeralRedis,
  startTsProcess,
  STACK_SERVICES,
  waitFor,
  type EphemeralServer,
  type ManagedProcess,
  testResourceDir,
} from '@ocg/testing';

const root = resolve(__dirname, '../../..');
export const NODE_DOMAIN = 'nodes.faults.test';
export const INTERNAL_TOKEN = 'internal-token-of-the-fault-injection-suite';

/** A job whose one op serves `text` at / on port 8080 (busybox httpd). */
export function webJob(text: string) {
  return {
    version: '0.1',
    type: 'container',
    ops: [
      {
        type: 'container/run',
        id: 'web',
        args: { image: BUSYBOX_IMAGE, cmd: ['sh', '-c', `mkdir -p /www && echo ${text} > /www/index.html && exec httpd -f -p 8080 -h /www`], expose: 8080 },
      },
    ],
  };
}

export interface Reply<T = any> {
  status: number;
  body: T;
}

export class FaultStack {
  readonly adminKey = generateApiKey();
  readonly lines: string[] = [];
  readonly ports: Record<string, number> = {};
  readonly processes = new Map<string, ManagedProcess>();
  readonly nodeId = testNodeId('faults');
  readonly nodeKey = randomBytes(32).toString('hex');
  agentEnv: Record<string, string> = {};

  private constructor(
    readonly postgres: EphemeralServer,
    readonly redis: EphemeralServer,
    /** More variables per process (a service's name, or `node-agent`). */
    readonly extraEnv: Record<string, Record<string, string>> = {},
  ) {}

  static async start(extraEnv: Record<string, Record<string, string>> = {}): Promise<FaultStack> {
    const stack = new FaultStack(await startEphemeralPostgres(), await startEphemeralRedis(), extraEnv);
    for (const s of [...STACK_SERVICES.map((x) => x.name), 'agent-api', 'agent-ingress']) stack.ports[s] = await freePort();
    for (const s of STACK_SERVICES) await stack.startService(s.name);
    return stack;
  }

  url(service: string): string {
    return `http://127.0.0.1:${this.ports[service]}`;
  }

  get gateway(): string {
    return this.url('gateway');
  }

  /** Starts (or starts again) one service on its port and waits for its /readyz. */
  async startService(name: string): Promise<void> {
    const urls = { CLIENT_MANAGER_URL: this.url('client-manager'), HOST_MANAGER_URL: this.url('host-manager'), DEPLOYMENT_MANAGER_URL: this.url('deployment-manager') };
    const launched = await launchServices({
      only: [name],
      databaseUrl: this.postgres.url,
      redisUrl: this.redis.url,
      ports: { [name]: this.ports[name] },
      logLevel: 'warn',
      env: { MASTER_KEY: 'ef'.repeat(32), ADMIN_API_KEY: this.adminKey, INTERNAL_TOKEN, NODE_DOMAIN },
      // Per service, so they win over the launcher's own (which knows only the services it starts in this call).
      serviceEnv: { [name]: { ...urls, ...(name === 'deployment-manager' ? { SWEEP_INTERVAL_MS: '1000' } : {}), ...this.extraEnv[name] } },
      onLine: (line) => this.lines.push(line),
    });
    this.processes.set(name, launched.processes.get(name)!);
  }

  /** kill -9: no shutdown hook runs. */
  async kill(name: string): Promise<void> {
    const proc = this.processes.get(name)!;
    proc.child.kill('SIGKILL');
    await proc.exited;
  }

  async startAgent(market: string, joinToken: string): Promise<void> {
    this.agentEnv = {
      CONTROL_PLANE_URL: this.gateway,
      MARKET: market,
      JOIN_TOKEN: joinToken,
      NODE_KEY: this.nodeKey,
      NODE_ID: this.nodeId,
      API_PORT: String(this.ports['agent-api']),
      INGRESS_PORT: String(this.ports['agent-ingress']),
      NODE_DOMAIN,
      NODE_GPUS: 'false',
      RESOURCE_CACHE_DIR: testResourceDir(),
      LOG_LEVEL: 'info',
      CONTAINER_MEMORY_MB: '128',
      STOP_GRACE_SECONDS: '1',
      HEALTH_STARTUP_INTERVAL_MS: '200',
      HEALTH_CONTINUOUS_INTERVAL_MS: '500',
      CLAIM_WAIT_SECONDS: '5',
      ...this.extraEnv['node-agent'],
    };
    await this.restartAgent();
  }

  /** The agent with the same key, id and ports: it adopts the containers its predecessor left. */
  async restartAgent(): Promise<void> {
    const lines: string[] = [];
    const proc = startTsProcess('node-agent', resolve(root, 'apps/node-agent/src/main.ts'), this.agentEnv, 4, (line) => {
      lines.push(line);
      this.lines.push(line);
    });
    this.processes.set('node-agent', proc);
    let exited = false;
    void proc.exited.then(() => (exited = true));
    await waitFor(
      () => {
        if (exited) throw new Error(`node-agent exited:\n${lines.slice(-20).join('\n')}`);
        return lines.some((l) => l.includes('node agent in control-plane mode'));
      },
      { timeoutMs: 60_000, intervalMs: 100, what: 'the node agent to start' },
    );
  }

  /**
   * A user with `credits`, a market of this process at `pricePerSecond`, this stack's node agent joined to it,
   * and `definition` posted there for 600 s: the user's key and the job's address.
   */
  async postJob(name: string, definition: object, opts: { credits: number; pricePerSecond: number }): Promise<{ userKey: string; job: string }> {
    const made = await this.call('POST', '/users', this.adminKey, { email: `${name}-${Date.now()}@example.com`, name });
    const userKey: string = made.body.apiKey.key;
    await this.call('POST', '/credits/grant', this.adminKey, { userId: made.body.user.id, amount: opts.credits, reason: `${name} test` });
    const market = await this.call('POST', '/markets', this.adminKey, {
      name: `${name}-${process.pid}`,
      pricePerSecond: opts.pricePerSecond,
      defaultDurationSeconds: 600,
      maxDurationSeconds: 3600,
    });
    await this.startAgent(market.body.name, market.body.joinToken);
    const posted = await this.call('POST', '/jobs', userKey, { definition, market: market.body.name, durationSeconds: 600 });
    if (posted.status !== 200) throw new Error(`job not posted: ${JSON.stringify(posted.body)}`);
    return { userKey, job: posted.body.address };
  }

  /** A request to the gateway, the response as it came (10 s timeout). */
  raw(method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${this.gateway}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
  }

  /** A JSON call to the gateway. */
  async call<T = any>(method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply<T>> {
    const res = await this.raw(method, path, key, body, headers);
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: res.status, body: parsed as T };
  }

  /** GET / of a job's public host through the gateway: the status and body, or 0 when nothing answered within 3 s. */
  endpoint(job: string): Promise<{ status: number; body: string }> {
    return new Promise((done) => {
      const req = request(`${this.gateway}/`, { headers: { host: `${job.toLowerCase()}.${NODE_DOMAIN}` }, timeout: 3000 }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => done({ status: res.statusCode ?? 0, body }));
        res.on('error', () => done({ status: 0, body: '' }));
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => done({ status: 0, body: '' }));
      req.end();
    });
  }

  /** Until the agent has removed every container of this node (it does when its jobs end), at most `timeoutMs`. */
  async waitForNoContainers(timeoutMs: number): Promise<void> {
    const docker = new Docker({ socketPath: '/var/run/docker.sock' });
    const filters = JSON.stringify({ label: [`ocg.node=${this.nodeId}`] });
    await waitFor(async () => (await docker.listContainers({ all: true, filters })).length === 0, {
      timeoutMs,
      intervalMs: 500,
      what: "the agent to remove its job's containers",
    }).catch(() => undefined);
  }

  async stop(): Promise<void> {
    const order = ['node-agent', 'gateway', 'deployment-manager', 'host-manager', 'client-manager'];
    for (const name of order)
      await this.processes
        .get(name)
        ?.stop()
        .catch(() => undefined);
    await removeNodeObjects(this.nodeId);
    await this.redis.dispose();
    await this.postgres.dispose();
  }
}
