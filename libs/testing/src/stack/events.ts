/**
 * What of a service's output the stack's console shows when its full log
 * goes to a file: the events (ready, node online, job and endpoint state
 * changes, warnings, errors), not a line per request or per migration step.
 */

const LEVELS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

/** A pino level, by number or by label, as its number (unknown ones count as info). */
function levelOf(level: unknown): number {
  if (typeof level === 'number') return level;
  return (typeof level === 'string' && LEVELS[level]) || LEVELS.info;
}

/** An access-log line: the gateway's `request` lines and every service's `request completed`. */
function isRequestLine(record: Record<string, unknown>): boolean {
  return typeof record.method === 'string' && typeof record.status === 'number';
}

/**
 * Whether a line of a service's output belongs on the console. Lines that
 * are not JSON are shown: a crash prints its stack trace that way.
 */
export function isConsoleEvent(line: string): boolean {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return true;
  }
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return true;
  const fields = record as Record<string, unknown>;
  const level = levelOf(fields.level);
  if (level >= LEVELS.error) return true;
  // A client's 4xx is its own business; a 5xx is logged at error and shown above.
  if (isRequestLine(fields)) return false;
  // Migrations and their bookkeeping, one line per step, on every start.
  if (fields.component === 'db') return level >= LEVELS.warn;
  return true;
}
