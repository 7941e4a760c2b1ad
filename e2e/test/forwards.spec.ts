/**
 * Endpoint forwards end to end (ADR 0092): the node forwards a ready
 * endpoint's port in its kernel, deployment-manager hands the forward to the
 * gateway with the job's route, and the gateway connects there instead of the
 * node's ingress; when the endpoint's continuous check fails, the forward goes
 * and the gateway's next requests reach the node's pages, and once it passes
 * again the gateway follows the new forward. Real services, Postgres, Redis,
 * Docker and iptables (root, as the node's isolation).
 */
import { request } from 'node:http';
import { BUSYBOX_IMAGE, ensureBusyboxImage, waitFor } from '@ocg/testing';
import Docker from 'dockerode';
import { INTERNAL_TOKEN_HEADER } from '@ocg/http';
import { FaultStack, INTERNAL_TOKEN, NODE_DOMAIN } from './support/fault-stack';

/** The op serves / with who connected (the TCP peer) and the `X-Forwarded-For` it got, and /health while /w/health exists. */
const CGI = '#!/bin/sh\nprintf "Content-Type: text/plain\\r\\n\\r\\npeer=%s xff=%s\\n" "$REMOTE_ADDR" "$HTTP_X_FORWARDED_FOR"';
const job = {
  version: '0.1',
  type: 'container',
  ops: [
    {
      type: 'container/run',
      id: 'web',
      args: {
        image: BUSYBOX_IMAGE,
        env: { CGI },
        cmd: ['sh', '-c', 'mkdir -p /w/cgi-bin && printf "%s\\n" "$CGI" > /w/cgi-bin/who && chmod +x /w/cgi-bin/who && echo up > /w/health && exec httpd -f -p 8080 -h /w'],
        expose: [{ port: 8080, health_checks: [{ type: 'http', path: '/health', method: 'GET', expected_status: 200, continuous: true }] }],
      },
    },
  ],
};

let stack: FaultStack;
let userKey: string;
let address: string;
const base = 21_000 + Math.floor(Math.random() * 400) * 20;

/** GET of a path of the job's host through the gateway. */
function viaGateway(path: string): Promise<{ status: number; body: string }> {
  return new Promise((done) => {
    const req = request(`${stack.gateway}${path}`, { headers: { host: `${address.toLowerCase()}.${NODE_DOMAIN}` }, timeout: 3000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => done({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => done({ status: 0, body: '' }));
    req.end();
  });
}

/** `<peer> <forwarded-for>` of the CGI's answer (busybox may give the peer as an IPv4-mapped IPv6 address). */
const who = (body: string): string | undefined => {
  const m = /^peer=\[?(?:::ffff:)?([^\s\]]*)\]? xff=(.*)$/m.exec(body);
  return m ? `${m[1]} ${m[2]}` : undefined;
};

/** The route deployment-manager gives the gateway. */
async function forwardsOf(): Promise<Record<string, string>> {
  const res = await fetch(`${stack.url('deployment-manager')}/internal/jobs/${address}`, { headers: { [INTERNAL_TOKEN_HEADER]: INTERNAL_TOKEN } });
  return ((await res.json()) as { forwards: Record<string, string> }).forwards;
}

/** Runs a shell line in the job's container. */
async function inContainer(line: string): Promise<void> {
  const docker = new Docker({ socketPath: '/var/run/docker.sock' });
  const [c] = await docker.listContainers({ filters: JSON.stringify({ label: [`ocg.job=${address}`] }) });
  const run = await docker.getContainer(c.Id).exec({ Cmd: ['sh', '-c', line] });
  await run.start({});
}

beforeAll(async () => {
  await ensureBusyboxImage();
  stack = await FaultStack.start({ 'node-agent': { FORWARD_PORTS: `${base}-${base + 19}` } });
  ({ userKey, job: address } = await stack.postJob('forwards', job, { credits: 1_000_000, pricePerSecond: 1 }));
}, 240_000);

afterAll(async () => {
  if (address) await stack?.call('POST', `/jobs/${address}/stop`, userKey).catch(() => undefined);
  await stack?.waitForNoContainers(30_000);
  await stack?.stop();
}, 120_000);

it("reaches a ready endpoint through its node's forward, the node's pages while it fails its check, and the new forward after", async () => {
  const first = await waitFor(async () => (await forwardsOf())[address.toLowerCase()], {
    timeoutMs: 120_000,
    intervalMs: 250,
    what: `the job's forward\n${stack.lines.slice(-20).join('\n')}`,
  });
  const [forwardIp, forwardPort] = first.split(':');
  expect(Number(forwardPort)).toBeGreaterThanOrEqual(base);
  expect(await forwardsOf()).toEqual({ [address.toLowerCase()]: first, [`${address.toLowerCase()}-8080`]: first, [`${address.toLowerCase()}-0-8080`]: first });

  // Through the forward the container's peer is the gateway's side of the DNAT (the forward's address), and the
  // forwarded-for is the client's alone; through the node's ingress it would be the job network's gateway and "client, node".
  let last = '';
  const direct = await waitFor(
    async () => {
      const answer = await viaGateway('/cgi-bin/who');
      last = `${answer.status} ${answer.body}`;
      return who(answer.body) === `${forwardIp} 127.0.0.1` ? true : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 250, what: 'the gateway to use the forward' },
  ).catch((err: Error) => {
    throw new Error(`${err.message}; last answer: ${last}`);
  });
  expect(direct).toBe(true);
  expect(who((await viaGateway('/cgi-bin/who')).body)).toBe(`${forwardIp} 127.0.0.1`);

  // The check fails: the forward goes, and the gateway's requests reach the node's 503 page.
  await inContainer('rm /w/health');
  await waitFor(async () => ((await forwardsOf())[address.toLowerCase()] === undefined ? true : undefined), { timeoutMs: 30_000, intervalMs: 250, what: 'the forward to go' });
  await waitFor(async () => ((await viaGateway('/cgi-bin/who')).status === 503 ? true : undefined), { timeoutMs: 30_000, intervalMs: 250, what: 'the 503 page' });

  // It passes again: a new forward (another port), which the gateway follows.
  await inContainer('echo up > /w/health');
  const second = await waitFor(async () => (await forwardsOf())[address.toLowerCase()], { timeoutMs: 30_000, intervalMs: 250, what: 'the new forward' });
  expect(second).not.toBe(first);
  await waitFor(async () => (who((await viaGateway('/cgi-bin/who')).body) === `${forwardIp} 127.0.0.1` ? true : undefined), {
    timeoutMs: 30_000,
    intervalMs: 250,
    what: 'the gateway to use the new forward',
  });
}, 240_000);
