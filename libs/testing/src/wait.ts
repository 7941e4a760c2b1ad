export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** Names the awaited condition in the timeout error. */
  what?: string;
}

/**
 * Polls fn until it returns a value other than undefined or false. A throwing
 * fn counts as "not yet"; its last error is quoted if time runs out.
 */
export async function waitFor<T>(fn: () => Promise<T | undefined | false> | T | undefined | false, opts: WaitOptions = {}): Promise<T> {
  const { timeoutMs = 10_000, intervalMs = 100, what = 'condition' } = opts;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await fn();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const why = lastError ? ` (last error: ${(lastError as Error).message ?? String(lastError)})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await sleep(intervalMs);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
