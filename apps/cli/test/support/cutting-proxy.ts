/** A TCP relay in front of the gateway that cuts a followed log's connection once, mid-stream, as a network blip would. */
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface CuttingProxy {
  port: number;
  /** How many connections it cut. */
  cuts: number;
  close(): void;
}

/** Cuts the first connection that asks to follow a log (`follow=true`) after `afterBytes` of its answer. */
export async function cuttingProxy(targetPort: number, afterBytes: number): Promise<CuttingProxy> {
  const sockets = new Set<net.Socket>();
  const proxy: CuttingProxy = { port: 0, cuts: 0, close: () => (server.close(), sockets.forEach((s) => s.destroy())) };
  const server = net.createServer((client) => {
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
