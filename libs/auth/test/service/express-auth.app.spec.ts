/**
 * express auth inside a real express app: the injected clock decides whether a
 * node's signature has expired, and the refusal reaches the client as a 401.
 */
import http from 'node:http';
import express from 'express';
import { HttpError } from '@ocg/http';
import { createExpressAuthentication } from '../../src/service/express-auth';
import type { KeyValidator } from '../../src/service/identity';
import { signNodeRequest } from '../../src/service/node-signing';
import { createSigner, generateWallet } from '../../src/wallet';

const keys: KeyValidator = { validate: async () => null };
const node = createSigner(generateWallet().secretKey);
const SIGNED_AT = 1_700_000_000_000;

function appWithClock(now: () => number, maxAgeSeconds?: number): express.Express {
  const auth = createExpressAuthentication({ keys, now, nodeSignatureMaxAgeSeconds: maxAgeSeconds });
  const app = express();
  app.use(express.json());
  app.post('/nodes/heartbeat', (req, res, next) => {
    auth(req, 'nodeSignature').then((identity) => res.json(identity), next);
  });
  app.use((err: HttpError, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(err.status ?? 500).json({ name: err.name, message: err.message, status: err.status });
  });
  return app;
}

async function post(app: express.Express, body: unknown, headers: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const server = http.createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as { port: number };
    const res = await fetch(`http://127.0.0.1:${port}/nodes/heartbeat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  } finally {
    server.close();
  }
}

describe('express auth with an injected clock', () => {
  const body = { specs: { cpus: 1 } };
  const headers = signNodeRequest(node, { method: 'POST', path: '/nodes/heartbeat', body }, { now: SIGNED_AT });

  it('accepts a node signature that is fresh by the injected clock (though years old by the wall clock)', async () => {
    const res = await post(
      appWithClock(() => SIGNED_AT + 60_000),
      body,
      headers,
    );
    expect(res).toEqual({ status: 200, body: { kind: 'node', userId: null, nodeAddress: node.address, scopes: [] } });
  });

  it('answers 401 for a node signature older than the maximum age by the injected clock', async () => {
    const res = await post(
      appWithClock(() => SIGNED_AT + 301_000),
      body,
      headers,
    );
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ name: 'UnauthorizedError', status: 401 });
    expect(String(res.body.message)).toMatch(/expired|old/i);
  });

  it('applies the configured maximum age', async () => {
    expect(
      (
        await post(
          appWithClock(() => SIGNED_AT + 20_000, 10),
          body,
          headers,
        )
      ).status,
    ).toBe(401);
    expect(
      (
        await post(
          appWithClock(() => SIGNED_AT + 5_000, 10),
          body,
          headers,
        )
      ).status,
    ).toBe(200);
  });
});
