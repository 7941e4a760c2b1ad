/**
 * Connections a gateway pipes to the node ingress behind a PROXY v2 header
 * (ADR 0072), on real sockets: the header is believed only from the peers of
 * INGRESS_PROXY_FROM, the Host must be the connection's server name, and the
 * job sees the client the header states. The container is a plain HTTP
 * server on loopback standing in for the job's (the executor only says where
 * it is).
 */
import http from 'node:http';
import net from 'node:net';
import { createLogger, listen, parseCidrList, proxyV2Header, type RunningServer } from '@ocg/http';
import type { Executor } from '../src/executor/executor';
import { acceptProxyHeaders } from '../src/ingress/piped';
import { createIngress, type Ingress } from '../src/ingress/server';

const JOB = 'Fh3kX9aBcDeF';
const HOST = `${JOB.toLowerCase()}.nodes.example.test`;
const OTHER = 'Zz9otherJob1';

interface Answer {
  status: number;
  body: string;
}

/** Raw HTTP/1.1 over one connection: `prefix` (a PROXY header) first, then each request in turn. */
async function onConnection(port: number, prefix: Buffer | undefined, hosts: string[], extra = ''): Promise<Array<Answer | 'closed'>> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  if (prefix) socket.write(prefix);
  let text = '';
  socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  const answers: Array<Answer | 'closed'> = [];
  for (const host of hosts) {
    socket.write(`GET / HTTP/1.1\r\nHost: ${host}\r\n${extra}\r\n`);
    const whole = await Promise.race([
      new Promise<string>((resolve) => {
        const check = () => {
          const end = text.indexOf('\r\n\r\n');
          const length = /content-length: (\d+)/i.exec(text)?.[1];
          if (end !== -1 && length !== undefined && text.length >= end + 4 + Number(length)) return resolve(text);
          setTimeout(check, 5);
        };
        check();
      }),
      closed.then(() => 'closed' as const),
    ]);
    if (whole === 'closed') {
      answers.push(text ? { status: Number(text.split(' ')[1]), body: '' } : 'closed');
      break;
    }
    answers.push({ status: Number(whole.split(' ')[1]), body: whole.slice(whole.indexOf('\r\n\r\n') + 4) });
    text = '';
  }
  socket.destroy();
  return answers;
}

const header = (authority: string) => proxyV2Header({ address: '203.0.113.7', port: 51000 }, { address: '127.0.0.1', port: 443 }, authority);

describe('node ingress: piped connections', () => {
  let container: RunningServer;
  const seen: Array<http.IncomingHttpHeaders> = [];
  const agents: Array<{ ingress: Ingress; server: RunningServer }> = [];

  /** A node ingress believing PROXY headers from `from`. */
  async function nodeIngress(from: string): Promise<RunningServer> {
    const executor = {
      ingressTarget: (job: string) =>
        job === JOB.toLowerCase() || job === OTHER.toLowerCase() ? { kind: 'proxy', host: '127.0.0.1', port: container.port, job } : { kind: 'not-found' },
    } as unknown as Executor;
    const proxyFrom = parseCidrList(from);
    const ingress = createIngress({ executor, logger: createLogger({ service: 'node-agent', level: 'silent' }), nodeAddress: 'n0deaddr', trustForwardedHost: false, proxyFrom });
    const server = await listen(ingress.handle, { host: '127.0.0.1', port: 0 });
    acceptProxyHeaders(server.server, proxyFrom);
    agents.push({ ingress, server });
    return server;
  }

  beforeAll(async () => {
    container = await listen(
      (req, res) => {
        seen.push(req.headers);
        const body = `job at ${req.headers.host}`;
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) }).end(body);
      },
      { host: '127.0.0.1', port: 0 },
    );
  });

  afterAll(async () => {
    for (const { ingress, server } of agents) {
      ingress.close();
      await server.close();
    }
    await container.close();
  });

  beforeEach(() => (seen.length = 0));

  it("serves the routed job's requests with the client the gateway states as X-Forwarded-For, the client's own claims dropped", async () => {
    const node = await nodeIngress('127.0.0.1/32');
    const answers = await onConnection(node.port, header(HOST), [HOST, `${HOST.toUpperCase()}:443`], 'X-Forwarded-For: 6.6.6.6\r\nX-Real-IP: 6.6.6.6\r\n');
    expect(answers).toEqual([
      { status: 200, body: `job at ${HOST}` },
      { status: 200, body: `job at ${HOST.toUpperCase()}:443` },
    ]);
    expect(seen[0]).toMatchObject({ 'x-forwarded-for': '203.0.113.7, 127.0.0.1', 'x-forwarded-proto': 'https', 'x-forwarded-host': HOST });
    expect(seen[0]['x-real-ip']).toBeUndefined();
  });

  it('answers 421 to a Host other than the server name the connection was routed by, and reaches no job', async () => {
    const node = await nodeIngress('127.0.0.1/32');
    const answers = await onConnection(node.port, header(HOST), [`${OTHER.toLowerCase()}.nodes.example.test`, 'n0deaddr.nodes.example.test']);
    expect(answers.map((a) => (a === 'closed' ? a : a.status))).toEqual([421, 421]);
    expect(seen).toHaveLength(0);
  });

  it('refuses a WebSocket upgrade for another host on a piped connection with 421', async () => {
    const node = await nodeIngress('127.0.0.1/32');
    const upgrade = 'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';
    const answers = await onConnection(node.port, header(HOST), [`${OTHER.toLowerCase()}.nodes.example.test`], upgrade);
    expect(answers.map((a) => (a === 'closed' ? a : a.status))).toEqual([421]);
    expect(seen).toHaveLength(0);
  });

  it('refuses a PROXY header from a peer it does not believe: no job sees the stated client', async () => {
    const node = await nodeIngress('10.99.0.0/16');
    const answers = await onConnection(node.port, header(HOST), [HOST]);
    expect(answers.map((a) => (a === 'closed' ? a : a.status))).toEqual([400]);
    expect(seen).toHaveLength(0);
  });

  it('still serves plain HTTP from a believed peer (the gateway has an HTTP path too), appending its address', async () => {
    const node = await nodeIngress('127.0.0.1/32');
    const answers = await onConnection(node.port, undefined, [HOST], 'X-Forwarded-For: 198.51.100.1\r\n');
    expect(answers).toEqual([{ status: 200, body: `job at ${HOST}` }]);
    expect(seen[0]['x-forwarded-for']).toBe('198.51.100.1, 127.0.0.1');
  });

  it('tells a believed peer, and only it, that its PROXY headers are taken', async () => {
    const probe = async (port: number) =>
      new Promise<http.IncomingMessage>((resolve, reject) => {
        http.get({ host: '127.0.0.1', port, path: '/', headers: { host: HOST, 'x-ocg-internal-ingress-probe': 'proxy-protocol' } }, resolve).on('error', reject);
      });
    const believing = await probe((await nodeIngress('127.0.0.1/32')).port);
    const doubting = await probe((await nodeIngress('10.99.0.0/16')).port);
    expect([believing.statusCode, believing.headers['x-ocg-proxy-protocol']]).toEqual([204, 'v2']);
    expect([doubting.statusCode, doubting.headers['x-ocg-proxy-protocol']]).toEqual([204, undefined]);
    expect(seen).toHaveLength(0);
  });
});
