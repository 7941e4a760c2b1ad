import { createHash } from 'node:crypto';
import pg from 'pg';
import { redactUrl } from './url';

// First half of the two-int advisory lock key: 'ocg\0', so our locks are easy to spot in pg_locks.
const LOCK_CLASS = 0x6f636700;

/** The advisory lock key for a schema (sha-256, not hashtext, so it never changes with the server version). */
export function schemaLockKey(schema: string): [number, number] {
  return [LOCK_CLASS, createHash('sha256').update(schema).digest().readInt32BE(0)];
}

/**
 * Runs fn while holding a session advisory lock keyed on the schema, on a
 * connection of its own, after creating the schema. Instances of one service
 * starting together queue here, so each migration runs once; services with
 * other schemas are not blocked. CREATE SCHEMA IF NOT EXISTS itself is not safe
 * against a concurrent create of the same name, hence inside the lock.
 */
export async function withSchemaLock<T>(url: string, schema: string, timeoutMs: number, fn: () => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000, application_name: `${schema}:migrate` });
  client.on('error', () => undefined); // a dropped connection surfaces as a failed query below
  try {
    await client.connect();
  } catch (err) {
    throw new Error(`cannot connect to Postgres at ${redactUrl(url)}: ${(err as Error).message}`, { cause: err });
  }
  try {
    await lock(client, schema, timeoutMs);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    return await fn();
  } finally {
    // Ending the session releases the lock even if the unlock is never sent.
    await client.end().catch(() => undefined);
  }
}

async function lock(client: pg.Client, schema: string, timeoutMs: number): Promise<void> {
  await client.query(`SET lock_timeout = ${Math.max(1, Math.round(timeoutMs))}`);
  try {
    await client.query('SELECT pg_advisory_lock($1, $2)', schemaLockKey(schema));
  } catch (err) {
    if ((err as { code?: string }).code !== '55P03') throw err;
    throw new Error(`another instance has held the migration lock of schema "${schema}" for ${timeoutMs} ms`, { cause: err });
  }
  await client.query('SET lock_timeout = 0');
}

/** Double-quotes a Postgres identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
