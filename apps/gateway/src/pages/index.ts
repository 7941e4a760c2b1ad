import type http from 'node:http';
import type { Logger } from 'pino';
import { PageData, UpstreamError, type PageDataOptions } from './data';
import { renderJobPage } from './job-page';
import { renderMarketPage } from './market-page';
import { pageRequestOf, type PageRequest } from './negotiate';
import { renderErrorPage, renderNotFoundPage, renderUnavailablePage } from './status-pages';

export type { PageRequest } from './negotiate';

export interface PagesOptions extends PageDataOptions {
  logger: Logger;
}

export interface Pages {
  /** The page a request asks for, when it is a browser opening a job or market link. */
  match(req: http.IncomingMessage, path: string): PageRequest | undefined;
  serve(page: PageRequest, res: http.ServerResponse, requestId: string): void;
}

/**
 * Job and market pages at the API's own paths (the links in job records),
 * rendered on the server from the services' internal routes.
 */
export function createPages(opts: PagesOptions): Pages {
  const data = new PageData(opts);
  const render = async (page: PageRequest): Promise<{ status: number; html: string }> => {
    const ref = page.kind === 'job' ? page.address : page.ref;
    if (!usable(ref)) return { status: 404, html: renderNotFoundPage(page.kind, ref.slice(0, 200)) };
    if (page.kind === 'job') {
      const job = await data.job(page.address, await data.viewer(page.cookie));
      if (!job) return { status: 404, html: renderNotFoundPage('job', page.address) };
      return { status: 200, html: renderJobPage(job, await data.market(job.market)) };
    }
    const market = await data.market(page.ref);
    if (!market) return { status: 404, html: renderNotFoundPage('market', page.ref) };
    const [nodes, running] = await Promise.all([data.nodes(market.address), data.runningJobs(market.address)]);
    return { status: 200, html: renderMarketPage({ market, nodes, running }) };
  };
  return {
    match: pageRequestOf,
    serve(page, res, requestId) {
      render(page).then(
        ({ status, html }) => send(res, status, html, requestId),
        (err: Error) => {
          if (!(err instanceof UpstreamError)) {
            opts.logger.error({ requestId, err, page: page.kind }, 'page failed');
            return send(res, 500, renderErrorPage(requestId), requestId);
          }
          opts.logger.warn({ requestId, err: err.message, page: page.kind }, 'page data unavailable');
          send(res, 503, renderUnavailablePage(), requestId, { 'retry-after': '5' });
        },
      );
    },
  };
}

/** A dot segment would climb out of the internal route's path once URL-resolved; no address or name is that long. */
const usable = (ref: string): boolean => ref.length > 0 && ref.length <= 200 && ref !== '.' && ref !== '..';

/**
 * The same URL also answers JSON, hence Vary. The job link is the key to the
 * job's page, so no Referer leaves it; the page runs no script at all.
 */
function send(res: http.ServerResponse, status: number, html: string, requestId: string, extra: http.OutgoingHttpHeaders = {}): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    'cache-control': 'no-store',
    vary: 'Accept, Authorization',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-request-id': requestId,
    ...extra,
  });
  res.end(html);
}
