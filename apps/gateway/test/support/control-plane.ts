/**
 * The whole product for the gateway's data-plane tests: Postgres and Redis
 * of their own (so a test can stop and start them), client-manager,
 * host-manager and deployment-manager as child processes, a counting relay
 * in front of deployment-manager (how many route lookups the gateway sent),
 * gateways, and a real node agent in control-plane mode.
 */
import http from 'node:http';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { generateApiKey } from '@ocg/auth';
import { listen, type RunningServer } from '@ocg/http';
import {
  BUSYBOX_IMAGE,
  freePort,
  launchServices,
  removeNodeObjects,
  testNodeId,
  startPostgresServer,
  startRedisServer,
  waitFor,
  type LaunchedStack,
  type PostgresServer,
  type RedisServer,
  testResourceDir,
} from '@ocg/testing';

export const INTERNAL_TOKEN = 'internal-token-for-gateway-data-plane-tests';
export const NODE_DOMAIN = 'nodes.dataplane.test';
const MASTER_KEY = 'ab'.repeat(32);

/** Postgres and Redis that stop and start again on the same port and data. */
export class Stores {
  pg!: PostgresServer;
  redis!: RedisServer;
  private readonly dir = mkdtempSync(join(tmpdir(), 'ocg-gw-dataplane-'));
  private pgPort = 0;
  private redisPort = 0;

  async start(): Promise<void> {
    this.pgPort ||= await freePort();
    this.redisPort ||= await freePort();
    await Promise.all([this.startPostgres(), this.startRedis()]);
  }

  async startPostgres(): Promise<void> {
    this.pg = await startPostgresServer({ dataDir: join(this.dir, 'pg'), port: this.pgPort, removeWhenOrphaned: [this.dir] });
  }

  async startRedis(): Promise<void> {
    this.redis = await startRedisServer({ port: this.redisPort });
  }

