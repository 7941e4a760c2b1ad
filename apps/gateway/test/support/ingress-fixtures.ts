/** What the ingress specs stand up (ingress-forwards.spec, edge.spec, parsing/edge-routes.spec). */
import type http from 'node:http';
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { createLogger } from '@ocg/http';

/** A gateway logger whose records land, parsed, in `records`. */
export function loggerInto(records: Array<Record<string, unknown>>, level = 'info'): Logger {
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) records.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return createLogger({ service: 'gateway', level, destination });
}

export type RoutedJob = { job: string; status: string; node: string; forwards: Record<string, string> };

/** `GET /internal/jobs/{job}` and `GET /internal/nodes/{node}` over these maps, counting job lookups; `token` is the internal credential. */
export function routeServices(token: string, jobs: Map<string, RoutedJob>, nodes: Map<string, string>, lookups: Map<string, number>): http.RequestListener {
  return (req, res) => {
    if (req.headers['x-ocg-internal-token'] !== token) return void res.writeHead(401).end();
    const [, , kind, key] = (req.url ?? '').split('/');
    const id = decodeURIComponent(key ?? '').toLowerCase();
    if (kind === 'jobs') lookups.set(id, (lookups.get(id) ?? 0) + 1);
    const node = [...nodes.entries()].find(([n]) => n.toLowerCase() === id);
    const body = kind === 'jobs' ? [...jobs.values()].find((j) => j.job.toLowerCase() === id) : node && { address: node[0], ingressUrl: node[1] };
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
}
