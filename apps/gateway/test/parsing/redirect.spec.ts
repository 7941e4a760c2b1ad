/** The plain-HTTP listener sends every request to the same host and path over HTTPS. */
import http from 'node:http';
import net from 'node:net';
import { listen, type RunningServer } from '@ocg/http';
import { redirectToHttps } from '../../src/redirect';

function get(base: string, path: string, host?: string): Promise<{ status: number; location?: string; type?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${path}`, { setHost: false, headers: host ? { host } : {} }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, type: res.headers['content-type'], body }));
    });
    req.on('error', reject);
  });
}

describe('redirectToHttps', () => {
  const servers: RunningServer[] = [];
  const start = async (httpsPort: number) => {
    const server = await listen(redirectToHttps(httpsPort), { host: '127.0.0.1', port: 0 });
    servers.push(server);
    return server.url;
  };
  afterAll(async () => Promise.all(servers.map((s) => s.close())));

  it('keeps host, path and query, and names the HTTPS port unless it is 443', async () => {
    const url = await start(8443);
    expect(await get(url, '/jobs/J1?x=1', 'api.example.test:8080')).toMatchObject({ status: 308, location: 'https://api.example.test:8443/jobs/J1?x=1' });
    expect((await get(await start(443), '/a', 'abc-80.nodes.example.test')).location).toBe('https://abc-80.nodes.example.test/a');
  });

  it('strips only a trailing port from the host', async () => {
    const url = await start(443);
    expect((await get(url, '/', 'abc-8080.nodes.example.test:80')).location).toBe('https://abc-8080.nodes.example.test/');
    expect((await get(url, '/', '[::1]:8080')).location).toBe('https://[::1]/');
  });

  it('falls back to localhost without a Host header (HTTP/1.0 needs none)', async () => {
    const { port } = new URL(await start(443));
    const head = await new Promise<string>((resolve, reject) => {
      let text = '';
      const socket = net.connect(Number(port), '127.0.0.1', () => socket.end('GET /x HTTP/1.0\r\n\r\n'));
      socket.on('data', (d: Buffer) => (text += d.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(head).toMatch(/^HTTP\/1\.1 308 /);
    expect(head).toMatch(/\r\nlocation: https:\/\/localhost\/x\r\n/i);
  });

  it('answers /healthz itself, and only that exact path', async () => {
    const url = await start(8443);
    expect(await get(url, '/healthz', 'api.example.test')).toEqual({ status: 200, location: undefined, type: 'application/json', body: '{"status":"ok"}' });
    expect(await get(url, '/healthz?x', 'api.example.test')).toMatchObject({ status: 308, location: 'https://api.example.test:8443/healthz?x' });
  });
});
