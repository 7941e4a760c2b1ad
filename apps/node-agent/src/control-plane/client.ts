import { signNodeRequest, type WalletSigner } from '@ocg/auth';
import { ServiceClient, ServiceUnavailableError, type Tracing } from '@ocg/http';

/** The control plane answered, with an error status. */
export class ControlPlaneError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    what: string,
  ) {
    const message = (body as { message?: unknown } | undefined)?.message;
    super(`${what}: ${status}${typeof message === 'string' ? ` ${message}` : ''}`);
    this.name = 'ControlPlaneError';
  }
}

/**
 * Requests to the control plane (the gateway, which routes node routes to
 * host-manager and deployment-manager), each signed by the node key over
 * method, path and body, with a timeout.
 */
export class ControlPlaneClient {
  private readonly service: ServiceClient;

  constructor(
    baseUrl: string,
    readonly signer: WalletSigner,
    private readonly timeoutMs: number,
    tracing?: Tracing,
  ) {
    // Claims, reports and heartbeats run on timers: each call starts its own trace, recorded when `tracing` records.
    this.service = new ServiceClient({ service: 'control plane', baseUrl, timeoutMs, tracing });
  }

  get address(): string {
    return this.signer.address;
  }

  /** POSTs `body` as JSON, once; answers the parsed 2xx body, throws ControlPlaneError otherwise (Error when nothing answered). */
  async post<T>(path: string, body: unknown, opts: { extraTimeoutMs?: number; signal?: AbortSignal } = {}): Promise<T> {
    const url = new URL(path, this.service.opts.baseUrl);
    const headers = signNodeRequest(this.signer, { method: 'POST', path: url.pathname + url.search, body });
    const timeoutMs = this.timeoutMs + (opts.extraTimeoutMs ?? 0);
    const res = await this.service.request({ method: 'POST', path, body, headers, timeoutMs, signal: opts.signal }).catch((err: Error) => {
      throw err instanceof ServiceUnavailableError ? new Error(`POST ${path}: ${err.internalDetail ?? err.message}`) : err;
    });
    const parsed: unknown = res.text ? safeJson(res.text) : undefined;
    if (!res.ok) throw new ControlPlaneError(res.status, parsed, `POST ${path}`);
    return parsed as T;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { message: text.slice(0, 200) };
  }
}

/** Waits `ms`, or less when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done);
  });
}

/** Exponential backoff: 0.5 s doubling to `maxMs`, back to the start on success. */
export class Backoff {
  private attempt = 0;

  constructor(private readonly maxMs = 30_000) {}

  next(): number {
    return Math.min(this.maxMs, 500 * 2 ** this.attempt++);
  }

  reset(): void {
    this.attempt = 0;
  }
}
