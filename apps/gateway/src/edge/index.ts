import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Counter, Gauge } from 'prom-client';
import type { Logger } from 'pino';
import { listen, type Metrics, type RunningServer } from '@ocg/http';
import { markEdgeConnection } from '../forwarded';
import { unavailablePage } from '../ingress/pages';
import { edgeFiles, renderEdgeConfig } from './haproxy-config';
import { EdgeRoutes } from './routes';
import { runtimeCommand, runtimePayloadCommand } from './runtime-api';

export interface EdgeOptions {
  host: string;
  /** The edge's HTTPS port (0: any free one, read back from `Edge.port`). */
  port: number;
  /** Its files; default `<tmp>/ocg-edge-<port>` (a fresh directory for port 0). */
  dir?: string;
  /** HAProxy's executable. */
  haproxy: string;
  threads: number;
  maxConnections: number;
  nodeDomain: string;
  tls: { cert: Buffer | string; key: Buffer | string };
  /** TRUSTED_PROXIES, as CIDRs. */
  trustedProxies: string[];
  /** EDGE_PROXY_PROTOCOL_FROM, as CIDRs: load balancers whose connections start with a PROXY protocol header naming the client. */
  proxyProtocolFrom?: string[];
  serverTimeoutMs: number;
  keepAliveMs: number;
  headMs: number;
  /** How long a forward stays in the edge's map before the gateway is asked again (route changes remove it at once). */
  routeTtlMs: number;
  logger: Logger;
  metrics?: Metrics;
  /** A forward failed: the gateway looks the job's route up again. */
  onForwardFailed?: (job: string) => void;
  /** The gateway's server for what the edge hands over: its request handler, and anything else to attach (upgrades, relays). */
  handle: http.RequestListener;
  attach?: (server: http.Server) => void;
}

export interface Edge {
  /** `https://host:port` of the edge. */
  url: string;
  port: number;
  /** A job host label's route has a forward (ADR 0092): the edge sends its requests there until the route changes. */
  learn(label: string, job: string, forward: string): void;
  /** A job's route changed or failed: its labels go back to the gateway. */
  drop(job: string): void;
  /** A renewed certificate: HAProxy serves it to new connections from now on (runtime API, no reload), and after a restart. */
  setCertificate(tls: { cert: Buffer | string; key: Buffer | string }): Promise<void>;
  close(): Promise<void>;
}

/** What HAProxy logs per request (`renderEdgeConfig`'s log format). */
interface EdgeLogLine {
  status: number;
  flags: string;
  backend: string;
  host: string;
  forward: string;
  method: string;
  path: string;
  requestId: string;
  ms: number;
}

const RESTART_DELAYS_MS = [1000, 2000, 5000, 10_000, 30_000];

/**
 * The job hosts' edge (ADR 0093): HAProxy ends TLS on its own port and
 * sends each request whose label has a forward straight to it; the gateway
 * is its control plane. The gateway serves what HAProxy hands it on a Unix
 * socket in the edge's directory, learns each label's forward as it serves
 * it (`learn`), and takes labels back when their job's route changes
 * (`drop`), when a forward fails (read from HAProxy's log), after
 * `routeTtlMs`, and all at once when HAProxy restarts. HAProxy runs as the
 * gateway's child, dies with it, and is restarted with backoff if it exits.
 */
