import type http from 'node:http';

/** A request the gateway answers with a page instead of the API. */
export type PageRequest = { kind: 'job'; address: string; cookie?: string } | { kind: 'market'; ref: string };

const JOB_PATH = /^\/jobs\/([^/]+)$/;
const MARKET_PATH = /^\/markets\/([^/]+)$/;
const JSON_TYPES = ['application/json', 'application/*', '*/*'];

/**
 * `GET /jobs/{job}` and `GET /markets/{market}` are both the API's routes
 * and the links people open: a browser (text/html preferred to JSON, no
 * credential) gets the page, every other caller the API as before.
 */
export function pageRequestOf(req: http.IncomingMessage, path: string): PageRequest | undefined {
  if (req.method !== 'GET' || req.headers.authorization !== undefined || !prefersHtml(req.headers.accept)) return undefined;
  const job = JOB_PATH.exec(path)?.[1];
  // The session cookie, if any, decides between the poster's view and the public one.
  if (job) return { kind: 'job', address: decode(job), cookie: req.headers.cookie };
  const market = MARKET_PATH.exec(path)?.[1];
  return market ? { kind: 'market', ref: decode(market) } : undefined;
}

/**
 * True when Accept names text/html with a higher quality than JSON, or the
 * same quality and listed first, as browsers send it. The any-type and
 * application wildcards count as JSON: curl and fetch send the any-type
 * alone, so they keep getting JSON.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  let htmlQ = 0;
  let htmlAt = Infinity;
  let jsonQ = 0;
  let jsonAt = Infinity;
  accept.split(',').forEach((range, at) => {
    const [rawType, ...params] = range.toLowerCase().split(';');
    const type = rawType.trim();
    const q = quality(params);
    if (type === 'text/html' && q > htmlQ) [htmlQ, htmlAt] = [q, at];
    if (JSON_TYPES.includes(type) && q > jsonQ) [jsonQ, jsonAt] = [q, at];
  });
  // An Accept naming neither scores 0 at Infinity on both sides: no page.
  return htmlQ > jsonQ || (htmlQ === jsonQ && htmlAt < jsonAt);
}

function quality(params: string[]): number {
  const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
  const value = q === undefined ? 1 : Number(q.slice(2));
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
