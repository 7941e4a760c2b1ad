import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type http from 'node:http';

/** The docs page: Swagger UI served from the swagger-ui-dist package, no CDN. */
const assetDir = join(require.resolve('swagger-ui-dist/package.json'), '..');
const assets: Record<string, { type: string; body: Buffer }> = {
  'swagger-ui.css': { type: 'text/css; charset=utf-8', body: readFileSync(join(assetDir, 'swagger-ui.css')) },
  'swagger-ui-bundle.js': { type: 'application/javascript; charset=utf-8', body: readFileSync(join(assetDir, 'swagger-ui-bundle.js')) },
};

const page = Buffer.from(`<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Open Compute Gateway API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
  <div id="docs"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script>window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#docs', deepLinking: true });</script>
</body>
</html>
`);

/** Serves /docs and its assets; false when the path is not one of them. */
export function serveDocs(path: string, res: http.ServerResponse): boolean {
  if (path === '/docs' || path === '/docs/') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': page.length });
    res.end(page);
    return true;
  }
  const asset = path.startsWith('/docs/') ? assets[path.slice(6)] : undefined;
  if (!asset) return false;
  res.writeHead(200, { 'content-type': asset.type, 'content-length': asset.body.length, 'cache-control': 'public, max-age=3600' });
  res.end(asset.body);
  return true;
}
