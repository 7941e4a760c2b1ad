import { DataSource, type EntitySchema } from 'typeorm';
import { withSchemaLock, quoteIdent } from './migration-lock';
import { redactUrl } from './url';
import { RoutedLogger, silent, type DbLog } from './logger';

export interface DataSourceOptions {
  url: string;
  /** The service's own Postgres schema, e.g. 'client_manager'. */
  schema: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- TypeORM takes entity and migration classes as Function
  entities: Function[] | EntitySchema[];
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- as above
  migrations: Function[];
  /** Log every query (at debug). */
  logging?: boolean;
  /** TypeORM's messages (migrations run, slow queries, dropped pool connections); default: none. */
  log?: DbLog;
  /** Queries slower than this are logged as warnings. */
  slowQueryMs?: number;
  poolSize?: number;
  /** How long a starting instance waits for another one's migrations. */
  migrationLockTimeoutMs?: number;
}

// Lower-case identifiers only: the name then needs no quoting in SQL written by
// hand, in search_path, or in TypeORM's generated queries.
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
export const MIGRATIONS_TABLE = 'migrations';

/**
 * Creates the service schema if missing, initializes a TypeORM DataSource bound
 * to it, runs pending migrations (each in its own transaction) under an
 * advisory lock, and returns it. Never synchronizes: migrations are the schema.
 */
export async function createDataSource(opts: DataSourceOptions): Promise<DataSource> {
  if (!SCHEMA_NAME.test(opts.schema)) {
    throw new Error(`invalid schema name "${opts.schema}": use lower-case letters, digits and underscores`);
  }
  const ds = new DataSource(typeormOptions(opts));
  await withSchemaLock(opts.url, opts.schema, opts.migrationLockTimeoutMs ?? 60_000, async () => {
    try {
      await ds.initialize();
      await ds.runMigrations({ transaction: 'each' });
    } catch (err) {
      if (ds.isInitialized) await ds.destroy().catch(() => undefined);
      throw new Error(`${opts.schema}: database setup failed at ${redactUrl(opts.url)}: ${(err as Error).message}`, { cause: err });
    }
  });
  return ds;
}

function typeormOptions(opts: DataSourceOptions): ConstructorParameters<typeof DataSource>[0] {
  const log = opts.log ?? silent;
  return {
    type: 'postgres',
    url: opts.url,
    schema: opts.schema,
    entities: opts.entities,
    migrations: opts.migrations,
    migrationsTableName: MIGRATIONS_TABLE,
    migrationsTransactionMode: 'each',
    migrationsRun: false, // run by createDataSource under the lock
    synchronize: false,
    logger: new RoutedLogger(log, opts.logging ?? false),
    logging: true, // every message reaches RoutedLogger, which filters
    maxQueryExecutionTime: opts.slowQueryMs ?? 1000,
    poolSize: opts.poolSize ?? 10,
    applicationName: opts.schema,
    connectTimeoutMS: 5000,
    // Extensions are created by migrations: TypeORM would install them into
    // whichever schema comes first, where other services cannot see them.
    installExtensions: false,
    uuidExtension: 'pgcrypto', // gen_random_uuid(), built into Postgres 13+
    // An idle connection dropped by the server: the pool discards it and the next query reconnects.
    poolErrorHandler: (err: Error) => log('warn', `Postgres pool connection lost: ${err.message}`),
    // Unqualified names in migrations and queries resolve to the service schema only.
    extra: { options: `-c search_path=${quoteIdent(opts.schema)}` },
  };
}
