/** Who the client is: X-Forwarded-* believed only from trusted proxies (the parsing; forwarded.spec.ts above goes through a gateway). */
import type http from 'node:http';
import { parseCidrList } from '@ocg/http';
import { EDGE_PEER_HEADER, forwardedOf, markEdgeConnection } from '../../src/forwarded';

type Headers = Record<string, string | string[] | undefined>;

/** The parts of a request forwardedOf reads: the socket's peer (TLS or not) and the headers. */
function request(remoteAddress: string | undefined, headers: Headers, tls = false): http.IncomingMessage {
  return { socket: tls ? { remoteAddress, encrypted: true } : { remoteAddress }, headers } as unknown as http.IncomingMessage;
}

const TRUSTED = parseCidrList('127.0.0.0/8, 10.1.0.0/16, 2001:db8:1::/48');
const NONE = parseCidrList('');

describe('forwardedOf, from an untrusted peer', () => {
  it('states what the gateway saw and ignores what the client says about hops', () => {
    const spoofed = { host: 'api.example.test', 'x-forwarded-for': '6.6.6.6', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };
    expect(forwardedOf(request('203.0.113.9', spoofed), TRUSTED)).toEqual({ for: '203.0.113.9', host: 'api.example.test', proto: 'http' });
    expect(forwardedOf(request('127.0.0.1', spoofed), NONE)).toEqual({ for: '127.0.0.1', host: 'api.example.test', proto: 'http' });
  });

  it('says https for a TLS socket, and an empty host without a Host header', () => {
    expect(forwardedOf(request('203.0.113.9', {}, true), NONE)).toEqual({ for: '203.0.113.9', host: '', proto: 'https' });
  });

  it('names an IPv4 peer without its IPv6 mapping, whatever the case', () => {
    expect(forwardedOf(request('::ffff:10.20.30.40', {}), NONE).for).toBe('10.20.30.40');
    expect(forwardedOf(request('::FFFF:203.0.113.9', {}), NONE).for).toBe('203.0.113.9');
    expect(forwardedOf(request('2001:db8::1', {}), NONE).for).toBe('2001:db8::1');
  });

  it('gives an empty address for a socket already gone', () => {
    expect(forwardedOf(request(undefined, { host: 'h' }), TRUSTED)).toEqual({ for: '', host: 'h', proto: 'http' });
  });
});

