import type { DataSource, EntityManager } from 'typeorm';

/**
 * What every repository has: the DataSource it was built with, units of work
 * (`transaction`, whose EntityManager goes to repository methods as their
 * first argument) and the DataSource's own manager for a statement that
 * stands alone (`manager`, autocommit).
 */
export abstract class BaseRepository {
  constructor(protected readonly db: DataSource) {}

  get manager(): EntityManager {
    return this.db.manager;
  }

  transaction<T>(run: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(run);
  }
}

/**
 * Runs hand-written SQL (repositories only, where TypeORM cannot say it) and
 * returns its rows whatever the statement: TypeORM answers an UPDATE or
 * DELETE on Postgres as `[rows, count]` and anything else as `rows`.
 */
export async function rows<T>(m: EntityManager, sql: string, params: unknown[] = []): Promise<T[]> {
  const result: unknown = await m.query(sql, params);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}
