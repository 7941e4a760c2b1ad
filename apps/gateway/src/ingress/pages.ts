import type http from 'node:http';

const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string, refreshSeconds?: number): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
${refreshSeconds ? `<meta http-equiv="refresh" content="${refreshSeconds}">` : ''}
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#222}code{background:#f3f3f3;padding:.1rem .3rem}</style>
</head><body>${body}</body></html>
`;
}

/** The not-found page: the host names no running job, or its service is not ready yet. */
export function sendNotFoundPage(res: http.ServerResponse, host: string, detail: string, requestId: string): void {
  const html = page(
    'Not found',
    `<h1>Nothing here yet</h1><p>No service is answering at <code>${escape(host)}</code>.</p><p>${escape(detail)}</p><p>A job's service can take a few minutes to be ready; this page reloads itself.</p>`,
    10,
  );
  res.writeHead(404, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'x-request-id': requestId });
  res.end(html);
}

/** The unavailable page's HTML (the edge proxy answers it too, ADR 0093). */
export const unavailablePage = (detail: string): string => page('Unavailable', `<h1>Temporarily unavailable</h1><p>${escape(detail)}</p>`, 10);

export function sendUnavailablePage(res: http.ServerResponse, detail: string, requestId: string): void {
  const html = unavailablePage(detail);
  res.writeHead(503, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'retry-after': '5', 'x-request-id': requestId });
  res.end(html);
}

/** Too many lookups of hosts the gateway did not know, from one client. */
export function sendTooManyPage(res: http.ServerResponse, retryAfterSeconds: number, requestId: string): void {
  const html = page('Too many requests', `<h1>Too many requests</h1><p>Too many unknown addresses were asked for from your address; try again in ${retryAfterSeconds} s.</p>`);
  res.writeHead(429, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'retry-after': String(retryAfterSeconds), 'x-request-id': requestId });
  res.end(html);
}
