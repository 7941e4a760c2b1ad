import type http from 'node:http';
import type { OnReadOpts, Socket } from 'node:net';
import { clientErrorReply } from '../client-error';
import { holdWrites } from '../write-batch';
import { Framer, FramingError, listOf, requestFraming, responseFraming, type Framing, type Head } from './framing';

/** Where a request goes: requests whose routes share a key share the upstream connection. */
export interface RelayRoute<T> {
  key: string;
  /**
   * A new connection to the upstream (connected or connecting). A plain TCP
   * socket should be made with `onread` (`net.connect({ ..., onread })`): the
   * relay then reads answers into a buffer of its own, reused from read to
   * read, rather than through the stream layer (ADR 0087). Other sockets
   * (TLS), and every upstream of a TLS client (`onread` undefined), are read
   * through their 'data' events. `inject` hands the relay bytes as if this
   * upstream had sent them (an answer the route makes itself, such as a
   * timeout's), while it is the client's upstream.
   */
  connect(onread: OnReadOpts | undefined, inject: (bytes: Buffer) => void): Socket;
  /** The request's head as the upstream gets it, and what the relay keeps about the exchange until its answer ends. */
  forward(head: Head, raw: Buffer): { bytes: Buffer; exchange: T };
}

export interface RelayOptions<T> {
  /**
   * Routes a request: a route (or a promise of one) to relay it, or
   * `undefined` to hand the connection, from this request on, to the HTTP
   * server (pages, errors, anything not relayed). Must not throw.
   */
  route(head: Head, client: Socket): RelayRoute<T> | undefined | Promise<RelayRoute<T> | undefined>;
  /** The answer's head as the client gets it (the upstream's `raw`, or a rewrite). */
  answer(head: Head, raw: Buffer, exchange: T): Buffer;
  /** A request's final answer has ended (or the exchange was cut: status 0). */
  done?(exchange: T, status: number): void;
  /** Hands the client connection to the HTTP server with the bytes read and not yet relayed. */
  fallback(client: Socket, bytes: Buffer): void;
  /** A client silent this long between requests is closed (the HTTP server's keep-alive timeout). */
  idleMs: number;
  /** A head must arrive within this long of its first byte (the HTTP server's headers timeout). */
  headMs: number;
  /** An upstream silent this long while an answer is awaited or under way is given up on; 0: no limit. Event streams are not limited. */
  timeoutMs: number;
}

/** Bytes a relayed upstream connection reads at most at once into its reused buffer (a TLS record's worth). */
export const READ_BUFFER_BYTES = 16 * 1024;

interface Pending<T> {
  method: string;
  exchange: T;
  status: number;
}

/**
 * One client connection relayed to upstream connections: request heads are
 * read and rewritten, bodies and answers streamed through as bytes (no
 * request or response objects, no re-framing), answers matched to requests
 * in order. A request for another upstream waits until every answer before
 * it has ended, then the connection switches; one that is not relayed hands
 * the connection to the HTTP server.
 */
class Relay<T> {
  private readonly requests: Framer;
  private upstream: Socket | undefined;
  private upstreamKey: string | undefined;
  private connecting = false;
  private readonly pending: Pending<T>[] = [];
  /** A route decided while the framer was held: used when the held head is offered again (null: none decided). */
  private decided: RelayRoute<T> | undefined | null = null;
  private upgradeAwaited = false;
  private answerIsStream = false;
  private headStarted = 0;
  private closing = false;
  private gone = false;

  constructor(
    private readonly client: Socket,
    private readonly opts: RelayOptions<T>,
    private readonly set: Set<Relay<unknown>>,
  ) {
    this.requests = new Framer(true, { head: (head, raw) => this.onRequest(head, raw), data: (b) => this.toUpstream(b), end: () => undefined });
    set.add(this as Relay<unknown>);
    client.on('data', this.onClientData);
    client.on('end', this.onClientEnd);
    client.on('close', this.onClientClose);
    client.on('error', this.onClientClose);
    client.on('timeout', this.onClientTimeout);
    client.on('drain', this.onClientDrain);
    client.setTimeout(opts.idleMs);
  }

  /** Reads the client only while its bytes can go somewhere: not while a request waits, an upgrade is answered, or the upstream is full. */
  private flow(): void {
    if (this.gone) return;
    const read = !this.closing && !this.connecting && !this.requests.held && !this.upgradeAwaited && !this.upstream?.writableNeedDrain;
    if (read) this.client.resume();
    else this.client.pause();
  }

