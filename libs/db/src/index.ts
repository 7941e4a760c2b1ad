// TypeORM DataSource factory: per-service schema, migrations under an advisory lock. No entities here.
export { createDataSource, MIGRATIONS_TABLE } from './data-source';
export type { DataSourceOptions } from './data-source';
export { pingDb } from './ping';
export { poolRows } from './statement';
export type { NamedStatement } from './statement';
export { redactUrl } from './url';
export { schemaLockKey, quoteIdent } from './migration-lock';
export type { DbLog } from './logger';
