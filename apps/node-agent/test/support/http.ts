/** Plain node:http clients: the ingress routes by Host, which fetch may not set. */
import http from 'node:http';
import WebSocket from 'ws';

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export function request(url: string, opts: { method?: string; host?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const target = new URL(url);
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.host) headers.host = opts.host;
  return new Promise((resolve, reject) => {
    const req = http.request(
      { hostname: target.hostname, port: target.port, path: target.pathname + target.search, method: opts.method ?? 'GET', headers, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** Through the ingress: `label` is the host's first label (`<job>`, `<job>-8080`, ...). */
export function viaIngress(ingressUrl: string, label: string, path = '/'): Promise<Answer> {
  return request(`${ingressUrl}${path}`, { host: `${label}.node.test` });
}

/** Opens a WebSocket through the ingress and resolves with the first message. */
export function firstWsMessage(ingressUrl: string, label: string): Promise<string> {
  const url = ingressUrl.replace(/^http/, 'ws');
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { host: `${label}.node.test` } });
    ws.once('message', (data) => {
      resolve(String(data));
      ws.terminate();
    });
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

/** Reads an NDJSON stream until `done` says enough or the server ends it. */
export function readNdjson(
  url: string,
  headers: Record<string, string>,
  done: (lines: { text: string }[]) => boolean,
): Promise<{ lines: { text: string }[]; ended: boolean; status: number }> {
  return new Promise((resolve, reject) => {
    const lines: { text: string }[] = [];
    const req = http.get(url, { headers, agent: false }, (res) => {
      let buffered = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        buffered += d;
        const parts = buffered.split('\n');
        buffered = parts.pop() ?? '';
        for (const p of parts) if (p) lines.push(JSON.parse(p) as { text: string });
        if (done(lines)) {
          resolve({ lines, ended: false, status: res.statusCode ?? 0 });
          req.destroy();
        }
      });
      res.on('end', () => resolve({ lines, ended: true, status: res.statusCode ?? 0 }));
    });
    req.on('error', reject);
  });
}
