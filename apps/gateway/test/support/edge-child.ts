/**
 * A process that runs an edge and nothing else, for edge.spec's "dies with
 * the gateway" and "a low open files limit": EDGE_DIR, EDGE_CERT and EDGE_KEY
 * (PEM files) and EDGE_MAX_CONNECTIONS from the environment; it prints `edge <port> <HAProxy's pid>` once serving, then
 * waits to be killed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '@ocg/http';
import { startEdge } from '../../src/edge';

async function main(): Promise<void> {
  const dir = process.env.EDGE_DIR!;
  const edge = await startEdge({
    host: '127.0.0.1',
    port: 0,
    dir,
    haproxy: 'haproxy',
    threads: 1,
    maxConnections: Number(process.env.EDGE_MAX_CONNECTIONS ?? 64),
    nodeDomain: 'nodes.edge.test',
    tls: { cert: readFileSync(process.env.EDGE_CERT!), key: readFileSync(process.env.EDGE_KEY!) },
    trustedProxies: [],
    serverTimeoutMs: 5000,
    keepAliveMs: 5000,
    headMs: 5000,
    routeTtlMs: 60_000,
    logger: createLogger({ service: 'gateway', level: 'warn' }),
    handle: (_req, res) => res.end('the child gateway\n'),
  });
  console.log(`edge ${edge.port} ${readFileSync(join(dir, 'haproxy.pid'), 'utf8').trim()}`);
  setInterval(() => undefined, 60_000);
}

void main();