export async function startEdge(o: EdgeOptions): Promise<Edge> {
  const { logger } = o;
  const dir = o.dir ?? (o.port ? join(tmpdir(), `ocg-edge-${o.port}`) : mkdtempSync(join(tmpdir(), 'ocg-edge-')));
  const files = edgeFiles(dir);
  ownDirectory(dir);
  killLeftover(files.pid, files.config);
  rmSync(files.gateway, { force: true });
  rmSync(files.admin, { force: true });
  const port = o.port || (await freeLoopbackPort(o.host));
  const maxConnections = connectionsWithin(o.maxConnections, openFilesLimit(), logger);
  writeFileSync(files.certificate, pemOf(o.tls), { mode: 0o600 });
  writeFileSync(files.forwards, '', { mode: 0o600 });
  // HAProxy's address lists (`src -f`): one CIDR a line.
  const cidrLines = (cidrs: string[]) => cidrs.map((c) => `${c}\n`).join('');
  writeFileSync(files.trusted, cidrLines(o.trustedProxies), { mode: 0o600 });
  writeFileSync(files.proxies, cidrLines(o.proxyProtocolFrom ?? []), { mode: 0o600 });
  writeFileSync(files.unavailable, unavailableResponse(), { mode: 0o600 });
  writeFileSync(
    files.config,
    renderEdgeConfig({
      dir,
      host: o.host,
      port,
      nodeDomain: o.nodeDomain,
      threads: o.threads,
      maxConnections,
      serverTimeoutMs: o.serverTimeoutMs,
      keepAliveMs: o.keepAliveMs,
      headMs: o.headMs,
      trustedProxies: o.trustedProxies,
      proxyProtocolFrom: o.proxyProtocolFrom ?? [],
      logAll: logger.isLevelEnabled('debug'),
    }),
    { mode: 0o600 },
  );

  const inner: RunningServer = await listen(o.handle, { host: '', port: 0, path: files.gateway });
  chmodSync(files.gateway, 0o600);
  o.attach?.(inner.server);
  // First of all, whatever was attached (a relay takes the server's listeners over and calls them only for what it leaves).
  inner.server.prependListener('connection', markEdgeConnection);

  const routes = new EdgeRoutes({
    mapFile: files.forwards,
    domain: o.nodeDomain,
    ttlMs: o.routeTtlMs,
    send: (commands) => runtimeCommand(files.admin, commands),
    logger,
  });
  const restarts =
    o.metrics && new Counter({ name: 'ocg_gateway_edge_restarts_total', help: 'Times the edge proxy (HAProxy) exited and was started again', registers: [o.metrics.registry] });
  if (o.metrics) edgeMetrics(o.metrics, files.admin, routes);

  let child: ChildProcess | undefined;
  let closing = false;
  let failures = 0;
  let restartTimer: NodeJS.Timeout | undefined;

  /** Each failed request of a forward sends its job's labels back to the gateway, which looks the route up again. */
  const onLine = (line: string): void => {
    if (!line.startsWith('{')) return void logStderrLine(logger, line);
    let entry: EdgeLogLine;
    try {
      entry = JSON.parse(line) as EdgeLogLine;
    } catch {
      return void logger.warn({ line }, 'edge log line not understood');
    }
    const failed = entry.backend === 'forwards' && (entry.flags.startsWith('S') || entry.flags.startsWith('s'));
    if (failed) {
      const job = routes.jobOf(entry.host);
      if (job) o.onForwardFailed?.(job);
      routes.dropHost(entry.host);
      logger.warn({ requestId: entry.requestId, target: entry.forward, status: entry.status, flags: entry.flags }, 'job endpoint unreachable');
    } else if (logger.isLevelEnabled('debug')) {
      logger.debug({ requestId: entry.requestId, method: entry.method, path: entry.path, status: entry.status, ms: entry.ms, edge: entry.backend }, 'request');
    }
  };

  const start = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const [command, ...args] = withParentDeath([o.haproxy, '-db', '-f', files.config]);
      const proc = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      child = proc;
      const early: string[] = [];
      createInterface({ input: proc.stdout }).on('line', onLine);
      createInterface({ input: proc.stderr }).on('line', (line) => {
        if (early.length < 20) early.push(line);
        // A soft stop says "Proxy … stopped" for each proxy as a warning: expected then, so at debug.
        if (closing && !line.includes('[ALERT]')) logger.debug({ haproxy: line }, 'edge proxy');
        else logStderrLine(logger, line);
      });
      let ready = false;
      proc.on('error', (err) => reject(new Error(`the edge proxy (${o.haproxy}) could not start: ${err.message}`)));
      proc.on('exit', (code, signal) => {
        rmSync(files.pid, { force: true });
        routes.reset();
        if (!ready)
          return reject(new Error(`the edge proxy exited at start (${signal ?? `code ${code}`}): ${early.filter((l) => /ALERT|error/i.test(l)).join(' | ') || early.join(' | ')}`));
        if (closing) return;
        restarts?.inc();
        restartLater(`the edge proxy exited (${signal ?? `code ${code}`})`);
      });
      if (proc.pid) writeFileSync(files.pid, String(proc.pid), { mode: 0o600 });
      void waitReady(files.admin, () => proc.exitCode !== null || proc.signalCode !== null).then((ok) => {
        // Exited: its exit rejects. Running without answering on its admin socket: of no use, so it is stopped.
        if (!ok) return proc.exitCode === null && proc.signalCode === null && proc.kill('SIGKILL');
        ready = true;
        // A start that lasts a minute counts as well: the next exit starts from the shortest delay again.
        setTimeout(() => (failures = 0), 60_000).unref();
        resolve();
      });
    });

  /** Started again after the next delay of the backoff, and again after that while it does not start. */
  const restartLater = (why: string): void => {
    const delay = RESTART_DELAYS_MS[Math.min(failures, RESTART_DELAYS_MS.length - 1)];
    failures += 1;
    logger.error({ restartInMs: delay }, `${why}; its job hosts are served by HAProxy again in ${delay / 1000} s, by the gateway's own port meanwhile`);
    restartTimer = setTimeout(() => {
      if (closing) return;
      start().then(
        () => logger.info({ url: `https://${o.host}:${port}` }, 'edge proxy started again'),
        (err: Error) => restartLater(`the edge proxy did not start again: ${err.message}`),
      );
    }, delay);
  };

  try {
    await start();
  } catch (err) {
    await inner.close();
    throw err;
  }
  const sweeper = setInterval(() => routes.sweep(Date.now()), Math.max(250, Math.min(o.routeTtlMs, 5000)));
  sweeper.unref();
  const url = `https://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}`;
  logger.info({ url, dir, haproxy: o.haproxy }, 'edge proxy listening for job hosts');
  return {
    url,
    port,
    learn: (label, job, forward) => routes.learn(label, job, forward),
    drop: (job) => routes.dropJob(job),
    async setCertificate(tls) {
      const pem = pemOf(tls);
      // What a restart reads; and what the running HAProxy is told (it keeps the file's name as the certificate's).
      writeFileSync(files.certificate, pem, { mode: 0o600 });
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const set = await runtimePayloadCommand(files.admin, `set ssl cert ${files.certificate}`, pem);
      if (!/Transaction (created|updated)/.test(set)) throw new Error(`the edge did not take the certificate: ${set.trim()}`);
      const commit = await runtimeCommand(files.admin, [`commit ssl cert ${files.certificate}`]);
      if (!/Success!/.test(commit)) {
        await runtimeCommand(files.admin, [`abort ssl cert ${files.certificate}`]).catch(() => undefined);
        throw new Error(`the edge did not commit the certificate: ${commit.trim()}`);
      }
    },
    async close() {
      closing = true;
      routes.close();
      clearInterval(sweeper);
      clearTimeout(restartTimer);
      const proc = child;
      if (proc && proc.exitCode === null && proc.signalCode === null) {
        const exited = new Promise<void>((r) => proc.once('exit', () => r()));
        // SIGUSR1: a soft stop (no new connections, those open finish); `hard-stop-after` bounds it.
        proc.kill('SIGUSR1');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
      await inner.close();
    },
  };
}

