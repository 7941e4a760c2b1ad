import type { Logger } from 'typeorm';

/** Where TypeORM's messages go, e.g. `(level, msg) => logger[level]({ component: 'db' }, msg)` with pino. */
export type DbLog = (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;

export const silent: DbLog = () => undefined;

function withoutParameters(text: string, parameters: unknown[] = []): string {
  return parameters
    .filter((p): p is string => typeof p === 'string' && p.length >= 3)
    .sort((a, b) => b.length - a.length)
    .reduce((t, p) => t.split(p).join('[parameter]'), text);
}

/**
 * Routes TypeORM's messages to the service's logger: TypeORM's own console
 * logger prints migration failures even with logging off, and services log JSON.
 */
export class RoutedLogger implements Logger {
  constructor(
    private readonly sink: DbLog,
    private readonly queries: boolean,
  ) {}

  logQuery(query: string): void {
    if (this.queries) this.sink('debug', query);
  }

  logQueryError(error: string | Error, query: string, parameters?: unknown[]): void {
    // The caller gets the error too; this is for tracing with logging on. Parameters are never
    // logged, and Postgres quotes a rejected one in its message ("invalid input syntax ...: "<value>""): cut out.
    if (this.queries) this.sink('debug', `query failed: ${query}: ${withoutParameters(error instanceof Error ? error.message : error, parameters)}`);
  }

  logQuerySlow(time: number, query: string): void {
    this.sink('warn', `slow query (${time} ms): ${query}`);
  }

  // TypeORM reports migration progress ("Migration X has been executed successfully") here.
  logSchemaBuild(message: string): void {
    this.sink('info', message);
  }

  // ...and migration failures here (the error is thrown to createDataSource's caller as well).
  logMigration(message: string): void {
    this.sink('error', message);
  }

  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    this.sink(level === 'warn' ? 'warn' : 'info', String(message));
  }
}
