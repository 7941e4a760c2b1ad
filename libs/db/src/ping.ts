import type { DataSource } from 'typeorm';
import { redactUrl } from './url';

/** Throws a clear error unless Postgres answers SELECT 1 within timeoutMs (readiness checks). */
export async function pingDb(ds: DataSource, timeoutMs = 2000): Promise<void> {
  const where = target(ds);
  if (!ds.isInitialized) throw new Error(`Postgres ping failed (${where}): the data source is not initialized`);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    // The race bounds the wait even when the pool is still trying to connect.
    await Promise.race([ds.query('SELECT 1'), timeout]);
  } catch (err) {
    throw new Error(`Postgres ping failed (${where}): ${(err as Error).message || String(err)}`, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}

function target(ds: DataSource): string {
  const url = (ds.options as { url?: string }).url;
  return url ? redactUrl(url) : 'no url';
}
