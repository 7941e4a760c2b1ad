import type http from 'node:http';
import type { PageRequest, Pages } from './pages';
import type { RateLimiter } from '@ocg/redis';
import { sendError } from './respond';

/**
 * Page views cost two or three internal lookups each and need no key, so
 * they are limited per client address (the one `forwardedOf` determined):
 * over the limit, a 429 in the error shape with `Retry-After`.
 */
export function servePageLimited(pages: Pages, page: PageRequest, res: http.ServerResponse, requestId: string, client: string, limit?: RateLimiter): void {
  if (!limit) return pages.serve(page, res, requestId);
  void limit.check(client).then((decision) => {
    if (decision.allowed) return pages.serve(page, res, requestId);
    res.setHeader('retry-after', String(decision.retryAfterSeconds));
    sendError(res, 429, 'TooManyRequestsError', 'RATE_LIMITED', `Too many page views from your address; try again in ${decision.retryAfterSeconds} s`, requestId);
  });
}
