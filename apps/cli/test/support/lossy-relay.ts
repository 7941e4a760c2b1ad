/** A relay in front of the gateway that loses the first answer to one route: the request took effect, its answer never arrives. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LossyRelay {
  url: string;
  /** The Idempotency-Key of each request to the route, in order. */
  keys: string[];
  close(): void;
}

export async function lossyRelay(gateway: string, method: string, path: RegExp): Promise<LossyRelay> {
  const keys: string[] = [];
  const server = http.createServer((req, res) => void relay(req, res));
  async function relay(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name))) as Record<string, string>;
    const upstream = await fetch(`${gateway}${req.url}`, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
    const body = Buffer.from(await upstream.arrayBuffer());
    if (req.method === method && path.test(req.url ?? '') && keys.push(String(req.headers['idempotency-key'])) === 1) return void req.socket.destroy();
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' }).end(body);
  }
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, keys, close: () => server.close() };
}