  async stop(): Promise<void> {
    await Promise.all([this.pg?.stop(), this.redis?.stop()]);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface ControlPlane {
  adminKey: string;
  urls: Record<string, string>;
  /** Where the gateway reaches deployment-manager: a relay that counts `GET /internal/jobs/...`. */
  relayUrl: string;
  routeLookups(): number;
  lines: string[];
  startDeploymentManager(): Promise<void>;
  killDeploymentManager(): Promise<void>;
  startGateway(env?: Record<string, string>): Promise<LaunchedStack>;
  stop(): Promise<void>;
}

export async function startControlPlane(stores: Stores): Promise<ControlPlane> {
  const adminKey = generateApiKey();
  const lines: string[] = [];
  const env = { MASTER_KEY, ADMIN_API_KEY: adminKey, INTERNAL_TOKEN, NODE_DOMAIN };
  const base = { databaseUrl: stores.pg.url, redisUrl: stores.redis.url, logLevel: 'warn', env, onLine: (l: string) => lines.push(l) };
  const managers = await launchServices({ ...base, only: ['client-manager', 'host-manager'], ports: { 'client-manager': await freePort(), 'host-manager': await freePort() } });
  const dmPort = await freePort();
  const urls: Record<string, string> = { ...managers.urls, 'deployment-manager': `http://127.0.0.1:${dmPort}` };
  let dm: LaunchedStack | undefined;
  const gateways: LaunchedStack[] = [];

  let lookups = 0;
  const dmUrl = new URL(urls['deployment-manager']);
  // Passes everything on as it came, the internal credential included (forward() would drop it).
  const relay: RunningServer = await listen(
    (req, res) => {
      if (req.url?.startsWith('/internal/jobs/') && !req.url.endsWith('/page')) lookups++;
      const out = http.request({ host: dmUrl.hostname, port: dmUrl.port, method: req.method, path: req.url, headers: req.headers, timeout: 10_000 }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      out.on('timeout', () => out.destroy(new Error('timeout')));
      out.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
      req.pipe(out);
    },
    { host: '127.0.0.1', port: 0 },
  );

  return {
    adminKey,
    urls,
    relayUrl: relay.url,
    routeLookups: () => lookups,
    lines,
    async startDeploymentManager() {
      dm = await launchServices({
        ...base,
        only: ['deployment-manager'],
        ports: { 'deployment-manager': dmPort },
        serviceEnv: { 'deployment-manager': { CLIENT_MANAGER_URL: urls['client-manager'], HOST_MANAGER_URL: urls['host-manager'] } },
      });
    },
    async killDeploymentManager() {
      const proc = dm!.processes.get('deployment-manager')!;
      proc.child.kill('SIGKILL');
      await proc.exited;
    },
    async startGateway(extra = {}) {
      const gateway = await launchServices({
        ...base,
        only: ['gateway'],
        ports: { gateway: await freePort() },
        serviceEnv: { gateway: { CLIENT_MANAGER_URL: urls['client-manager'], HOST_MANAGER_URL: urls['host-manager'], DEPLOYMENT_MANAGER_URL: relay.url, ...extra } },
      });
      gateways.push(gateway);
      return gateway;
    },
    async stop() {
      for (const g of gateways) await g.stop();
      await dm?.stop();
      await managers.stop();
      await relay.close();
    },
  };
}

/** One JSON request; `key` becomes a bearer credential. */
export async function call<T = any>(baseUrl: string, method: string, path: string, opts: { key?: string; body?: unknown } = {}): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = {};
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${baseUrl}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

/** A user with credits and a market, made through the services' APIs. */
export async function userAndMarket(cp: ControlPlane): Promise<{ key: string; market: { name: string; joinToken: string } }> {
  const made = await call(cp.urls['client-manager'], 'POST', '/users', { key: cp.adminKey, body: { email: `dp-${Date.now()}@example.com`, name: 'Data plane' } });
  if (made.status !== 200) throw new Error(`user not created: ${JSON.stringify(made.body)}`);
  const granted = await call(cp.urls['client-manager'], 'POST', '/credits/grant', { key: cp.adminKey, body: { userId: made.body.user.id, amount: 100_000_000, reason: 'test' } });
  if (granted.status !== 200) throw new Error(`credits not granted: ${JSON.stringify(granted.body)}`);
  const market = await call(cp.urls['host-manager'], 'POST', '/markets', {
    key: cp.adminKey,
    body: { name: `Data plane ${process.pid} ${Date.now()}`, pricePerSecond: 1, defaultDurationSeconds: 900 },
  });
  if (market.status !== 200) throw new Error(`market not created: ${JSON.stringify(market.body)}`);
  return { key: made.body.apiKey.key, market: market.body };
}

/** A job serving "hello" over HTTP on port 8080 until stopped. */
export const webJob = () => ({
  version: '0.1',
  type: 'container',
  ops: [
    {
      type: 'container/run',
      id: 'web',
      args: { image: BUSYBOX_IMAGE, cmd: ['sh', '-c', 'mkdir -p /www && echo hello > /www/index.html && httpd -f -p 8080 -h /www'], expose: 8080 },
    },
  ],
});

export interface AgentProcess {
  lines: string[];
  child: ChildProcess;
  stop(): Promise<void>;
}

/** A real node agent in control-plane mode (a child process), joined through the gateway. */
export async function startAgent(controlPlaneUrl: string, market: { name: string; joinToken: string }): Promise<AgentProcess> {
  const nodeId = testNodeId('gw');
  const lines: string[] = [];
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(__dirname, '../../../node-agent/src/main.ts')], {
    env: {
      ...process.env,
      CONTROL_PLANE_URL: controlPlaneUrl,
      MARKET: market.name,
      JOIN_TOKEN: market.joinToken,
      NODE_KEY: randomBytes(32).toString('hex'),
      NODE_ID: nodeId,
      API_PORT: '0',
      INGRESS_PORT: '0',
      NODE_DOMAIN,
      NODE_GPUS: 'false',
      RESOURCE_CACHE_DIR: testResourceDir(),
      LOG_LEVEL: 'info',
      CONTAINER_MEMORY_MB: '64',
      STOP_GRACE_SECONDS: '1',
      HEALTH_STARTUP_INTERVAL_MS: '200',
      CLAIM_WAIT_SECONDS: '5',
      SYNC_INTERVAL_MS: '1000',
      STOP_JOBS_ON_EXIT: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout!, child.stderr!]) createInterface({ input: stream }).on('line', (l) => lines.push(l));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  await waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`node agent exited:\n${lines.slice(-20).join('\n')}`);
      return lines.some((l) => l.includes('node agent in control-plane mode'));
    },
    { timeoutMs: 60_000, intervalMs: 100, what: 'the node agent to join' },
  );
  return {
    lines,
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
      await removeNodeObjects(nodeId);
    },
  };
}

/** GET through the gateway with a job or node host; never throws (status 0: no answer within 5 s). */
export function viaHost(gatewayUrl: string, host: string, path = '/'): Promise<{ status: number; body: string }> {
  return new Promise((done) => {
    const req = http.get(`${gatewayUrl}${path}`, { headers: { host }, timeout: 5000 }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => done({ status: res.statusCode ?? 0, body }));
      res.on('error', () => done({ status: 0, body: '' }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) => done({ status: 0, body: err.message }));
  });
}