/** HAProxy's `crt` file: the chain, then the key. */
function pemOf(tls: { cert: Buffer | string; key: Buffer | string }): string {
  return `${String(tls.cert).trim()}\n${String(tls.key).trim()}\n`;
}

/** The edge's directory: made for this user alone; one that exists must be this user's. */
function ownDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = statSync(dir);
  if (process.getuid && stat.uid !== process.getuid()) throw new Error(`EDGE_DIR ${dir} belongs to another user`);
  chmodSync(dir, 0o700);
}

/** An edge proxy left by a gateway that was killed before it (its pid file, its own configuration): stopped before the port is taken again. */
function killLeftover(pidFile: string, config: string): void {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  rmSync(pidFile, { force: true });
  if (!Number.isInteger(pid) || pid <= 1) return;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (!cmdline.includes(config)) return;
    process.kill(pid, 'SIGKILL');
  } catch {
    return; // gone already
  }
  const until = Date.now() + 2000;
  while (existsSync(`/proc/${pid}`) && Date.now() < until) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
}

/** This process's hard limit of open files (what HAProxy, its child, may raise its own to); undefined: unlimited or unknown. */
function openFilesLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const hard = line?.trim().split(/\s+/)[4];
    return hard && /^\d+$/.test(hard) ? Number(hard) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * HAProxy refuses to start when its connections need more file descriptors
 * than the hard limit allows (about two each, and some of its own): the
 * number is lowered to what fits, and the operator told, rather than the
 * gateway failing to start on a machine with a low limit.
 */
export function connectionsWithin(wanted: number, hardLimit: number | undefined, logger: Logger): number {
  if (hardLimit === undefined || 2 * wanted + EDGE_OWN_FILES <= hardLimit) return wanted;
  const fits = Math.max(16, Math.floor((hardLimit - EDGE_OWN_FILES) / 2));
  logger.warn({ wanted, fits, hardLimit }, `EDGE_MAX_CONNECTIONS lowered to ${fits}: the open files limit (${hardLimit}) allows no more; raise it (ulimit -Hn) for more`);
  return fits;
}

