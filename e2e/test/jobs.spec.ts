/**
 * The whole product as the README's first command runs it: the local stack
 * (HTTPS gateway with its local CA, services, a node agent on the local
 * Docker engine, the demo user and example job), then jobs posted through
 * the gateway and reached at their public host names.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { WebSocket } from 'ws';
import { createApiClient, type ApiClient, type components } from '@ocg/api-client';
import { fetch as tlsFetch } from 'undici';
import { localHttpsDispatcher, localhostLookup, removeNodeObjects, startTsProcess, testDatabase, testNodeId, testRedis, waitFor, type ManagedProcess } from '@ocg/testing';

const root = resolve(__dirname, '../..');
const exec = promisify(execFile);

/** A CGI that answers a WebSocket handshake and sends one text frame, "ready" (busybox has no WebSocket server). */
const WS_CGI = [
  '#!/bin/sh',
  `accept=$(printf '%s' "\${HTTP_SEC_WEBSOCKET_KEY}258EAFA5-E914-47DA-95CA-C5AB0DC85B11" | sha1sum | cut -d' ' -f1 | xxd -r -p | base64)`,
  `printf 'HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Accept: %s\\r\\n\\r\\n' "$accept"`,
  `printf '\\201\\005ready'`,
  'sleep 1',
].join('\n');

function webJob(script: string): components['schemas']['JobDefinition'] {
  return {
    version: '0.1',
    type: 'container',
    ops: [{ type: 'container/run', id: 'web', args: { image: 'ocg/busybox:local', cmd: ['sh', '-c', script], expose: [8080] } }],
  };
}

