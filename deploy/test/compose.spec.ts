/**
 * deploy/compose.yaml end to end: `docker-compose up` on the images, then the
 * README's flow through the composed HTTPS gateway: an operator makes a
 * market and a user (the generated client), the node agent joins with the
 * market's token, the user posts examples/hello.json with the CLI image, and
 * its endpoint answers at its URL, through the gateway's edge (HAProxy in the
 * gateway's container), and on the gateway's own HTTPS port. A project of its
 * own per run (`-p ocg-test-<random>`), every port published on 127.0.0.1 and
 * chosen by Docker (read back with `docker-compose port`) but the edge's,
 * which job URLs name (a free port picked here), the job stopped before
 * `down -v` removes what the project made.
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createApiClient, type ApiClient } from '@ocg/api-client';
import { fetch as tlsFetch } from 'undici';
import { ensureBusyboxImage, freePort, localHttpsDispatcher, waitFor } from '@ocg/testing';
import { imageRef, images, makeComposeEnv, run, type BuildResult } from './support/images';

const root = resolve(__dirname, '../..');
const project = `ocg-test-${randomBytes(4).toString('hex')}`;
const dir = join(root, 'tmp', project);
const MARKET = 'compose-cpu';
/** Reading the host's iptables rules needs root (CI runs as root). */
const isRoot = process.getuid?.() === 0;
let envFile = '';
let gateway = '';
let caFile = '';
let job: string | undefined;
let userKey = '';
let adminKey = '';
/** The edge's published port, which deployment-manager puts in job URLs (NODE_PUBLIC_PORT). */
let edgePort = 0;

const compose = (...args: string[]): string =>
  run('docker-compose', ['-p', project, '-f', join(root, 'deploy/compose.yaml'), '--env-file', envFile, ...args], { timeoutMs: 600_000 });
let dispatcher: ReturnType<typeof localHttpsDispatcher>;
/** fetch over the run's CA, with *.localhost sent to 127.0.0.1. */
const get = (url: string | URL) => tlsFetch(url, { dispatcher });
const clientFetch = async (req: Request): Promise<Response> =>
  (await tlsFetch(req.url, { method: req.method, headers: [...req.headers], body: req.body ? await req.text() : undefined, dispatcher })) as unknown as Response;
const client = (apiKey: string): ApiClient => createApiClient({ baseUrl: gateway, apiKey, fetch: clientFetch as typeof fetch });

function must<T>(what: string, res: { data?: T; error?: unknown; response: Response }): T {
  if (res.data !== undefined && res.response.ok) return res.data;
  throw new Error(`${what}: ${res.response.status} ${JSON.stringify(res.error)}`);
}

/** The CLI image against the composed gateway (host network: the gateway is published on 127.0.0.1). */
function cli(apiKey: string, ...args: string[]): string {
  return run('docker', [
    'run',
    '--rm',
    '--name',
    `${project}-cli-${randomBytes(3).toString('hex')}`,
    '--label',
    `ocg.test=${project}`,
    '--network',
    'host',
    '-v',
    `${caFile}:/run/ca.crt:ro`,
    '-v',
    `${join(root, 'examples')}:/examples:ro`,
    '-e',
    'NODE_EXTRA_CA_CERTS=/run/ca.crt',
    '-e',
    `OCG_GATEWAY_URL=${gateway}`,
    '-e',
    `OCG_API_KEY=${apiKey}`,
    imageRef(built, 'cli'),
    ...args,
  ]);
}

let built: BuildResult;

beforeAll(async () => {
  built = images();
  await ensureBusyboxImage('ocg/busybox:local'); // examples/hello.json's image, made locally (no registry)
  mkdirSync(dir, { recursive: true });
  edgePort = await freePort();
  ({ envFile } = makeComposeEnv(dir, {
    GATEWAY_HTTPS_ADDRESS: '127.0.0.1:',
    GATEWAY_HTTP_ADDRESS: '127.0.0.1:',
    GATEWAY_EDGE_ADDRESS: `127.0.0.1:${edgePort}`,
    NODE_PUBLIC_PORT: String(edgePort),
    POSTGRES_IMAGE: imageRef(built, 'postgres'),
    REDIS_IMAGE: imageRef(built, 'redis'),
    OCG_TAG: built.setTag!,
    STOP_JOBS_ON_EXIT: 'true',
    // Where host.docker.internal leads (the default bridge's gateway): the ingress stays off the LAN.
    NODE_AGENT_HOST: run('docker', ['network', 'inspect', 'bridge', '-f', '{{(index .IPAM.Config 0).Gateway}}']).trim(),
  }));
  caFile = join(dir, 'tls/ca.crt');
  dispatcher = localHttpsDispatcher(caFile);
  adminKey = /^ADMIN_API_KEY=(.*)$/m.exec(readFileSync(envFile, 'utf8'))![1];
}, 1_200_000);

let down = false;
let node: string | undefined;

/** Ends the job, then the project: the agent drains on SIGTERM (STOP_JOBS_ON_EXIT) and is stopped first, the gateway still listening. */
function tearDown(): void {
  if (down || !envFile) return;
  down = true;
  if (job && userKey) {
    try {
      cli(userKey, 'job', 'stop', job);
    } catch (err) {
      console.warn(`stopping job ${job}: ${(err as Error).message}`);
    }
  }
  compose('down', '-v', '--timeout', '120');
}

