import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Router } from 'express';
import type { FieldError, HealthResponse, ReadinessResponse } from '@ocg/contracts';
import { errorBody, ServiceUnavailableError } from './http-error';
import { requestIdOf } from './request-id';
import { isError } from './logger';
import { scrubSecrets } from './scrub';

export type ReadinessCheck = () => Promise<void>;

export interface HealthOptions {
  /** Per check; a dependency slower than this counts as down. Default 2000 ms. */
  timeoutMs?: number;
}

interface CheckResult {
  name: string;
  ok: boolean;
  ms: number;
  error?: string;
}

function withTimeout(check: ReadinessCheck, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  // A check that throws synchronously is as down as one that rejects.
  const run = new Promise<void>((resolve, reject) => check().then(resolve, reject));
  return Promise.race([run, timeout]).finally(() => clearTimeout(timer));
}

async function runCheck(name: string, check: ReadinessCheck, timeoutMs: number): Promise<CheckResult> {
  const started = performance.now();
  const ms = (): number => Math.round(performance.now() - started);
  try {
    await withTimeout(check, timeoutMs);
    return { name, ok: true, ms: ms() };
  } catch (err) {
    const message = isError(err) ? err.message : String(err);
    return { name, ok: false, ms: ms(), error: scrubSecrets(message) };
  }
}

function notReady(failed: CheckResult[]): ServiceUnavailableError {
  const summary = failed.map((c) => `${c.name}: ${c.error}`).join('; ');
  const errors: FieldError[] = failed.map((c) => ({ path: `/checks/${c.name}`, message: c.error ?? 'failed' }));
  return new ServiceUnavailableError(`Not ready: ${summary}`, errors);
}

let loopDelay: { histogram: ReturnType<typeof monitorEventLoopDelay>; since: number } | undefined;

/**
 * The event loop's delay since the last read (p50, p99, max in ms), then a new window
 * starts: how long any request waited to be looked at, the figure that bounded work keeps low.
 */
function eventLoopDelay(): { p50Ms: number; p99Ms: number; maxMs: number; windowMs: number } {
  loopDelay ??= { histogram: monitorEventLoopDelay({ resolution: 10 }), since: Date.now() };
  loopDelay.histogram.enable();
  const { histogram, since } = loopDelay;
  const ms = (ns: number): number => Math.round(ns / 1e4) / 100;
  const out = { p50Ms: ms(histogram.percentile(50)), p99Ms: ms(histogram.percentile(99)), maxMs: ms(histogram.max), windowMs: Date.now() - since };
  histogram.reset();
  loopDelay.since = Date.now();
  return out;
}

/**
 * `/healthz` says the process serves HTTP (liveness: never touches dependencies, so a
 * database outage does not get every pod restarted). `/readyz` runs every check in
 * parallel, each bounded by the timeout, so one hanging dependency cannot hang the probe.
 */
export function healthRoutes(checks: Record<string, ReadinessCheck>, opts: HealthOptions = {}): Router {
  const timeoutMs = opts.timeoutMs ?? 2000;
  const router = Router();
  router.get('/healthz', (_req, res) => {
    const body: HealthResponse = { status: 'ok' };
    res.status(200).json(body);
  });
  // Started with the routes so the first read already covers the time since start.
  eventLoopDelay();
  router.get('/healthz/event-loop', (_req, res) => {
    res.status(200).json(eventLoopDelay());
  });
  router.get('/readyz', async (req, res) => {
    const results = await Promise.all(Object.entries(checks).map(([name, check]) => runCheck(name, check, timeoutMs)));
    const failed = results.filter((r) => !r.ok);
    if (failed.length > 0) {
      const err = notReady(failed);
      req.log?.warn({ checks: results }, err.message);
      res.status(503).json(errorBody(err, requestIdOf(req)));
      return;
    }
    const body: ReadinessResponse = { status: 'ready', checks: Object.fromEntries(results.map((r) => [r.name, { ok: r.ok, ms: r.ms }])) };
    res.status(200).json(body);
  });
  return router;
}
