import type { Pool, PoolClient } from 'pg';
import { QueryFailedError, type DataSource } from 'typeorm';

/**
 * A statement by name: each pooled connection parses and plans it once and
 * then only binds and runs it (node-pg's prepared statements; Postgres keeps
 * the plan per connection and replans when a table it uses changes). One
 * name, one text, everywhere.
 */
export interface NamedStatement {
  name: string;
  text: string;
}

/**
 * One statement standing alone (autocommit) on a connection of the data
 * source's pool, given to node-pg directly: `DataSource.query` makes a query
 * runner and an entity manager for every call, more CPU than sending the
 * statement on a hot path (ADR 0080). The same pool, connections and
 * search_path; the connection goes back to the pool as TypeORM gives it back,
 * the statement is logged as TypeORM logs it (with `logging`), a failed one
 * throws TypeORM's `QueryFailedError` (the driver's error inside) and is
 * logged as TypeORM logs it, and a statement slower than the data source's
 * `maxQueryExecutionTime` is logged as slow. Answers the rows (of an UPDATE
 * or DELETE too).
 */
export async function poolRows<T>(ds: DataSource, statement: string | NamedStatement, params: unknown[] = []): Promise<T[]> {
  const sql = typeof statement === 'string' ? statement : statement.text;
  const pool = (ds.driver as unknown as { master?: Pool }).master;
  if (!pool) return (await ds.query(sql, params)) as T[]; // not connected: TypeORM's own error
  const client: PoolClient = await pool.connect();
  // The pool listens for a connection's errors only while it is idle: one lost under the statement (a reset) would be thrown out of its socket's callback and end the process.
  let lost: Error | undefined;
  const onLost = (err: Error) => (lost ??= err);
  client.on('error', onLost);
  ds.logger.logQuery(sql, params);
  const started = Date.now();
  try {
    const { rows } = typeof statement === 'string' ? await client.query(sql, params) : await client.query({ name: statement.name, text: sql, values: params });
    const ms = Date.now() - started;
    const slow = ds.options.maxQueryExecutionTime;
    if (slow && ms > slow) ds.logger.logQuerySlow(ms, sql, params);
    return rows as T[];
  } catch (err) {
    ds.logger.logQueryError(err as Error, sql, params);
    throw new QueryFailedError(sql, params, err as Error);
  } finally {
    client.off('error', onLost);
    // A lost connection leaves the pool; a failed statement on a sound one does not.
    client.release(lost);
  }
}