  private readonly onClientData = (chunk: Buffer): void => {
    // A head and the body bytes after it leave in one write (one system call, one TLS record) rather than one each.
    const upstream = this.upstream;
    upstream?.cork();
    try {
      this.requests.push(chunk);
    } catch (err) {
      return this.refuse(err as Error);
    } finally {
      upstream?.uncork();
    }
    if (this.requests.buffered > 0 && !this.requests.inMessage && !this.requests.held) {
      // Part of a head: it must be whole within headMs of its first byte, however it trickles in.
      const now = Date.now();
      if (this.headStarted === 0) this.headStarted = now;
      else if (now - this.headStarted > this.opts.headMs) return this.refuse(new FramingError('the request head took too long', 408));
    } else this.headStarted = 0;
    this.flow();
  };

  /** The client sent all it will: the answers under way are still sent; an upgraded connection's end is passed on. */
  private readonly onClientEnd = (): void => {
    if (this.requests.isRaw && this.upstream) this.upstream.end();
    else this.close();
  };

  private readonly onClientClose = (): void => {
    this.destroy();
  };

  private readonly onClientTimeout = (): void => {
    // Waiting on the upstream is the upstream's timeout to judge; an idle keep-alive connection, or a stalled head, is closed.
    if (this.pending.length > 0 || this.connecting || this.requests.held) return;
    this.end();
  };

  private readonly onClientDrain = (): void => {
    this.upstream?.resume();
  };

  /** A request head: relayed (its rewritten head returned), or held while a route, a connection or earlier answers are awaited. */
  private onRequest(head: Head, raw: Buffer): { bytes: Buffer; framing: Framing } | undefined {
    // A request the relay cannot frame is refused before it is routed: it reaches no upstream.
    const framing = requestFraming(head);
    let route: RelayRoute<T> | undefined | Promise<RelayRoute<T> | undefined>;
    if (this.decided !== null) {
      route = this.decided;
      this.decided = null;
    } else route = this.opts.route(head, this.client);
    if (route instanceof Promise) {
      route.then(
        (r) => this.decide(r),
        () => this.decide(undefined),
      );
      return undefined;
    }
    if (route && route.key === this.upstreamKey && this.upstream && !this.connecting) {
      const { bytes, exchange } = route.forward(head, raw);
      this.pending.push({ method: head.method, exchange, status: 0 });
      // An upgrade's answer decides what the connection carries next: nothing more is read until it comes.
      if (head.names.includes('upgrade') && listOf(head, 'connection').includes('upgrade')) this.upgradeAwaited = true;
      return { bytes, framing };
    }
    // Another upstream, or the HTTP server: once every earlier answer has ended.
    this.decided = route;
    if (this.pending.length === 0) queueMicrotask(() => this.switchOver());
    return undefined;
  }

  private decide(route: RelayRoute<T> | undefined): void {
    if (this.gone) return;
    this.decided = route;
    if (route && route.key === this.upstreamKey && this.upstream) return this.goOn();
    if (this.pending.length === 0) this.switchOver();
  }

  /** Every answer has ended and a held request wants another upstream (connected first) or the HTTP server. */
  private switchOver(): void {
    if (this.gone || !this.requests.held || this.pending.length > 0 || this.connecting) return;
    const route = this.decided;
    if (route === null) return;
    this.dropUpstream();
    if (!route) return this.handOver();
    this.connecting = true;
    const reader = this.reader();
    // A write to a TLS client completes after the read that made it, so each read would need a buffer of its own: a
    // 16 KiB one per read costs more (in garbage collection) than the stream layer's, sized to what was read.
    const upstream = route.connect('encrypted' in this.client ? undefined : reader.onread, (bytes) => {
      if (this.upstream === upstream) reader.inject(bytes);
    });
    const failed = (): void => {
      if (!this.connecting) return;
      this.connecting = false;
      upstream.destroy();
      // Nothing was sent on it: the HTTP server serves the request, and says what went wrong.
      this.decided = null;
      this.handOver();
    };
    upstream.once('error', failed);
    upstream.once('close', failed);
    upstream.once('encrypted' in upstream ? 'secureConnect' : 'connect', () => {
      upstream.off('error', failed);
      upstream.off('close', failed);
      this.connecting = false;
      if (this.gone) return void upstream.destroy();
      this.attach(upstream, route.key, reader);
      this.decided = route;
      this.goOn();
    });
  }

