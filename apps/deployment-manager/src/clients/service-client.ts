import { INTERNAL_TOKEN_HEADER } from '@ocg/auth';
import { ServiceUnavailableError } from '@ocg/http';

export interface ServiceCall {
  method: 'GET' | 'POST';
  /** Path (and query) on the service, e.g. `/credits/holds`. */
  path: string;
  body?: unknown;
}

export interface ServiceReply<T> {
  status: number;
  /** The parsed JSON answer; undefined when the body was empty or not JSON. */
  body: T;
}

/**
 * A small typed fetch for calling another service with the internal
 * credential: JSON in and out, a timeout on every call, and "no answer"
 * turned into a 503 naming the service. Statuses are the caller's to judge.
 */
export class ServiceClient {
  constructor(
    readonly name: string,
    private readonly baseUrl: string,
    private readonly internalToken: string | undefined,
    private readonly timeoutMs: number,
  ) {}

  async call<T>({ method, path, body }: ServiceCall): Promise<ServiceReply<T>> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.internalToken) headers[INTERNAL_TOKEN_HEADER] = this.internalToken;
    let res: Response;
    try {
      res = await fetch(new URL(path, this.baseUrl), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw this.unavailable(`no answer (${(err as Error).message})`);
    }
    const text = await res.text().catch(() => '');
    return { status: res.status, body: parse(text) as T };
  }

  /** For answers the caller cannot use (5xx, an unexpected status): a 503 that names the service; the detail is only logged. */
  unavailable(detail: string): ServiceUnavailableError {
    return new ServiceUnavailableError(`${this.name} is unavailable; try again shortly`, undefined, { detail });
  }
}

function parse(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