/** File descriptors HAProxy keeps besides two per connection (its listeners, sockets, logs; it asks for 2 x maxconn + 28 here). */
const EDGE_OWN_FILES = 64;

/** Runs `command` so that it is killed when the gateway dies however it dies (util-linux `setpriv`, where there is one). */
function withParentDeath(command: string[]): string[] {
  const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));
  return setpriv ? [setpriv, '--pdeathsig', 'KILL', '--', ...command] : command;
}

async function waitReady(admin: string, exited: () => boolean): Promise<boolean> {
  for (let i = 0; i < 500 && !exited(); i++) {
    try {
      if ((await runtimeCommand(admin, ['show info'], 1000)).includes('Name: HAProxy')) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

function logStderrLine(logger: Logger, line: string): void {
  if (!line.trim()) return;
  if (line.includes('[ALERT]')) logger.error({ haproxy: line }, 'edge proxy');
  else if (line.includes('[WARNING]')) logger.warn({ haproxy: line }, 'edge proxy');
  else logger.debug({ haproxy: line }, 'edge proxy');
}

/** The page HAProxy answers with when a forward cannot be reached (the gateway's own unavailable page). */
function unavailableResponse(): string {
  const html = unavailablePage('The node running this job is not answering; try again shortly.');
  return (
    'HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/html; charset=utf-8\r\ncache-control: no-store\r\nretry-after: 5\r\n' +
    `content-length: ${Buffer.byteLength(html)}\r\nconnection: close\r\n\r\n${html}`
  );
}

async function freeLoopbackPort(host: string): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host || '127.0.0.1', () => {
      const { port } = server.address() as import('node:net').AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** HAProxy's counters, read from its runtime API when Prometheus scrapes. */
function edgeMetrics(metrics: Metrics, admin: string, routes: EdgeRoutes): void {
  const read = async (): Promise<Map<string, Record<string, string>>> => {
    const csv = await runtimeCommand(admin, ['show stat'], 2000);
    const [header, ...rows] = csv.trim().split('\n');
    const names = header.replace(/^# /, '').split(',');
    const byProxy = new Map<string, Record<string, string>>();
    for (const row of rows) {
      const values = row.split(',');
      const entry = Object.fromEntries(names.map((n, i) => [n, values[i]]));
      byProxy.set(`${entry.pxname}/${entry.svname}`, entry);
    }
    return byProxy;
  };
  // One read for the collectors of one scrape (they run together).
  let pending: Promise<Map<string, Record<string, string>>> | undefined;
  const stats = () => (pending ??= read().finally(() => setImmediate(() => (pending = undefined))));
  /** A counter whose values are HAProxy's, set at each scrape by `fill` from its statistics (proxy/server → fields). */
  const counter = (name: string, help: string, labelNames: string[], fill: (stats: Map<string, Record<string, string>>, counter: Counter) => void) =>
    new Counter({
      name,
      help,
      labelNames,
      registers: [metrics.registry],
      async collect() {
        this.reset();
        try {
          fill(await stats(), this);
        } catch (err) {
          metrics.logger?.warn({ err: (err as Error).message, metric: name }, 'edge proxy counters not read');
        }
      },
    });
  counter('ocg_gateway_edge_requests_total', 'Requests the edge proxy sent on, by way: straight to a forward, or to the gateway', ['way'], (s, c) => {
    c.inc({ way: 'forward' }, Number(s.get('forwards/BACKEND')?.req_tot ?? 0));
    c.inc({ way: 'gateway' }, Number(s.get('gateway/BACKEND')?.req_tot ?? 0));
  });
  counter('ocg_gateway_edge_responses_total', 'Answers of the edge proxy, by status class', ['class'], (s, c) => {
    const front = s.get('edge/FRONTEND');
    for (const cls of ['1xx', '2xx', '3xx', '4xx', '5xx']) c.inc({ class: cls }, Number(front?.[`hrsp_${cls}`] ?? 0));
  });
  counter('ocg_gateway_edge_forward_errors_total', 'Connections to forwards that failed, and answers from them that were cut', [], (s, c) => {
    const b = s.get('forwards/BACKEND');
    c.inc(Number(b?.econ || 0) + Number(b?.eresp || 0));
  });
  new Gauge({
    name: 'ocg_gateway_edge_forwards',
    help: 'Job host labels the edge proxy sends straight to their forward',
    registers: [metrics.registry],
    collect() {
      this.set(routes.size);
    },
  });
}
