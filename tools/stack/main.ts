/**
 * The local stack: one command starts Postgres (embedded) and Redis when no
 * URLs are given, every service behind the gateway on HTTPS (a local CA made
 * on first start), a node agent on the local Docker engine in a local
 * market, and a demo user whose example job it posts and waits for until its
 * service answers through the gateway. Ctrl-C or SIGTERM stops everything it
 * started, in order: the node agent first (it stops every job, reports it to
 * the control plane and removes its containers, networks and volumes), then
 * the services, then the Docker engine if the stack started it, then Redis
 * and Postgres. Its children run in their own process groups, so the
 * terminal's Ctrl-C reaches only this launcher, which owns the order; a
 * closed terminal (SIGHUP) stops it the same way, and should the launcher be
 * killed outright, each of its children stops itself, the node agent
 * draining its jobs (startTsProcess: the end of a stdin pipe).
 *
 * The console gets a line per event (a service ready, the node online, job
 * and endpoint state changes, warnings and errors); each service's whole log
 * goes to <data dir>/logs/<service>.log, and LOG_LEVEL=debug shows every line
 * on the console too. A service or the node agent that dies is started again
 * after a growing delay (DEFAULT_RESTART_POLICY); only after several restarts
 * in a row does the stack give up and stop, the node agent first.
 *
 *   npm run stack    (variables: DATABASE_URL, REDIS_URL, STACK_HOST, GATEWAY_PORT, GATEWAY_HTTP_PORT, STACK_DATA_DIR, STACK_FREE_PORTS=1,
 *                     STACK_PG_PORT, STACK_REDIS_PORT, STACK_DEMO=0, LOG_LEVEL)
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import {
  DEFAULT_RESTART_POLICY,
  ensureBusyboxImage,
  ensureDocker,
  ensureLocalTls,
  findExecutable,
  freePort,
  isConsoleEvent,
  launchServices,
  startPostgresServer,
  startRedisServer,
  startTsProcess,
  supervise,
  trustLocalCa,
} from '@ocg/testing';
import { loadOrCreateSecrets } from './secrets';
import { DEMO_MARKET, ensureDemo, postExample, waitForNode } from './demo';
import { requireSupportedNode } from '../node-version';

requireSupportedNode('stack');

const root = resolve(__dirname, '../..');
const dataDir = resolve(process.env.STACK_DATA_DIR ?? join(root, '.data'));
const logDir = join(dataDir, 'logs');
/** At debug (or trace) every log line reaches the console, request lines included. */
const allLines = ['debug', 'trace'].includes(process.env.LOG_LEVEL ?? '');
/** Free ports everywhere instead of the fixed defaults (tests run the stack beside anything else). */
const freePorts = process.env.STACK_FREE_PORTS === '1';
const port = async (fixed: number, variable?: string): Promise<number> => (variable && process.env[variable] ? Number(process.env[variable]) : freePorts ? freePort() : fixed);
const NODE_DOMAIN = 'nodes.localhost';
/** What runs, stopped in this order: the agent reports its jobs ended while the services still listen. */
const STOP_ORDER = ['node-agent', 'services', 'docker', 'redis', 'postgres'] as const;
/** `saying`: the line printed when it stops, when not "stopping <name>". */
const stoppers: { name: (typeof STOP_ORDER)[number]; saying?: string; stop(): Promise<void> }[] = [];
let stopping = false;

const step = (text: string): void => console.log(`stack: ${text}`);

