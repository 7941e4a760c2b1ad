import type http from 'node:http';

const PAGES = {
  404: ['Nothing here yet', 'No service answers at this address yet. If a job was just posted, its endpoint appears once the container is ready; that can take a few minutes.'],
  502: ['Bad gateway', 'The service at this address did not answer. It may be restarting.'],
  503: ['Service unavailable', 'The service at this address is failing its health checks. It is still running; try again shortly.'],
} as const;

/** A small HTML page: what a browser on a job's URL shows while there is nothing to proxy to. */
export function sendPage(res: http.ServerResponse, status: keyof typeof PAGES): void {
  const [title, text] = PAGES[status];
  const body = `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p></body></html>\n`;
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
