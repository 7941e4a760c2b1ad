/**
 * A service whose Postgres is stopped answers 503 with Retry-After and the
 * error shape (the shared error middleware of @ocg/http), never 500, and
 * answers normally again once Postgres is back.
 */
import type { DataSource } from 'typeorm';
import { createApp, createLogger, installErrorHandling, listen, type RunningServer } from '@ocg/http';
import { startEphemeralPostgres, waitFor, type EphemeralServer } from '@ocg/testing';
import { createDataSource } from '../src';

let server: EphemeralServer;
let ds: DataSource;
let app: RunningServer;

beforeAll(async () => {
  server = await startEphemeralPostgres();
  ds = await createDataSource({ url: server.url, schema: 'outage', entities: [], migrations: [] });
  const logger = createLogger({ service: 'outage-test', level: 'silent' });
  const express = createApp({ service: 'outage-test', logger });
  express.get('/count', async (_req, res, next) => {
    try {
      const [row] = (await ds.query('SELECT 1 + 1 AS two')) as { two: number }[];
      res.json(row);
    } catch (err) {
      next(err);
    }
  });
  express.post('/write', async (_req, res, next) => {
    try {
      await ds.transaction(async (m) => m.query('SELECT pg_sleep(0)'));
      res.json({ ok: true });
    } catch (err) {
      next(err);
    }
  });
  installErrorHandling(express, logger);
  app = await listen(express, { host: '127.0.0.1', port: 0 });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await ds?.destroy();
  await server?.dispose();
});

it('answers 503 with Retry-After and the error shape while Postgres is stopped, and 200 once it is back', async () => {
  expect((await fetch(`${app.url}/count`)).status).toBe(200);
  await server.stop();
  for (const [method, path] of [
    ['GET', '/count'],
    ['POST', '/write'],
  ] as const) {
    const started = Date.now();
    const res = await fetch(`${app.url}${path}`, { method });
    expect(Date.now() - started).toBeLessThan(6000);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await res.json()).toMatchObject({ name: 'ServiceUnavailableError', status: 503, code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/database/) });
  }
  await server.start();
  await waitFor(async () => (await fetch(`${app.url}/count`)).status === 200, { timeoutMs: 20_000, what: 'the service to answer again' });
}, 60_000);