describe('forwardedOf, through a trusted proxy', () => {
  const via = (headers: Headers, peer = '127.0.0.1', tls = false) => forwardedOf(request(peer, { host: 'gw.internal', ...headers }, tls), TRUSTED);

  it('takes the rightmost address that is not a trusted proxy', () => {
    expect(via({ 'x-forwarded-for': '6.6.6.6, 203.0.113.9, 10.1.2.3' }).for).toBe('203.0.113.9');
    expect(via({ 'x-forwarded-for': '203.0.113.9' }).for).toBe('203.0.113.9');
    expect(via({ 'x-forwarded-for': '6.6.6.6,203.0.113.9' }, '::ffff:10.1.0.1').for).toBe('203.0.113.9');
  });

  it('reads repeated headers in order, skipping empty entries', () => {
    expect(via({ 'x-forwarded-for': ['6.6.6.6', '203.0.113.9', '10.1.2.3'] }).for).toBe('203.0.113.9');
    expect(via({ 'x-forwarded-for': '203.0.113.9,,10.1.2.3' }).for).toBe('203.0.113.9');
  });

  it('stops at an entry that is no address, keeping the last good one', () => {
    expect(via({ 'x-forwarded-for': 'garbage, 10.1.2.3' }).for).toBe('10.1.2.3');
    expect(via({ 'x-forwarded-for': 'garbage' }).for).toBe('127.0.0.1');
  });

  it('keeps the proxy itself when nothing is forwarded', () => {
    expect(via({})).toEqual({ for: '127.0.0.1', host: 'gw.internal', proto: 'http' });
  });

  it('unmaps IPv4 entries, and only a mapping that prefixes a whole IPv4 address', () => {
    expect(via({ 'x-forwarded-for': '::ffff:10.20.30.40' }).for).toBe('10.20.30.40');
    expect(via({ 'x-forwarded-for': '2001:db8::ffff:1.2.3.4' }).for).toBe('2001:db8::ffff:1.2.3.4');
    // with a zone id it is an IPv6 address, and the IPv4 part alone would be none
    expect(via({ 'x-forwarded-for': '::ffff:203.0.113.9%eth0' }).for).toBe('::ffff:203.0.113.9%eth0');
    expect(via({ 'x-forwarded-for': '203.0.113.9, 2001:db8:1::5' }, '2001:db8:1::9').for).toBe('203.0.113.9');
  });

  it('believes the first X-Forwarded-Proto value when it is http or https, in any case', () => {
    expect(via({ 'x-forwarded-proto': 'HTTPS, http' }).proto).toBe('https');
    expect(via({ 'x-forwarded-proto': 'http' }, '127.0.0.1', true).proto).toBe('http');
    expect(via({ 'x-forwarded-proto': ['https', 'http'] }).proto).toBe('https');
    expect(via({ 'x-forwarded-proto': 'ftp' }, '127.0.0.1', true).proto).toBe('https');
    expect(via({ 'x-forwarded-proto': 'ws' }).proto).toBe('http');
    expect(via({ 'x-forwarded-proto': '' }).proto).toBe('http');
  });

  it('believes the first X-Forwarded-Host value when it is a plain host name', () => {
    expect(via({ 'x-forwarded-host': ' api.example.test:8443 , other' }).host).toBe('api.example.test:8443');
    expect(via({ 'x-forwarded-host': '[::1]:8443' }).host).toBe('[::1]:8443');
    expect(via({ 'x-forwarded-host': ['Api-1.Example.test', 'x'] }).host).toBe('Api-1.Example.test');
    expect(via({ 'x-forwarded-host': 'a'.repeat(260) }).host).toBe('a'.repeat(260));
  });

  it.each([['evil host'], ['evil.example/path'], ['<script>'], ['a'.repeat(261)], ['x@evil'], ['']])('keeps its own host for X-Forwarded-Host %j', (host) => {
    expect(via({ 'x-forwarded-host': host }).host).toBe('gw.internal');
  });
});

describe('forwardedOf, on a connection from the edge proxy (ADR 0093)', () => {
  /** A connection of the edge's Unix socket: no peer address of its own, not TLS. */
  const edgeRequest = (headers: Headers): http.IncomingMessage => {
    const socket = { remoteAddress: undefined };
    markEdgeConnection(socket as never);
    return { socket, headers } as unknown as http.IncomingMessage;
  };

  it("takes the client's peer from the edge's header, over TLS, and walks trusted proxies from there", () => {
    expect(forwardedOf(edgeRequest({ host: 'j.nodes.test', [EDGE_PEER_HEADER]: '203.0.113.9', 'x-forwarded-for': '6.6.6.6' }), TRUSTED)).toEqual({
      for: '203.0.113.9',
      host: 'j.nodes.test',
      proto: 'https',
    });
    expect(forwardedOf(edgeRequest({ host: 'j.nodes.test', [EDGE_PEER_HEADER]: '10.1.2.3', 'x-forwarded-for': '198.51.100.7' }), TRUSTED).for).toBe('198.51.100.7');
  });

  it('states no address when the header is missing, repeated or not an address', () => {
    expect(forwardedOf(edgeRequest({ host: 'h' }), TRUSTED)).toEqual({ for: '', host: 'h', proto: 'https' });
    expect(forwardedOf(edgeRequest({ [EDGE_PEER_HEADER]: ['203.0.113.9', '6.6.6.6'] }), NONE).for).toBe('');
    expect(forwardedOf(edgeRequest({ [EDGE_PEER_HEADER]: 'somebody' }), NONE).for).toBe('');
  });

  it('ignores the header on any other connection', () => {
    expect(forwardedOf(request('198.51.100.1', { [EDGE_PEER_HEADER]: '203.0.113.9' }), NONE)).toEqual({ for: '198.51.100.1', host: '', proto: 'http' });
  });
});
