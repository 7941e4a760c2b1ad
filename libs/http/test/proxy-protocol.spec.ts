/** PROXY protocol v2 headers as the gateway writes them and the node ingress reads them (ADR 0072). */
import net from 'node:net';
import { parseProxyV2, proxyV2Header, readProxyHeader, type ProxyHeader } from '../src';

describe('PROXY v2 headers', () => {
  it('carries the client address, port and server name, over IPv4 and IPv6', () => {
    for (const [client, server] of [
      ['203.0.113.7', '10.0.0.1'],
      ['::ffff:203.0.113.7', '::ffff:10.0.0.1'],
      ['2001:db8::7', '2001:db8::1'],
      ['203.0.113.7', '2001:db8::1'],
    ]) {
      const header = proxyV2Header({ address: client, port: 51000 }, { address: server, port: 443 }, 'job.nodes.example');
      const parsed = parseProxyV2(Buffer.concat([header, Buffer.from('GET / HTTP/1.1\r\n')]));
      expect(parsed).toEqual({ header: { client: client.replace('::ffff:', ''), clientPort: 51000, authority: 'job.nodes.example' }, length: header.length });
    }
  });

  it('tells a connection without a header from one whose header is not whole yet or malformed', () => {
    const header = proxyV2Header({ address: '203.0.113.7', port: 1 }, { address: '10.0.0.1', port: 2 }, 'a');
    expect(parseProxyV2(Buffer.from('GET / HTTP/1.1\r\n'))).toBeNull();
    expect(parseProxyV2(header.subarray(0, 10))).toBeUndefined();
    expect(parseProxyV2(header.subarray(0, header.length - 1))).toBeUndefined();
    const local = Buffer.from(header);
    local[12] = 0x20; // LOCAL, not PROXY
    expect(parseProxyV2(local)).toBeInstanceOf(Error);
    const long = Buffer.from(header);
    long.writeUInt16BE(4000, 14);
    expect(parseProxyV2(long)).toBeInstanceOf(Error);
  });

  it('gives the socket on with the bytes after the header still to be read', async () => {
    const got = new Promise<{ header: ProxyHeader | undefined; rest: string }>((resolve) => {
      const server = net.createServer((socket) =>
        readProxyHeader(socket, 5000, (header) => {
          socket.once('data', (d: Buffer) => {
            resolve({ header, rest: d.toString() });
            socket.destroy();
            server.close();
          });
          socket.resume();
        }),
      );
      server.listen(0, '127.0.0.1', () => {
        const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1', () =>
          client.end(Buffer.concat([proxyV2Header({ address: '198.51.100.2', port: 4000 }, { address: '127.0.0.1', port: 443 }, 'h'), Buffer.from('hello')])),
        );
      });
    });
    expect(await got).toEqual({ header: { client: '198.51.100.2', clientPort: 4000, authority: 'h' }, rest: 'hello' });
  });
});