/** A path as the summary prints it: relative to the checkout (where `npm run stack` runs) when inside it, else absolute. */
function shown(path: string, base = root): string {
  const rel = relative(base, path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/** The argument of `require(...)` in a printed command: a relative path must start with `./`. */
function requirable(path: string, base = root): string {
  const p = shown(path, base);
  return isAbsolute(p) ? p : `./${p}`;
}

async function dependencies(): Promise<{ databaseUrl: string; redisUrl: string }> {
  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    const t = Date.now();
    const pg = await startPostgresServer({ dataDir: join(dataDir, 'postgres'), port: await port(54320, 'STACK_PG_PORT'), durable: true, logFile: join(logDir, 'postgres.log') });
    stoppers.push({ name: 'postgres', stop: pg.stop });
    databaseUrl = pg.url;
    step(`embedded Postgres ready on port ${pg.port}, data in ${shown(join(dataDir, 'postgres'))} (${Date.now() - t} ms)`);
  }
  let redisUrl = process.env.REDIS_URL;
  if (!redisUrl) {
    const t = Date.now();
    const redis = await startRedisServer({ port: await port(63790, 'STACK_REDIS_PORT'), dataDir: join(dataDir, 'redis') });
    stoppers.push({ name: 'redis', stop: redis.stop });
    redisUrl = redis.url;
    step(`redis-server ready on port ${redis.port} (${Date.now() - t} ms)`);
  }
  return { databaseUrl, redisUrl };
}

async function main(): Promise<void> {
  // SIGHUP: the terminal closed; stopped in order as on Ctrl-C.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(0));
  const { databaseUrl, redisUrl } = await dependencies();
  const { secrets, created } = loadOrCreateSecrets(join(dataDir, 'secrets.json'));
  step(`${created ? 'created' : 'using'} the master key, internal token and admin API key in ${shown(join(dataDir, 'secrets.json'))}`);
  const tls = await ensureLocalTls({ dir: join(dataDir, 'tls'), dnsNames: ['localhost', `*.${NODE_DOMAIN}`], ips: ['127.0.0.1'] });
  step(`${tls.created ? 'created' : 'using'} a local CA and a certificate for localhost and *.${NODE_DOMAIN} in ${shown(join(dataDir, 'tls'))}`);
  trustLocalCa(tls.caCertFile);

  const httpsPort = await port(8443, 'GATEWAY_PORT');
  const httpPort = await port(8080, 'GATEWAY_HTTP_PORT');
  // Job hosts' own HTTPS port, served by HAProxy as the gateway's child (ADR 0093); without HAProxy, the gateway's port serves them.
  const edgePort = process.env.STACK_EDGE === '0' || !findExecutable('haproxy') ? undefined : await port(9443, 'EDGE_PORT');
  step(
    edgePort
      ? `job hosts at https://*.${NODE_DOMAIN}:${edgePort} (HAProxy, the gateway's edge)`
      : `job hosts at the gateway's port (${process.env.STACK_EDGE === '0' ? 'STACK_EDGE=0' : 'no haproxy on this machine'})`,
  );
  const ports: Record<string, number> = { gateway: httpsPort };
  if (freePorts) for (const name of ['client-manager', 'host-manager', 'deployment-manager']) ports[name] = await freePort();
  const stack = await launchServices({
    databaseUrl,
    redisUrl,
    host: process.env.STACK_HOST,
    ports,
    https: ['gateway'],
    logLevel: process.env.LOG_LEVEL,
    // The demo node's ingress is on loopback, which the gateway refuses by default.
    env: { ...secrets, NODE_DOMAIN, ALLOW_PRIVATE_INGRESS: 'true' },
    serviceEnv: {
      gateway: { TLS_CERT_FILE: tls.certFile, TLS_KEY_FILE: tls.keyFile, HTTP_REDIRECT_PORT: String(httpPort), ...(edgePort ? { EDGE_PORT: String(edgePort) } : {}) },
      'deployment-manager': { PUBLIC_URL: `https://localhost:${httpsPort}`, NODE_PUBLIC_PORT: String(edgePort ?? httpsPort) },
    },
    onStep: step,
    detached: true,
    logDir,
    allLines,
    restart: DEFAULT_RESTART_POLICY,
    onUnexpectedExit: (name, code, reason) => {
      step(`${reason ?? `${name} exited unexpectedly (code ${code})`}; stopping the stack`);
      void shutdown(1);
    },
  });
  step(`each service logs to ${shown(logDir)}/<service>.log; ${allLines ? 'every line is shown here too' : 'here: events only (LOG_LEVEL=debug shows every line)'}`);
  stoppers.push({ name: 'services', stop: stack.stop });
  const gateway = `https://localhost:${httpsPort}`;
  const scopes = (await (await fetch(`${gateway}/auth/scopes`)).json()) as { scopes: unknown[] };
  step(`GET ${gateway}/auth/scopes -> ${scopes.scopes.length} scopes`);

  const example = process.env.STACK_DEMO === '0' ? undefined : await demo(gateway, secrets.ADMIN_API_KEY, tls.caCertFile);
  printSummary(gateway, httpPort, tls.caCertFile, example);
}

async function demo(gateway: string, adminKey: string, caFile: string): Promise<{ url: string; link: string; userKey: string } | undefined> {
  // An engine already running is used and left running; one the stack starts keeps its state under the data directory.
  const docker = await ensureDocker({ logFile: join(logDir, 'dockerd.log'), dockerdArgs: ['--data-root', join(dataDir, 'docker')] });
  if (!docker.available) {
    step(`no demo node: ${docker.reason}`);
    return undefined;
  }
  // An engine that was running before is only let go of (and stays running).
  stoppers.push({ name: 'docker', saying: docker.started ? undefined : 'leaving docker running (it was running before the stack)', stop: async () => docker.release() });
  const state = await ensureDemo(gateway, adminKey, join(dataDir, 'demo.json'));
  step(`demo market "${DEMO_MARKET}" and user ${state.userEmail} (credits granted once)`);
  await ensureBusyboxImage('ocg/busybox:local');
  const isolation = networkIsolationSetting();
  const ingressPort = await port(8091);
  const agentEnv = {
    ...(process.env as Record<string, string>),
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    CONTROL_PLANE_URL: gateway,
    MARKET: DEMO_MARKET,
    JOIN_TOKEN: state.joinToken,
    NODE_DOMAIN,
    API_PORT: String(await port(8090)),
    INGRESS_PORT: String(ingressPort),
    INGRESS_URL: `http://127.0.0.1:${ingressPort}`,
    NODE_KEY_FILE: join(dataDir, 'node.key'),
    RESOURCE_CACHE_DIR: join(dataDir, 'resources'),
    NODE_EXTRA_CA_CERTS: caFile,
    SYNC_INTERVAL_MS: '2000',
    STOP_JOBS_ON_EXIT: 'true',
    NETWORK_ISOLATION: isolation,
    // Ready endpoints forwarded by the kernel (ADR 0092), which needs root as isolation does; another stack's agent on this
    // machine takes other ports of the range (each port is held while forwarded).
    FORWARD_PORTS: process.env.FORWARD_PORTS ?? (isolation === 'true' ? '20000-20999' : ''),
    // A registry of your own on this machine (docker-registry on 127.0.0.1) may serve the stack's jobs.
    ALLOW_PRIVATE_REGISTRIES: process.env.ALLOW_PRIVATE_REGISTRIES ?? '127.0.0.1,localhost',
  };
  const startAgent = () =>
    startTsProcess('node-agent', join(root, 'apps/node-agent/src/main.ts'), agentEnv, 4, undefined, {
      detached: true,
      logFile: join(logDir, 'node-agent.log'),
      show: allLines ? undefined : isConsoleEvent,
    });
  // Started again, it keeps its key and adopts the containers of its running jobs.
  const agent = supervise(startAgent(), {
    name: 'node-agent',
    policy: DEFAULT_RESTART_POLICY,
    start: startAgent,
    onStep: step,
    onGiveUp: (reason) => {
      step(`${reason}; stopping the stack`);
      void shutdown(1);
    },
  });
  // Draining: every job stopped (grace period), reported and removed.
  stoppers.push({
    name: 'node-agent',
    stop: () => {
      agent.stop();
      return agent.current().stop(120_000);
    },
  });
  const node = await waitForNode(gateway, adminKey);
  step(`node ${node} online in "${DEMO_MARKET}", ingress http://127.0.0.1:${ingressPort}`);
  const definition = JSON.parse(readFileSync(join(root, 'examples/hello.json'), 'utf8')) as Parameters<typeof postExample>[2];
  const job = await postExample(gateway, state.userKey, definition, (text) => step(text));
  return { ...job, userKey: state.userKey };
}

/**
 * Job networks are isolated with iptables, which needs root. A developer
 * running the stack as a member of the docker group gets a node without
 * isolation, said out loud; NETWORK_ISOLATION=true makes the node refuse
 * instead.
 */
function networkIsolationSetting(): string {
  if (process.env.NETWORK_ISOLATION) return process.env.NETWORK_ISOLATION;
  if (process.getuid?.() === 0) return 'true';
  step('not root: the demo node runs jobs WITHOUT network isolation (they can reach this machine and its LAN); run as root to isolate them');
  return 'false';
}

function printSummary(gateway: string, httpPort: number, caFile: string, example?: { url: string; link: string; userKey: string }): void {
  const ca = shown(caFile);
  const lines = [
    '',
    `  Gateway:      ${gateway}   (plain http://localhost:${httpPort} redirects here)`,
    `  API docs:     ${gateway}/docs`,
    `  Trust the CA: curl --cacert ${ca} ...   |   NODE_EXTRA_CA_CERTS=${ca}   |   cp ${ca} /usr/local/share/ca-certificates/ocg-local.crt && update-ca-certificates`,
    `  Admin key:    export OCG_API_KEY=$(node -p "require('${requirable(join(dataDir, 'secrets.json'))}').ADMIN_API_KEY")`,
  ];
  if (example) {
    lines.push(
      `  Demo key:     export OCG_API_KEY=$(node -p "require('${requirable(join(dataDir, 'demo.json'))}').userKey")`,
      `  Example job:  ${example.link}`,
      `  Its service:  curl --cacert ${ca} ${example.url}`,
    );
  }
  lines.push('', '  Ctrl-C stops everything.', '');
  console.log(lines.join('\n'));
}

async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  step('stopping');
  const ordered = [...stoppers].sort((a, b) => STOP_ORDER.indexOf(a.name) - STOP_ORDER.indexOf(b.name));
  for (const item of ordered) {
    step(item.saying ?? `stopping ${item.name}`);
    await item.stop().catch((err: unknown) => step(`${item.name} did not stop cleanly: ${(err as Error).message}`));
  }
  step('stopped');
  process.exit(code);
}

main().catch(async (err: unknown) => {
  console.error(`stack: ${(err as Error).message}`);
  await shutdown(1);
});
