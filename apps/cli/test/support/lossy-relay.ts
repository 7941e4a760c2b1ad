/**
 * A relay in front of the gateway that loses the first answer to one route:
 * the request took effect, its answer never arrives. With `cutAfter`, the
 * first answer to the route is an event stream cut once `cutAfter` passed
 * through it (a network blip in the middle of a stream).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

export interface LossyRelay {
  url: string;
  /** The Idempotency-Key of each request to the route, in order. */
  keys: string[];
  /** The Last-Event-ID of each request to the route, in order. */
  lastEventIds: (string | undefined)[];
  /** Resolves once the stream was cut (`cutAfter`). */
  cut: Promise<void>;
  close(): void;
}

export async function lossyRelay(gateway: string, method: string, path: RegExp, opts: { cutAfter?: string } = {}): Promise<LossyRelay> {
  const keys: string[] = [];
  const lastEventIds: (string | undefined)[] = [];
  let wasCut: () => void = () => undefined;
  const cut = new Promise<void>((r) => (wasCut = r));
  const server = http.createServer((req, res) => void relay(req, res).catch(() => res.destroy()));
  async function relay(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name))) as Record<string, string>;
    // Aborted with the caller: an event stream relayed here ends when its reader goes.
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    const upstream = await fetch(`${gateway}${req.url}`, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined, signal: gone.signal });
    const matched = req.method === method && path.test(req.url ?? '');
    const first = matched && keys.push(String(req.headers['idempotency-key'])) === 1;
    if (matched) lastEventIds.push(req.headers['last-event-id'] as string | undefined);
    if (first && !opts.cutAfter) {
      await upstream.arrayBuffer(); // the request took effect
      return void req.socket.destroy();
    }
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
    if (!upstream.body) return void res.end();
    let passed = '';
    for await (const chunk of Readable.fromWeb(upstream.body as import('node:stream/web').ReadableStream)) {
      await new Promise((written) => res.write(chunk, written));
      passed += Buffer.from(chunk as Uint8Array).toString();
      if (first && opts.cutAfter && passed.includes(opts.cutAfter)) {
        req.socket.destroy();
        return wasCut();
      }
    }
    res.end();
  }
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, keys, lastEventIds, cut, close: () => server.close() };
}
