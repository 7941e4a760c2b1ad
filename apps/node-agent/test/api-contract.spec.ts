/** The node API's router and its OpenAPI document name the same operations. */
import { Writable } from 'node:stream';
import type { Router } from 'express';
import type Docker from 'dockerode';
import { nodeOpenApiDocument } from '@ocg/api-spec';
import { createAuthHeader, createSigner, generateWallet, nodeApiMessage } from '@ocg/auth';
import { createLogger, healthRoutes, listen } from '@ocg/http';
import type { Executor } from '../src/executor/executor';
import type { JobStatus } from '../src/executor/types';
import { buildNodeApi } from '../src/api/app';
import { nodeApiRoutes } from '../src/api/routes';

/** `GET /job/{job}/ops` for each route of the router, express's `:name` as the document's `{name}`. */
function operationsOf(router: Router): string[] {
  return router.stack.flatMap((layer) => {
    const route = layer.route as { path: string; methods: Record<string, boolean> } | undefined;
    if (!route) return [];
    const template = route.path.replace(/:(\w+)/g, '{$1}');
    return Object.keys(route.methods).map((method) => `${method.toUpperCase()} ${template}`);
  });
}

const documented = Object.entries(nodeOpenApiDocument.paths).flatMap(([template, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${template}`));
// The routes read the executor only when a request comes.
const served = operationsOf(nodeApiRoutes({} as Executor, 'node', 300, { perJob: 1, heartbeatMs: 1000 }));
const health = operationsOf(healthRoutes({}));

describe('the node API document', () => {
  it('describes every route of the router, and no route the router lacks', () => {
    const jobRoutes = documented.filter((op) => op.includes(' /job/'));
    expect(served.sort()).toEqual(jobRoutes.sort());
    expect(served).toHaveLength(7);
  });

  it('describes the two health checks the gateway lets through, which the agent serves', () => {
    const rest = documented.filter((op) => !op.includes(' /job/')).sort();
    expect(rest).toEqual(['GET /healthz', 'GET /readyz']);
    expect(health).toEqual(expect.arrayContaining(rest));
  });

  it('names the node-agent as the service of every operation and the poster header on every job route', () => {
    for (const [template, item] of Object.entries(nodeOpenApiDocument.paths)) {
      for (const op of Object.values(item) as Array<{ 'x-service': string; security?: unknown[] }>) {
        expect(op['x-service']).toBe('node-agent');
        if (template.startsWith('/job/')) expect(op.security).toEqual([{ nodeApiHeader: [] }]);
      }
    }
  });
});

describe('answers held to the document', () => {
  const poster = generateWallet();
  const job = generateWallet().address;
  const status: JobStatus = {
    job,
    state: 'running',
    reason: null,
    startedAt: new Date().toISOString(),
    deadline: new Date().toISOString(),
    endedAt: null,
    currentStage: 'a',
    ops: [],
  };

  /** The node API over an executor that answers `body` for the job's status: only the document stands between it and the caller. */
  async function nodeAnswering(body: unknown) {
    const logs: string[] = [];
    const logger = createLogger({
      service: 'node-agent',
      level: 'error',
      destination: new Writable({ write: (chunk: Buffer, _e, done) => (logs.push(chunk.toString()), done()) }),
    });
    const executor = { poster: () => poster.address, status: () => body } as unknown as Executor;
    const server = await listen(buildNodeApi({ executor, docker: {} as Docker, logger, node: 'node', authMaxAgeSeconds: 300, logFollow: { perJob: 1, heartbeatMs: 1000 } }), {
      host: '127.0.0.1',
      port: 0,
    });
    try {
      const header = createAuthHeader(createSigner(poster.secretKey), nodeApiMessage('node', job)).header;
      const res = await fetch(`${server.url}/job/${job}/ops`, { headers: { authorization: header } });
      return { status: res.status, body: (await res.json()) as Record<string, unknown>, logs };
    } finally {
      await server.close();
    }
  }

  it('sends a status that fits NodeJobStatus', async () => {
    expect(await nodeAnswering(status)).toMatchObject({ status: 200, body: status });
  });

  it('sends a 500 instead of a status that breaks the document, and logs what broke', async () => {
    const answer = await nodeAnswering({ ...status, state: 'exploded', secret: 'internal detail' });
    expect(answer).toMatchObject({ status: 500, body: { name: 'InternalError', message: 'Internal server error' } });
    expect(answer.logs.join('')).toContain('answer breaks the API document');
    expect(answer.logs.join('')).toContain('/body/state');
  });
});
