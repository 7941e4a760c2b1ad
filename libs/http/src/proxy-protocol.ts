import net from 'node:net';
import type { Socket } from 'node:net';

/**
 * The PROXY protocol, version 2 (binary; HAProxy's specification): a header
 * at the start of a connection in which the proxy that opened it states the
 * client's address and, in the AUTHORITY TLV, the TLS server name the client
 * asked for. Whoever receives it must believe it only from peers it trusts:
 * anyone can write these bytes.
 */
export const PROXY_V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
const PP2_TYPE_AUTHORITY = 0x02;
/** Far above any header this code writes (addresses and one host name): a longer one is refused unread. */
const MAX_HEADER = 536;

export interface ProxyHeader {
  /** The client's address and port, as the proxy saw them. */
  client: string;
  clientPort: number;
  /** The TLS server name (SNI) the client connected with; empty when none was stated. */
  authority: string;
}

const bare = (address: string): string => address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');

/** 16 bytes of an IPv6 address; an IPv4 one as IPv4-mapped (`::ffff:a.b.c.d`). */
function ipv6Bytes(address: string): Buffer {
  const out = Buffer.alloc(16);
  if (net.isIPv4(address)) {
    out.writeUInt16BE(0xffff, 10);
    Buffer.from(address.split('.').map(Number)).copy(out, 12);
    return out;
  }
  const [head, tail] = address.split('::');
  const words = (part: string | undefined) => (part ? part.split(':') : []);
  const left = words(head);
  const right = words(tail);
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

/** An IPv6 address's text; an IPv4-mapped one as IPv4. */
function ipv6Text(bytes: Buffer): string {
  if (bytes.subarray(0, 10).every((b) => b === 0) && bytes.readUInt16BE(10) === 0xffff) return [...bytes.subarray(12)].join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i).toString(16));
  return new URL(`http://[${groups.join(':')}]/`).hostname.replace(/^\[|\]$/g, '');
}

/** The header a proxy writes first on the connection it opens for `client` (the client's socket; `authority`: its SNI name). */
export function proxyV2Header(client: { address: string; port: number }, server: { address: string; port: number }, authority: string): Buffer {
  const [src, dst] = [bare(client.address), bare(server.address)];
  const v4 = net.isIPv4(src) && net.isIPv4(dst);
  const addresses = v4
    ? Buffer.concat([Buffer.from(src.split('.').map(Number)), Buffer.from(dst.split('.').map(Number)), Buffer.alloc(4)])
    : Buffer.concat([ipv6Bytes(src), ipv6Bytes(dst), Buffer.alloc(4)]);
  addresses.writeUInt16BE(client.port, addresses.length - 4);
  addresses.writeUInt16BE(server.port, addresses.length - 2);
  const name = Buffer.from(authority, 'utf8');
  const tlv = Buffer.alloc(3 + name.length);
  tlv[0] = PP2_TYPE_AUTHORITY;
  tlv.writeUInt16BE(name.length, 1);
  name.copy(tlv, 3);
  const head = Buffer.alloc(16);
  PROXY_V2_SIGNATURE.copy(head);
  head[12] = 0x21; // version 2, PROXY
  head[13] = v4 ? 0x11 : 0x21; // TCP over IPv4 / IPv6
  head.writeUInt16BE(addresses.length + tlv.length, 14);
  return Buffer.concat([head, addresses, tlv]);
}

/**
 * Parses a header at the start of `data`: the header and how many bytes it
 * took; `null` when `data` does not start with the signature (no header);
 * `undefined` while `data` is too short to tell; an Error when it is no PROXY
 * v2 header of a TCP connection (or longer than this code accepts).
 */
export function parseProxyV2(data: Buffer): { header: ProxyHeader; length: number } | Error | null | undefined {
  const known = Math.min(data.length, PROXY_V2_SIGNATURE.length);
  if (!data.subarray(0, known).equals(PROXY_V2_SIGNATURE.subarray(0, known))) return null;
  if (data.length < 16) return undefined;
  if (data[12] !== 0x21) return new Error('not a PROXY v2 PROXY command');
  const length = 16 + data.readUInt16BE(14);
  if (length > MAX_HEADER) return new Error('PROXY header too long');
  if (data.length < length) return undefined;
  const family = data[13];
  const size = family === 0x11 ? 12 : family === 0x21 ? 36 : 0;
  if (!size || length < 16 + size) return new Error('not a TCP address in the PROXY header');
  const body = data.subarray(16, length);
  const client = family === 0x11 ? [...body.subarray(0, 4)].join('.') : ipv6Text(body.subarray(0, 16));
  const clientPort = body.readUInt16BE(family === 0x11 ? 8 : 32);
  let authority = '';
  for (let at = size; at + 3 <= body.length;) {
    const type = body[at];
    const len = body.readUInt16BE(at + 1);
    if (at + 3 + len > body.length) return new Error('truncated TLV in the PROXY header');
    if (type === PP2_TYPE_AUTHORITY) authority = body.subarray(at + 3, at + 3 + len).toString('utf8');
    at += 3 + len;
  }
  return { header: { client, clientPort, authority }, length };
}

/**
 * Reads the header at the start of a connection, then gives the socket to
 * `next` with the bytes after it put back to be read first; a connection that
 * starts with anything else goes to `next` without a header, its bytes put
 * back. A malformed header, or a connection silent for `timeoutMs` at its
 * start, is destroyed.
 */
export function readProxyHeader(socket: Socket, timeoutMs: number, next: (header: ProxyHeader | undefined) => void): void {
  let buffered: Buffer = Buffer.alloc(0);
  const timer = setTimeout(() => socket.destroy(), timeoutMs);
  const done = () => {
    clearTimeout(timer);
    socket.off('data', onData);
    socket.off('close', done);
  };
  const onData = (chunk: Buffer) => {
    buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
    const parsed = parseProxyV2(buffered);
    if (parsed === undefined) return;
    done();
    if (parsed instanceof Error) return void socket.destroy();
    socket.pause();
    const rest = parsed ? buffered.subarray(parsed.length) : buffered;
    if (rest.length) socket.unshift(rest);
    next(parsed?.header);
  };
  socket.on('data', onData);
  socket.once('close', done);
  socket.on('error', () => socket.destroy());
}
