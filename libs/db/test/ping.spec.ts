import type { DataSource } from 'typeorm';
import { createDataSource, pingDb } from '../src';
import { startEphemeralPostgres, type EphemeralServer } from '@ocg/testing';

let server: EphemeralServer;
let ds: DataSource;

beforeAll(async () => {
  server = await startEphemeralPostgres();
  ds = await createDataSource({ url: server.url, schema: 'svc', entities: [], migrations: [] });
});

afterAll(async () => {
  await ds?.destroy();
  await server?.dispose();
});

it('answers while Postgres is up', async () => {
  await expect(pingDb(ds)).resolves.toBeUndefined();
});

it('fails clearly while Postgres is stopped and succeeds again once it is back', async () => {
  await server.stop();
  const ping = pingDb(ds, 1000);
  await expect(ping).rejects.toThrow(/^Postgres ping failed \(postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/postgres\): /);
  await server.start();
  await expect(pingDb(ds)).resolves.toBeUndefined();
});
