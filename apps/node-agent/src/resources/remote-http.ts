/** HTTP for the model hub and model runner sources: redirects, status-to-failure mapping, ranged bodies. */
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { ResourceError, type ResourceFailure, type SourceContext } from './source';

const MAX_REDIRECTS = 5;

export interface RemoteRequest {
  url: string;
  /** Sent to the first URL's origin only: a redirect to a CDN or object store never sees the credential. */
  headers?: Record<string, string>;
  /** Sent to every hop (e.g. Range, Accept). */
  anyHost?: Record<string, string>;
  signal: AbortSignal;
}

/**
 * GET that follows redirects itself, each hop through `ctx.fetch` (so the
 * node's address policy sees it), dropping the credential when the origin changes.
 * Network failures and aborts become ResourceErrors naming `label`.
 */
export async function remoteGet(ctx: SourceContext, label: string, req: RemoteRequest): Promise<Response> {
  const origin = new URL(req.url).origin;
  let url = req.url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const sameOrigin = new URL(url).origin === origin;
    const headers = { ...req.anyHost, ...(sameOrigin ? req.headers : undefined) };
    const res = await send(ctx, label, url, headers, req.signal);
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || res.status === 304 || !location) return res;
    await res.body?.cancel();
    url = new URL(location, url).toString();
  }
  throw new ResourceError('unavailable', `${label}: more than ${MAX_REDIRECTS} redirects`);
}

async function send(ctx: SourceContext, label: string, url: string, headers: Record<string, string>, signal: AbortSignal): Promise<Response> {
  try {
    return await ctx.fetch(url, { headers, redirect: 'manual', signal });
  } catch (err) {
    throw asResourceError(err, label, signal);
  }
}

/** What a thrown error means for the fetch: the node's own refusals keep their failure and get the resource's name. */
export function asResourceError(err: unknown, label: string, signal: AbortSignal): ResourceError {
  const cause = (err as { cause?: unknown })?.cause;
  const refusal = err instanceof ResourceError ? err : cause instanceof ResourceError ? cause : undefined;
  if (refusal) return refusal.message.startsWith(`${label}:`) ? refusal : new ResourceError(refusal.failure, `${label}: ${refusal.message}`);
  if (signal.aborted) return new ResourceError('timeout', `${label}: timed out`);
  // By shape, not instanceof: fetch's errors may come from another realm (undici's, a test VM's).
  const detail = messageOf(cause) ?? messageOf(err) ?? String(err);
  return new ResourceError('unavailable', `${label}: ${detail}`);
}

function messageOf(e: unknown): string | undefined {
  const message = (e as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' && message ? message : undefined;
}

export function failureOf(status: number): ResourceFailure {
  if (status === 401 || status === 403) return 'denied';
  if (status === 404 || status === 410) return 'not-found';
  if (status === 408) return 'timeout';
  if (status === 429 || status >= 500) return 'unavailable';
  return 'invalid';
}

/** Throws for a non-2xx answer: `what` names the object asked for (a revision, a file, a blob). */
export async function expectOk(res: Response, label: string, what: string): Promise<Response> {
  if (res.ok) return res;
  await res.body?.cancel();
  const failure = failureOf(res.status);
  throw new ResourceError(failure, `${label}: ${what} ${describe(failure)} (HTTP ${res.status})`);
}

function describe(failure: ResourceFailure): string {
  switch (failure) {
    case 'denied':
      return 'refused: no access, or the access token is missing or wrong';
    case 'not-found':
      return 'not found';
    case 'unavailable':
      return 'unavailable at the moment';
    case 'timeout':
      return 'timed out';
    default:
      return 'could not be fetched';
  }
}

/** The whole body of a small answer (a file list, a manifest, a token), at most `max` bytes. */
export async function bytesOf(res: Response, label: string, signal: AbortSignal, max: number): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > max) {
    await res.body?.cancel();
    throw new ResourceError('invalid', `${label}: an answer of ${declared} bytes where at most ${max} were expected`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of (res.body ?? []) as AsyncIterable<Uint8Array>) {
      total += chunk.length;
      if (total > max) throw new ResourceError('invalid', `${label}: an answer longer than the ${max} bytes expected`);
      chunks.push(Buffer.from(chunk));
    }
  } catch (err) {
    throw asResourceError(err, label, signal);
  }
  return Buffer.concat(chunks);
}

/** The JSON of a small answer; a body that is not JSON is `invalid`. */
export async function jsonOf(res: Response, label: string, what: string, signal: AbortSignal): Promise<unknown> {
  const bytes = await bytesOf(res, label, signal, 64 * 1024 * 1024);
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new ResourceError('invalid', `${label}: ${what} is not JSON`);
  }
}

/** A ranged GET's body from `offset`: a server that ignored Range (200) has the first bytes skipped here. */
export function bodyFrom(res: Response, offset: number, label: string, what: string): Readable {
  if (!res.body) return Readable.from([]);
  const body = Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
  if (offset === 0) return body;
  if (res.status === 200) return Readable.from(skipped(body, offset));
  const start = /^bytes (\d+)-/.exec(res.headers.get('content-range') ?? '');
  if (res.status !== 206 || !start || Number(start[1]) !== offset) {
    body.destroy();
    throw new ResourceError('invalid', `${label}: ${what} answered a range from ${offset} with HTTP ${res.status}`);
  }
  return body;
}

async function* skipped(body: Readable, bytes: number): AsyncGenerator<Buffer> {
  let left = bytes;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (left >= chunk.length) {
      left -= chunk.length;
      continue;
    }
    yield left > 0 ? chunk.subarray(left) : chunk;
    left = 0;
  }
}

/** Range header for a resume; none from 0. */
export function rangeFrom(offset: number): Record<string, string> {
  return offset > 0 ? { range: `bytes=${offset}-` } : {};
}

/** A path as a source lists it is safe to write under the resource's root. */
export function safeRelativePath(p: string): boolean {
  if (p.length === 0 || p.length > 4096 || p.startsWith('/') || p.includes('\\') || p.includes('\0')) return false;
  return p.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}
