// The images' HEALTHCHECK: GET /healthz on the container's own port (API_PORT for
// the node agent, else PORT), over HTTPS when the service serves TLS (it checks
// itself, so the certificate is not verified). Exit 0 on a 200, 1 otherwise.
'use strict';
const port = Number(process.env.API_PORT || process.env.PORT);
const bound = process.env.HOST || '127.0.0.1';
const host = bound === '0.0.0.0' || bound === '::' ? '127.0.0.1' : bound;
const tls = Boolean(process.env.TLS_CERT_FILE && process.env.TLS_KEY_FILE);
const req = require(tls ? 'node:https' : 'node:http').get({ host, port, path: '/healthz', timeout: 2500, rejectUnauthorized: false }, (res) => {
  res.resume();
  process.exit(res.statusCode === 200 ? 0 : 1);
});
req.on('timeout', () => req.destroy(new Error('timeout')));
req.on('error', () => process.exit(1));
