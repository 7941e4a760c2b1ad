import type { DataSource, EntityManager } from 'typeorm';

/** What every repository shares: the DataSource, and a transaction whose manager services hand back to repository methods. */
export abstract class DataSourceRepository {
  constructor(protected readonly db: DataSource) {}

  transaction<T>(work: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }
}