afterAll(() => {
  tearDown();
  rmSync(dir, { recursive: true, force: true });
}, 300_000);

it('runs the product from the images and serves a posted job at its HTTPS endpoint through the gateway and its edge', async () => {
  compose('up', '-d', 'gateway');
  const port = compose('port', 'gateway', '8443').trim().split(':').pop();
  gateway = `https://localhost:${port}`;
  const scopes = (await (await get(`${gateway}/auth/scopes`)).json()) as { scopes: unknown[] };
  expect(scopes.scopes.length).toBeGreaterThan(0);
  const httpPort = compose('port', 'gateway', '8080').trim().split(':').pop();
  const redirect = await fetch(`http://127.0.0.1:${httpPort}/auth/scopes`, { redirect: 'manual' });
  expect(redirect.status).toBe(308);

  const admin = client(adminKey);
  const market = must('creating the market', await admin.POST('/markets', { body: { name: MARKET, pricePerSecond: 100 } }));
  const email = `${project}@example.com`;
  userKey = must('creating the user', await admin.POST('/users', { body: { email, name: 'Compose test' } })).apiKey.key;
  must('granting credits', await admin.POST('/credits/grant', { body: { email, amount: 10_000_000, reason: 'compose test' } }));

  // The operator's second step: the market and its join token in .env, then the node agent.
  const [apiPort, ingressPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
  appendFileSync(
    envFile,
    [
      `MARKET=${MARKET}`,
      `JOIN_TOKEN=${market.joinToken}`,
      `CONTROL_PLANE_URL=${gateway}`,
      `NODE_API_PORT=${apiPort}`,
      `NODE_INGRESS_PORT=${ingressPort}`,
      `NODE_METRICS_PORT=${metricsPort}`,
      '',
    ].join('\n'),
  );
  compose('up', '-d', 'node-agent');
  node = await waitFor(async () => (await admin.GET('/nodes', { params: { query: { market: MARKET } } })).data?.nodes.find((n) => n.status === 'ONLINE')?.address, {
    timeoutMs: 90_000,
    intervalMs: 500,
    what: 'the node agent to join the market',
  }).catch((err: Error) => {
    throw new Error(`${err.message}\n${compose('logs', '--tail', '50', 'node-agent')}`);
  });
  expect(node).toBeTruthy();

  const posted = JSON.parse(cli(userKey, 'job', 'post', '--file', '/examples/hello.json', '--market', MARKET, '--json')) as { address: string };
  job = posted.address;
  const user = client(userKey);
  const running = await waitFor(
    async () => {
      const res = await user.GET('/jobs/{job}', { params: { path: { job: job! } } });
      if (res.data && !['QUEUED', 'RUNNING'].includes(res.data.status)) throw new Error(`the job ended ${res.data.status}: ${res.data.reason}`);
      return res.data?.status === 'RUNNING' && res.data.url ? res.data : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 500, what: 'the example job to run' },
  );
  // The job's URL names the edge's published port (NODE_PUBLIC_PORT): HAProxy in the gateway's container.
  const endpoint = new URL(running.url!);
  expect(endpoint.hostname.toLowerCase()).toBe(`${job.toLowerCase()}.nodes.localhost`);
  expect(endpoint.port).toBe(String(edgePort));
  const answer = (url: URL) =>
    waitFor(
      async () => {
        const res = await get(url);
        return res.status === 200 ? res.text() : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: `the job's endpoint ${url.href}` },
    );
  expect(await answer(endpoint)).toContain('Hello from an Open Compute Gateway job');
  // The gateway's own HTTPS port serves job hosts as well (what the edge hands over, and all of it without the edge).
  const direct = new URL(endpoint);
  direct.port = port!;
  expect(await answer(direct)).toContain('Hello from an Open Compute Gateway job');
  // HAProxy runs in the gateway's container as its user, and answered the request at the job's URL.
  const container = compose('ps', '-q', 'gateway').trim();
  const edge = run('docker', ['top', container, '-o', 'uid,pid,args'])
    .split('\n')
    .filter((line) => /\bhaproxy -db -f \/tmp\/ocg-edge-\d+\/haproxy\.cfg/.test(line));
  expect(edge).toHaveLength(1);
  expect(edge[0].trim().split(/\s+/)[0]).toBe('1000');
  const metrics = run('docker', ['exec', container, 'node', '-e', 'fetch("http://127.0.0.1:9464/metrics").then((r) => r.text()).then(console.log)']);
  expect(Number(/^ocg_gateway_edge_responses_total\{class="2xx"\} (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
  // The agent in its container isolated the job's network on the host (NET_ADMIN, host network namespace).
  if (isRoot) expect(run('iptables', ['-S', 'DOCKER-USER'])).toContain(`ocg-job-${job} `);
}, 900_000);

it('stops the job, and down -v leaves nothing of the project or of its node in the engine', () => {
  expect(node).toBeTruthy();
  tearDown();
  const left = (kind: string, label: string): string => run('docker', [kind, 'ls', ...(kind === 'container' ? ['-a'] : []), '-q', '--filter', `label=${label}`]).trim();
  for (const kind of ['container', 'network', 'volume']) {
    expect(left(kind, `com.docker.compose.project=${project}`)).toBe('');
    expect(left(kind, `ocg.node=${node}`)).toBe('');
  }
  if (isRoot) expect(run('iptables', ['-S', 'DOCKER-USER'])).not.toContain(`ocg-job-${job} `);
}, 300_000);
