import type http from 'node:http';

/**
 * The plain-HTTP listener when TLS is on: every request is sent to the same
 * host and path over HTTPS (308 keeps the method and body). /healthz still
 * answers so a load balancer can probe either port.
 */
export function redirectToHttps(httpsPort: number): http.RequestListener {
  return (req, res) => {
    if (req.url === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      return;
    }
    const host = (req.headers.host ?? 'localhost').replace(/:\d+$/, '');
    const port = httpsPort === 443 ? '' : `:${httpsPort}`;
    // Stryker disable next-line StringLiteral: a server's request always has a url; the fallback only satisfies the type
    const target = req.url ?? '/';
    res.writeHead(308, { location: `https://${host}${port}${target}`, 'content-length': 0 }).end();
  };
}
