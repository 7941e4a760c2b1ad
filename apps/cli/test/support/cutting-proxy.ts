/** A TCP relay in front of the gateway that cuts a followed log's connection once, mid-stream, as a network blip would, or goes away for a while. */
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface CuttingProxy {
  port: number;
  /** How many connections it cut. */
  cuts: number;
  /** Drops every connection, and every new one until `ms` passed: the node out of reach for a while. */
  outage(ms: number): void;
  close(): void;
}

/** Cuts the first connection that asks to follow a log (`follow=true`) after `afterBytes` of its answer. */
export async function cuttingProxy(targetPort: number, afterBytes: number): Promise<CuttingProxy> {
  const sockets = new Set<net.Socket>();
  let downUntil = 0;
  const proxy: CuttingProxy = {
    port: 0,
    cuts: 0,
    outage: (ms) => {
      downUntil = Date.now() + ms;
      sockets.forEach((s) => s.destroy());
    },
    close: () => (server.close(), sockets.forEach((s) => s.destroy())),
  };
  const server = net.createServer((client) => {
    if (Date.now() < downUntil) return void client.on('error', () => undefined).destroy();
    const upstream = net.connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    let following = false;
    let relayed = 0;
    client.on('data', (chunk: Buffer) => {
      following ||= proxy.cuts === 0 && chunk.toString('latin1').includes('follow=true');
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      client.write(chunk);
      if (following && (relayed += chunk.length) >= afterBytes) {
        proxy.cuts++;
        following = false;
        client.destroy();
        upstream.destroy();
      }
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  proxy.port = (server.address() as AddressInfo).port;
  return proxy;
}
