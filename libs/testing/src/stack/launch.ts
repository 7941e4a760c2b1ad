/**
 * Starts the services of the stack as child processes and waits for each
 * /readyz. Used by the stack launcher and by the end-to-end tests.
 */
import { join, resolve } from 'node:path';
import { waitFor } from '../wait';
import { isConsoleEvent } from './events';
import { STACK_SERVICES } from './services';
import { startTsProcess, type ManagedProcess } from './process';
import { supervise, type RestartPolicy, type Supervisor } from './supervise';

export interface LaunchOptions {
  databaseUrl: string;
  redisUrl: string;
  host?: string;
  /** Port per service name; missing ones use the service's default. */
  ports?: Record<string, number>;
  logLevel?: string;
  /** Services that serve HTTPS (their readiness is probed over https). */
  https?: string[];
  /** Start only these services (default: all, in stack order). */
  only?: string[];
  /** Extra variables for every service (e.g. MASTER_KEY, INTERNAL_TOKEN). */
  env?: Record<string, string>;
  /** Extra variables for one service, by name. */
  serviceEnv?: Record<string, Record<string, string>>;
  /** Progress lines; the launcher prints them, tests may drop them. */
  onStep?: (text: string) => void;
  /** Called when a service exits without being asked to (with `restart`: when it gives up restarting it). */
  onUnexpectedExit?: (name: string, code: number | null, reason?: string) => void;
  /** Where service log lines go (default: stdout). */
  onLine?: (line: string) => void;
  /** Each service's whole output goes to `<logDir>/<service>.log`; `onLine` then gets only its events (see `isConsoleEvent`). */
  logDir?: string;
  /** With `logDir`: every line reaches `onLine` too (LOG_LEVEL=debug in the stack). */
  allLines?: boolean;
  /** A service that dies after it was ready is started again (see `supervise`), a line on `onStep` saying so. */
  restart?: RestartPolicy;
  /** Each service in its own process group: a terminal's Ctrl-C reaches only the launcher, which stops them in order. */
  detached?: boolean;
}

export interface LaunchedStack {
  urls: Record<string, string>;
  processes: Map<string, ManagedProcess>;
  stop(): Promise<void>;
}

const root = resolve(__dirname, '../../../..');

export async function launchServices(opts: LaunchOptions): Promise<LaunchedStack> {
  const host = opts.host ?? '127.0.0.1';
  const urls: Record<string, string> = {};
  const processes = new Map<string, ManagedProcess>();
  const supervisors: Supervisor[] = [];
  let stopping = false;
  const stop = async () => {
    stopping = true;
    for (const supervisor of supervisors) supervisor.stop();
    for (const proc of [...processes.values()].reverse()) await proc.stop();
  };
  try {
    // Every URL is known before the first start: a service may name one that starts after it.
    const portOf = (name: string, fallback: number) => opts.ports?.[name] ?? fallback;
    for (const service of STACK_SERVICES) {
      if (opts.only && !opts.only.includes(service.name)) continue;
      urls[service.name] = `${opts.https?.includes(service.name) ? 'https' : 'http'}://${host}:${portOf(service.name, service.port)}`;
    }
    for (const [index, service] of STACK_SERVICES.entries()) {
      if (opts.only && !opts.only.includes(service.name)) continue;
      const port = portOf(service.name, service.port);
      const env = {
        HOST: host,
        PORT: String(port),
        DATABASE_URL: opts.databaseUrl,
        REDIS_URL: opts.redisUrl,
        LOG_LEVEL: opts.logLevel ?? 'info',
        // Nodes here listen on loopback: host-manager and the gateway must accept such ingress URLs (a test of the refusal overrides it).
        ALLOW_PRIVATE_INGRESS: 'true',
        // Tests and the local stack run on development machines: a launch without MASTER_KEY may use the development key.
        DEVELOPMENT_MACHINE: 'true',
        ...opts.env,
        ...service.env?.(urls),
        ...opts.serviceEnv?.[service.name],
      };
      const defined = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) as Record<string, string>;
      const start = () =>
        startTsProcess(service.name, resolve(root, service.entry), defined, index, opts.onLine, {
          detached: opts.detached,
          logFile: opts.logDir ? join(opts.logDir, `${service.name}.log`) : undefined,
          show: opts.logDir && !opts.allLines ? isConsoleEvent : undefined,
        });
      const proc = start();
      processes.set(service.name, proc);
      if (!opts.restart) {
        void proc.exited.then((code) => {
          if (!stopping) opts.onUnexpectedExit?.(service.name, code);
        });
      }
      await waitReady(service.name, urls[service.name], proc, opts.onStep);
      if (opts.restart) {
        supervisors.push(
          supervise(proc, {
            name: service.name,
            policy: opts.restart,
            start,
            onStart: (next) => processes.set(service.name, next),
            ready: (next) => waitReady(service.name, urls[service.name], next, opts.onStep),
            onStep: (text) => opts.onStep?.(text),
            onGiveUp: (reason) => {
              if (!stopping) opts.onUnexpectedExit?.(service.name, processes.get(service.name)?.child.exitCode ?? null, reason);
            },
          }),
        );
      }
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { urls, processes, stop };
}

async function waitReady(name: string, url: string, proc: ManagedProcess, onStep?: (text: string) => void): Promise<void> {
  const t = Date.now();
  // waitFor retries through errors, so an exit is raced separately: a crashed service fails the start at once.
  const exited = proc.exited.then((code) => {
    throw new Error(`${name} exited (code ${code}) before it was ready; see its log lines`);
  });
  const ready = waitFor(async () => (await fetch(`${url}/readyz`).catch(() => undefined))?.ok, { timeoutMs: 60000, intervalMs: 200, what: `${name} /readyz` });
  await Promise.race([ready, exited]);
  exited.catch(() => undefined);
  onStep?.(`${name} ready at ${url} (${Date.now() - t} ms)`);
}