  /**
   * Reads an upstream socket made with `onread` into a buffer reused from
   * read to read. The bytes of a read are framed and written to the client
   * before the next read; a buffer something may still hold when the read is
   * done (an unfinished head or line in the framer, a write to the client not
   * yet flushed) is left to them, and the next read gets a new one.
   */
  private reader(): { onread: OnReadOpts; framer(answers: Framer): void; inject(bytes: Buffer): void } {
    // Made when the socket first asks for it: a socket made without `onread` never does.
    let buffer: Buffer | undefined;
    let kept = false;
    let answers: Framer | undefined;
    return {
      onread: {
        buffer: () => {
          if (kept || !buffer) {
            kept = false;
            buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
          }
          return buffer;
        },
        callback: (bytes, buf) => {
          if (!answers) return true;
          this.fromUpstream(answers, (buf as Buffer).subarray(0, bytes));
          kept = answers.buffered > 0 || this.client.writableLength > 0;
          return true;
        },
      },
      framer: (framer) => (answers = framer),
      inject: (bytes) => {
        if (answers) this.fromUpstream(answers, bytes);
      },
    };
  }

  private fromUpstream(answers: Framer, chunk: Buffer): void {
    const { client } = this;
    client.cork();
    try {
      answers.push(chunk);
    } catch {
      this.destroy();
    } finally {
      client.uncork();
    }
  }

  private attach(upstream: Socket, key: string, reader: { framer(answers: Framer): void }): void {
    this.upstream = upstream;
    this.upstreamKey = key;
    upstream.setNoDelay(true);
    // Requests leave together at the end of the loop's I/O phase, as answers do from a server that `listen` made (ADR 0094).
    holdWrites(upstream);
    if (this.opts.timeoutMs > 0) upstream.setTimeout(this.opts.timeoutMs);
    const answers = new Framer(false, { head: (head, raw) => this.onAnswer(head, raw), data: (b) => this.toClient(b), end: () => this.onAnswerEnd() });
    reader.framer(answers);
    // Sockets made without `onread` (TLS) deliver their bytes as 'data' events.
    upstream.on('data', (chunk: Buffer) => this.fromUpstream(answers, chunk));
    upstream.on('drain', () => this.flow());
    upstream.on('timeout', () => {
      if (this.pending.length > 0 && !this.answerIsStream) this.destroy();
    });
    upstream.on('error', () => undefined);
    upstream.on('close', () => {
      if (this.upstream !== upstream) return;
      this.upstream = undefined;
      this.upstreamKey = undefined;
      if (this.pending.length === 0) return;
      // An answer under way ends with the close (the client sees from its framing whether it was whole); an answer never begun leaves it nothing.
      if (answers.inMessage && this.pending[0].status) {
        this.finishFirst();
        return this.end();
      }
      this.destroy();
    });
  }

  /** Goes on with the held request (a route decided, a connection made). */
  private goOn(): void {
    try {
      this.requests.resume();
    } catch (err) {
      return this.refuse(err as Error);
    }
    this.flow();
  }

  private onAnswer(head: Head, raw: Buffer): { bytes: Buffer; framing: Framing } {
    const first = this.pending[0];
    if (!first) throw new FramingError('an answer nobody asked for', 502);
    const framing = responseFraming(head, first.method);
    // Informational answers (100 Continue, 103 Early Hints) go through as they are; the final one follows.
    if (head.status < 200 && head.status !== 101) return { bytes: raw, framing };
    first.status = head.status;
    this.answerIsStream = (listOf(head, 'content-type')[0] ?? '').startsWith('text/event-stream');
    if (this.upgradeAwaited) {
      this.upgradeAwaited = false;
      // The connection carries the upgraded protocol from here on, both ways.
      if (head.status === 101) this.requests.raw();
      queueMicrotask(() => this.flow());
    }
    return { bytes: this.opts.answer(head, raw, first.exchange), framing };
  }

  private onAnswerEnd(): void {
    if (this.pending[0]?.status) this.finishFirst();
    if (this.pending.length > 0) return;
    if (this.closing) return this.end();
    if (this.requests.held) queueMicrotask(() => this.switchOver());
  }

  private finishFirst(): void {
    const first = this.pending.shift();
    if (first) this.opts.done?.(first.exchange, first.status);
  }

  private toUpstream(bytes: Buffer): void {
    if (bytes.length > 0) this.upstream?.write(bytes);
  }

  private toClient(bytes: Buffer): void {
    if (bytes.length > 0 && !this.client.write(bytes)) this.upstream?.pause();
  }

  /**
   * A request the relay will not pass on. Between messages, with nothing
   * under way, it goes to the HTTP server with the bytes of the refused head
   * (which answers it in the service's error shape, or serves it through
   * `forward` if its own parser reads it); within a body, or with answers
   * still to come, the connection is cut.
   */
  private refuse(err: Error): void {
    if (this.pending.length === 0 && !this.requests.inMessage && err instanceof FramingError && err.status !== 408) {
      this.decided = null;
      return this.handOver();
    }
    if (this.pending.length === 0 && !this.gone && err instanceof FramingError && err.status === 408) {
      // The HTTP server's own answer to a head that took too long, error shape included.
      this.client.write(clientErrorReply('ERR_HTTP_REQUEST_TIMEOUT'));
      return this.end();
    }
    this.destroy();
  }