describe('jobs through the local stack', () => {
  const lines: string[] = [];
  const nodeId = testNodeId('e2e-stack');
  let dataDir: string;
  let stack: ManagedProcess;
  let gateway: string;
  let caFile: string;
  let user: ApiClient;
  let userKey: string;
  let dropDb: () => Promise<void>;

  let dispatcher: ReturnType<typeof localHttpsDispatcher>;
  // jest's sandbox has its own globals, so the CA is passed per request rather than installed globally.
  const get = (url: string) => tlsFetch(url, { dispatcher });
  const clientFetch = async (input: string | URL | Request): Promise<Response> => {
    const req = input instanceof Request ? input : new Request(input);
    return (await tlsFetch(req.url, { method: req.method, headers: [...req.headers], body: req.body ? await req.text() : undefined, dispatcher })) as unknown as Response;
  };
  const line = (label: string) => lines.find((l) => l.includes(label));

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ocg-e2e-stack-'));
    const db = await testDatabase();
    dropDb = db.drop;
    const redis = await testRedis();
    stack = startTsProcess(
      'stack',
      join(root, 'tools/stack/main.ts'),
      // The agent's Docker objects carry a node id owned by this process: swept even when the run is killed.
      { STACK_DATA_DIR: dataDir, STACK_FREE_PORTS: '1', DATABASE_URL: db.url, REDIS_URL: redis.url, LOG_LEVEL: 'warn', NODE_ID: nodeId },
      0,
      (l) => lines.push(l),
    );
    let exited = false;
    void stack.exited.then(() => (exited = true));
    await waitFor(
      async () => {
        if (exited) throw new Error(`the stack exited:\n${lines.slice(-30).join('\n')}`);
        return line('Its service:');
      },
      { timeoutMs: 280000, intervalMs: 500, what: 'the stack to post its example job' },
    );
    gateway = line('Gateway:')!.match(/https:\/\/\S+/)![0];
    caFile = join(dataDir, 'tls', 'ca.crt');
    // Trusts the stack's CA and sends *.localhost to loopback, as curl and browsers do.
    dispatcher = localHttpsDispatcher(caFile);
    userKey = JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8')).userKey;
    user = createApiClient({ baseUrl: gateway, apiKey: userKey, fetch: clientFetch });
  }, 300000);

  afterAll(async () => {
    await stack?.stop(60000);
    await removeNodeObjects(nodeId);
    await dropDb?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const post = async (definition: components['schemas']['JobDefinition'], durationSeconds = 600) => {
    const res = await user.POST('/jobs', { body: { definition, market: 'local-cpu', durationSeconds } });
    if (!res.data) throw new Error(`post failed: ${res.response.status} ${JSON.stringify(res.error)}`);
    return res.data;
  };
  const jobUrl = async (address: string) =>
    waitFor(async () => (await user.GET('/jobs/{job}', { params: { path: { job: address } } })).data?.url ?? undefined, { timeoutMs: 60000, what: 'the job URL' });

  it("serves the README example's service through the gateway's HTTPS ingress, trusting the local CA", async () => {
    const url = line('Its service:')!.match(/https:\/\/\S+/)![0];
    expect(url).toMatch(/^https:\/\/[1-9A-HJ-NP-Za-km-z]{32,44}\.nodes\.localhost:\d+$/);
    const res = await get(url);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('Hello from an Open Compute Gateway job\n');
  });

  it('redirects plain HTTP to HTTPS', async () => {
    const httpUrl = line('Gateway:')!.match(/http:\/\/\S+/)![0];
    const res = await fetch(`${httpUrl}/auth/scopes`, { redirect: 'manual' });
    expect(res.status).toBe(308);
    expect(res.headers.get('location')).toBe(`${gateway}/auth/scopes`);
  });

  it('answers the not-found page until the service is ready, then the service', async () => {
    const job = await post(webJob('sleep 6; echo late > /www/index.html; exec httpd -f -p 8080 -h /www'));
    const url = await jobUrl(job.address);
    const early = await get(url);
    expect(early.status).toBe(404);
    expect(early.headers.get('content-type')).toMatch(/text\/html/);
    const late = await waitFor(
      async () => {
        const res = await get(url);
        return res.status === 200 ? res.text() : undefined;
      },
      { timeoutMs: 60000, what: 'the slow service' },
    );
    expect(late).toBe('late\n');
  });

  it('passes a WebSocket through the gateway to the job', async () => {
    const script = `echo ok > /www/index.html && mkdir -p /www/cgi-bin && printf '%s\\n' '${WS_CGI.replace(/'/g, `'\\''`)}' > /www/cgi-bin/ws && chmod +x /www/cgi-bin/ws && exec httpd -f -p 8080 -h /www`;
    const job = await post(webJob(script));
    const url = await jobUrl(job.address);
    await waitFor(async () => (await get(url)).status !== 404 || undefined, { timeoutMs: 60000, what: 'the WebSocket job' });
    const message = await new Promise<string>((resolvePromise, reject) => {
      const socket = new WebSocket(`${url.replace('https', 'wss')}/cgi-bin/ws`, { ca: readFileSync(caFile), lookup: localhostLookup });
      socket.on('message', (m) => {
        resolvePromise(m.toString());
        socket.terminate();
      });
      socket.on('error', reject);
    });
    expect(message).toBe('ready');
  });

  it('prints the result lines of `ocg job post` and waits for the endpoint', async () => {
    const { stdout } = await exec(
      process.execPath,
      ['--import', 'tsx', join(root, 'apps/cli/src/main.ts'), 'job', 'post', '--file', join(root, 'examples/hello.json'), '--market', 'local-cpu', '--wait'],
      {
        cwd: root,
        env: { ...process.env, OCG_GATEWAY_URL: gateway, OCG_API_KEY: userKey, NODE_EXTRA_CA_CERTS: caFile },
        timeout: 180000,
      },
    );
    for (const label of ['network', 'wallet', 'balances', 'price per second', 'total price', 'service URL', 'job link', 'market link', 'definition', 'status']) {
      expect(stdout).toMatch(new RegExp(`^${label}\\s+\\S`, 'm'));
    }
    expect(stdout).toMatch(/^status\s+RUNNING$/m);
    // Without --timeout the total is the price per second times the market default, 7200 s.
    expect(stdout).toMatch(/^total price\s+0\.720000 credits for 7200 s/m);
    expect(stdout).toMatch(/^endpoint\s+answering/m);
  });

  it('takes the service down when a one-minute duration ends, and settles it', async () => {
    const job = await post(webJob('echo brief > /www/index.html; exec httpd -f -p 8080 -h /www'), 60);
    const url = await jobUrl(job.address);
    await waitFor(async () => (await get(url)).status === 200 || undefined, { timeoutMs: 60000, what: 'the one-minute job' });
    const ended = await waitFor(
      async () => {
        const res = await user.GET('/jobs/{job}', { params: { path: { job: job.address } } });
        return res.data?.status === 'STOPPED' ? res.data : undefined;
      },
      { timeoutMs: 120000, intervalMs: 1000, what: 'the job to stop at the end of its duration' },
    );
    expect(ended.reason).toBe('duration ended');
    expect(ended.billedSeconds).toBeLessThanOrEqual(60);
    const after = await get(url);
    expect(after.status).toBe(404);
  }, 200000);
});
