/** The resource fetch's address policy against a real server on 127.0.0.1: refused unless allowed, on every redirect hop. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { guardedFetch, resourcePolicy } from '../src/resources/network';

let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/hop') res.writeHead(302, { location: `http://127.0.0.2:${(server.address() as AddressInfo).port}/ok` }).end();
    else if (req.url === '/local') res.writeHead(302, { location: '/ok' }).end();
    else res.end(`ok ${req.headers.authorization ?? ''}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => server.close());

it('refuses a loopback address unless RESOURCE_ALLOW lists it, by address or as localhost', async () => {
  await expect(guardedFetch(resourcePolicy([]))(`${base}/ok`)).rejects.toThrow(/loopback/);
  await expect(guardedFetch(resourcePolicy([]))(base.replace('127.0.0.1', 'localhost'))).rejects.toThrow(/loopback/);
  expect(await (await guardedFetch(resourcePolicy(['127.0.0.1']))(`${base}/ok`)).text()).toBe('ok ');
});

it('checks each redirect hop: an allowed start cannot lead to an address that is not', async () => {
  const fetch = guardedFetch(resourcePolicy(['127.0.0.1']));
  expect(await (await fetch(`${base}/local`, { headers: { authorization: 'Bearer t' } })).text()).toBe('ok Bearer t');
  await expect(fetch(`${base}/hop`)).rejects.toThrow(/127\.0\.0\.2.*loopback/);
});
