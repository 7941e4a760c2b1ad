/**
 * The market's resources to keep warm reach the node: in the registration
 * answer, then in a heartbeat answer only when the version the node sends
 * back is not the current one (a real HTTP server plays host-manager).
 */
import { randomBytes } from 'node:crypto';
import { createSigner } from '@ocg/auth';
import type { NodeHeartbeatRequest, WarmResource } from '@ocg/contracts';
import { createLogger, listen, type RunningServer } from '@ocg/http';
import { waitFor } from '@ocg/testing';
import { ControlPlaneClient } from '../src/control-plane/client';
import { Membership } from '../src/control-plane/membership';

const FIRST = [{ type: 'Ollama', model: 'tiny:1b' }];
const SECOND = [{ type: 'HF', repo: 'org/model', target: '/m' }];

let server: RunningServer;
const heartbeats: NodeHeartbeatRequest[] = [];
/** What the market keeps warm now. */
let current = { items: FIRST as WarmResource[], version: 'v1' };

beforeAll(async () => {
  server = await listen(
    (req, res) => {
      let text = '';
      req.on('data', (d: Buffer) => (text += d.toString()));
      req.on('end', () => {
        const timing = { heartbeatIntervalSeconds: 0.05, presenceTtlSeconds: 1, warmResourcesVersion: current.version };
        let answer: object;
        if (req.url === '/nodes/register') answer = { node: { marketName: 'M' }, ...timing, warmResources: current.items };
        else {
          const body = JSON.parse(text) as NodeHeartbeatRequest;
          heartbeats.push(body);
          answer = { address: 'n', status: 'ONLINE', ...timing, ...(body.warmResourcesVersion === current.version ? {} : { warmResources: current.items }) };
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
    },
    { host: '127.0.0.1', port: 0 },
  );
});

afterAll(() => server.close());

it('hands the list to its listener at registration and again only when a heartbeat brings a new one', async () => {
  const client = new ControlPlaneClient(server.url, createSigner(randomBytes(32)), 5000);
  const gpus = async () => [];
  const membership = new Membership(
    client,
    { market: 'M', joinToken: 't', domain: 'node.example.net', capacity: 1, gpus },
    createLogger({ service: 'node-agent', level: 'silent' }),
  );
  const heard: WarmResource[][] = [];
  membership.advertise('http://127.0.0.1:1');
  await membership.join();
  membership.onWarmResources((items) => heard.push(items));
  expect(heard).toEqual([FIRST]);
  await waitFor(() => heartbeats.length >= 2, { timeoutMs: 5000, what: 'two heartbeats' });
  expect(heartbeats[0]).toEqual({ warmResourcesVersion: 'v1' });
  expect(heard).toEqual([FIRST]);
  current = { items: SECOND, version: 'v2' };
  await waitFor(() => heard.length === 2, { timeoutMs: 5000, what: 'the new list' });
  expect(heard[1]).toEqual(SECOND);
  const seen = heartbeats.length;
  await waitFor(() => heartbeats.length >= seen + 2, { timeoutMs: 5000, what: 'two more heartbeats' });
  expect(heartbeats.at(-1)).toEqual({ warmResourcesVersion: 'v2' });
  expect(heard).toHaveLength(2);
  await membership.stop();
});