  private handOver(): void {
    if (this.gone) return;
    this.gone = true;
    this.set.delete(this as Relay<unknown>);
    this.dropUpstream();
    const { client } = this;
    client.off('data', this.onClientData);
    client.off('end', this.onClientEnd);
    client.off('close', this.onClientClose);
    client.off('error', this.onClientClose);
    client.off('timeout', this.onClientTimeout);
    client.off('drain', this.onClientDrain);
    client.setTimeout(0);
    const bytes = this.requests.takeHeld();
    client.resume();
    this.opts.fallback(client, bytes);
  }

  private dropUpstream(): void {
    const upstream = this.upstream;
    this.upstream = undefined;
    this.upstreamKey = undefined;
    upstream?.end();
  }

  /** Graceful: no new request is read; the connection ends once the answers under way have. */
  close(): void {
    this.closing = true;
    this.flow();
    if (this.pending.length === 0) this.end();
  }

  private end(): void {
    if (this.gone) return;
    this.gone = true;
    this.set.delete(this as Relay<unknown>);
    const cut = this.pending.length > 0;
    for (const p of this.pending.splice(0)) this.opts.done?.(p.exchange, 0);
    if (cut) this.upstream?.destroy();
    this.dropUpstream();
    if (!this.client.destroyed) {
      this.client.end();
      // A client that does not close its side within the idle time is cut.
      setTimeout(() => this.client.destroy(), this.opts.idleMs).unref();
    }
  }

  destroy(): void {
    const upstream = this.upstream;
    this.end();
    upstream?.destroy();
    this.client.destroy();
  }
}

export interface RelaySet {
  /** Relays a connection from its first request (a socket no HTTP server has seen). */
  take(client: Socket): void;
  /** Graceful: each relayed connection ends once its answers under way have; cut at the deadline. */
  close(timeoutMs: number): Promise<void>;
  readonly size: number;
}

/**
 * Relays the connections a server accepts (`secureConnection` for HTTPS,
 * `connection` for plain HTTP) before its HTTP parser sees them: each
 * starts with its first request routed by `opts.route`; what is not relayed
 * goes to the server as if it had just arrived.
 */
export function relayConnections<T>(server: http.Server, secure: boolean, opts: Omit<RelayOptions<T>, 'fallback'>): RelaySet {
  const event = secure ? 'secureConnection' : 'connection';
  const listeners = server.listeners(event) as Array<(socket: Socket) => void>;
  server.removeAllListeners(event);
  const serve = (socket: Socket): void => {
    for (const listener of listeners) listener.call(server, socket);
  };
  const relays = new Set<Relay<unknown>>();
  const full: RelayOptions<T> = {
    ...opts,
    fallback: (client, bytes) => {
      serve(client);
      // The server reads the socket from here on; what the relay read before it is given first.
      if (bytes.length > 0) client.emit('data', bytes);
    },
  };
  const take = (client: Socket): void => {
    client.setNoDelay(true);
    new Relay<T>(client, full, relays);
  };
  server.on(event, take);
  return {
    take,
    get size() {
      return relays.size;
    },
    close: (timeoutMs) =>
      new Promise<void>((resolve) => {
        for (const relay of relays) relay.close();
        const started = Date.now();
        const check = (): void => {
          if (relays.size === 0) return resolve();
          if (Date.now() - started >= timeoutMs) {
            for (const relay of relays) relay.destroy();
            return resolve();
          }
          setTimeout(check, 50).unref();
        };
        check();
      }),
  };
}

/**
 * A head with some headers left out and `extra` lines (each `name: value\r\n`)
 * added at its end; the head itself when nothing is left out and nothing added.
 */
export function rewriteHead(head: Head, raw: Buffer, drop: (name: string) => boolean, extra: string): Buffer {
  let dropping = false;
  for (const name of head.names) if (drop(name)) dropping = true;
  if (!dropping) return extra ? Buffer.concat([raw.subarray(0, raw.length - 2), Buffer.from(`${extra}\r\n`, 'latin1')]) : raw;
  let text = raw.toString('latin1', 0, raw.indexOf('\r\n') + 2);
  for (let i = 0; i < head.names.length; i++) if (!drop(head.names[i])) text += `${head.names[i]}: ${head.values[i]}\r\n`;
  return Buffer.from(`${text}${extra}\r\n`, 'latin1');
}
