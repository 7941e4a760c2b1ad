import { join } from 'node:path';

/** What the edge proxy's configuration is made from (ADR 0093). */
export interface EdgeConfigOptions {
  /** The directory of the edge's files: its certificate, map, pages, sockets (only the gateway's user may enter it). */
  dir: string;
  host: string;
  port: number;
  /** Job and node hosts are `<label>.<nodeDomain>`. */
  nodeDomain: string;
  /** Threads of the proxy (its workers). */
  threads: number;
  /** Client connections at most, all together. */
  maxConnections: number;
  /** A forward silent this long while an answer is awaited is given up on (the gateway's INGRESS_TIMEOUT_MS). */
  serverTimeoutMs: number;
  /** An idle client connection is closed after this long (the gateway's keep-alive timeout). */
  keepAliveMs: number;
  /** A request's head must arrive within this long. */
  headMs: number;
  /** TRUSTED_PROXIES as CIDRs: their requests go to the gateway, which believes their `X-Forwarded-*`. */
  trustedProxies: string[];
  /**
   * EDGE_PROXY_PROTOCOL_FROM as CIDRs: load balancers that open each connection with a PROXY protocol header
   * (v1 or v2) naming the client, who is then the request's source. Others connect as themselves.
   */
  proxyProtocolFrom: string[];
  /** Every request is logged (debug); otherwise only failed ones, which the gateway reads. */
  logAll: boolean;
}

/** The edge's files in its directory. */
export const edgeFiles = (dir: string) => ({
  config: join(dir, 'haproxy.cfg'),
  certificate: join(dir, 'edge.pem'),
  forwards: join(dir, 'forwards.map'),
  trusted: join(dir, 'trusted.lst'),
  proxies: join(dir, 'proxy-protocol.lst'),
  unavailable: join(dir, '503.http'),
  admin: join(dir, 'admin.sock'),
  gateway: join(dir, 'gateway.sock'),
  pid: join(dir, 'haproxy.pid'),
});

/** The client's own request id when sane (libs/http `isSaneRequestId`). */
const SANE_REQUEST_ID = '^[A-Za-z0-9._-]{1,128}$';
/** A `traceparent` the gateway passes on as it came (libs/http `formatTraceparent`): version 00, known flags, ids not zero. */
const PLAIN_TRACEPARENT = '^00-[0-9a-f]{32}-[0-9a-f]{16}-0[0-3]$';
const ZERO_IDS = '^00-(0{32}-|[0-9a-f]{32}-0{16}-)';

/**
 * HAProxy's configuration for the edge: job hosts' TLS ended by HAProxy,
 * each request whose host has a forward in the map (the gateway adds it
 * once the label's route has one, ADR 0092) sent straight to that address
 * with the headers the gateway would state, and everything else handed to
 * the gateway's own server on a Unix socket, naming the client's peer.
 * Requests the edge would not state exactly as the gateway does (a trusted
 * proxy's, a trace context to clean, a repeated id) go to the gateway too.
 */
export function renderEdgeConfig(o: EdgeConfigOptions): string {
  const f = edgeFiles(o.dir);
  const trusted = o.trustedProxies.length > 0;
  // JSON lines on standard output, read by the gateway (`EdgeLog`): which request, where to, how it ended.
  const logFormat = [
    '"status":%ST',
    '"flags":"%ts"',
    '"backend":"%b"',
    '"host":"%[var(txn.host),json(utf8s)]"',
    '"forward":"%[var(txn.fwd),json(utf8s)]"',
    '"method":"%HM"',
    '"path":"%[var(txn.path),json(utf8s)]"',
    '"requestId":"%[var(txn.rid),json(utf8s)]"',
    '"ms":%Ta',
  ].join(',');
  return `# Written by the gateway at each start (ADR 0093); edits are lost.
global
  log stdout format raw local0 info
  stats socket ${f.admin} mode 600 level admin
  nbthread ${o.threads}
  maxconn ${o.maxConnections}
  hard-stop-after 15s
  ssl-default-bind-options ssl-min-ver TLSv1.2

defaults
  mode http
  log global
  log-format "{${logFormat.replace(/"/g, '\\"')}}"
  ${o.logAll ? '' : 'option dontlog-normal'}
  option http-keep-alive
  timeout connect 5s
  # Waiting for an answer leaves the client silent as long as the server: the same limit for both.
  timeout client ${o.serverTimeoutMs}
  timeout http-request ${o.headMs}
  timeout http-keep-alive ${o.keepAliveMs}
  timeout server ${o.serverTimeoutMs}
  timeout tunnel 1h
  timeout client-fin 5s
  retries 0
  errorfile 503 ${f.unavailable}

frontend edge
  bind ${o.host}:${o.port} ssl crt ${f.certificate} alpn http/1.1
  ${
    o.proxyProtocolFrom.length > 0
      ? `# Load balancers name the client first (PROXY protocol); only they may.
  tcp-request connection expect-proxy layer4 if { src -f ${f.proxies} }`
      : '# no EDGE_PROXY_PROTOCOL_FROM'
  }
  # Internal headers are the gateway's alone, whoever sends them.
  http-request del-header x-ocg-internal -m beg
  http-request set-var(txn.host) req.hdr(host),field(1,:),lower
  http-request set-var(txn.path) path
  http-request set-var(txn.fwd) var(txn.host),map(${f.forwards})
  acl direct var(txn.fwd) -m found
  ${trusted ? `acl trusted src -f ${f.trusted}` : '# no TRUSTED_PROXIES'}
  acl one_id req.fhdr_cnt(x-request-id) le 1
  acl no_trace req.fhdr_cnt(traceparent) eq 0
  acl one_trace req.fhdr_cnt(traceparent) eq 1
  acl plain_trace req.fhdr(traceparent) -m reg ${PLAIN_TRACEPARENT}
  acl zero_trace req.fhdr(traceparent) -m reg ${ZERO_IDS}
  acl tracestate req.fhdr_cnt(tracestate) gt 0
  use_backend forwards if direct ${trusted ? '!trusted ' : ''}one_id no_trace !tracestate
  use_backend forwards if direct ${trusted ? '!trusted ' : ''}one_id one_trace plain_trace !zero_trace !tracestate
  default_backend gateway

# A job endpoint's forward: what the gateway's relay states (apps/gateway/src/forwarded.ts edgeHeaders).
backend forwards
  http-request del-header forwarded
  http-request del-header x-forwarded- -m beg
  http-request del-header x-real-ip
  http-request set-header x-forwarded-for %[src]
  http-request set-header x-forwarded-host %[req.hdr(host)]
  http-request set-header x-forwarded-proto https
  http-request set-header x-request-id %[uuid] unless { req.fhdr(x-request-id) -m reg ${SANE_REQUEST_ID} }
  http-request set-var(txn.rid) req.fhdr(x-request-id)
  http-request set-header traceparent 00-%[uuid,regsub(-,,g)]-%[uuid,regsub(-,,g),bytes(0,16)]-02 if !{ req.fhdr_cnt(traceparent) eq 1 }
  http-request set-var(txn.trace) req.fhdr(traceparent)
  http-request set-dst var(txn.fwd),field(1,:)
  http-request set-dst-port var(txn.fwd),field(2,:)
  http-response del-header x-request-id
  http-response del-header traceparent
  http-after-response set-header x-request-id %[var(txn.rid)]
  http-after-response set-header traceparent %[var(txn.trace)]
  server forward 0.0.0.0:0

# Everything else: the gateway's own server, told which address the client connected from.
backend gateway
  http-request set-header x-ocg-internal-edge-peer %[src]
  server gateway unix@${f.gateway}
`;
}
