import type { EntityManager } from 'typeorm';

/** A DataSource or a transaction's EntityManager: anything that runs SQL. */
export type Queryable = Pick<EntityManager, 'query'>;

/**
 * Runs SQL and returns its rows whatever the statement: TypeORM answers an
 * UPDATE or DELETE on Postgres as `[rows, count]` and anything else as `rows`.
 */
export async function rows<T>(q: Queryable, sql: string, params: unknown[] = []): Promise<T[]> {
  const result: unknown = await q.query(sql, params);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}

export async function one<T>(q: Queryable, sql: string, params: unknown[] = []): Promise<T | undefined> {
  return (await rows<T>(q, sql, params))[0];
}

/** bigint columns arrive as text (they may exceed 2^53 in general; ours never do, by the limits on price and duration). */
export const num = (v: string | number | null): number | null => (v === null ? null : Number(v));

export const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);
