import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

type Callback = (error?: Error | null) => void;
type Chunks = Array<{ chunk: unknown; encoding: BufferEncoding }>;

/** A write a socket's stream handed over, kept until the end of the event loop's I/O phase. */
interface Held {
  socket: Socket;
  /** One chunk (`_write`), or undefined when `chunks` holds several (`_writev`). */
  chunk: unknown;
  encoding: BufferEncoding;
  chunks: Chunks | undefined;
  callback: Callback;
}

interface SocketWrites {
  _write(chunk: unknown, encoding: BufferEncoding, callback: Callback): void;
  _writev(chunks: Chunks, callback: Callback): void;
}

/** The socket's class's own writes (net.Socket's, which TLS sockets share): the ones `holdWrites` stands in front of. */
const ownWrites = (socket: Duplex): SocketWrites => Object.getPrototypeOf(socket) as SocketWrites;

let held: Held[] = [];
/** True while the held writes are made: a socket's next write, queued behind its held one and handed over as that one completes, goes with them. */
let releasing = false;

/** Makes every held write, in the order they came; a socket that was destroyed meanwhile fails its own write (`ERR_SOCKET_CLOSED`), as it would have. */
function release(): void {
  const writes = held;
  held = [];
  releasing = true;
  try {
    for (const { socket, chunk, encoding, chunks, callback } of writes) {
      const own = ownWrites(socket);
      try {
        if (chunks === undefined) own._write.call(socket, chunk, encoding, callback);
        else own._writev.call(socket, chunks, callback);
      } catch (err) {
        // Not expected of node's writes; if one throws, that socket fails and the others' writes still go.
        socket.destroy(err as Error);
      }
    }
  } finally {
    releasing = false;
  }
}

function hold(write: Held): void {
  // Stryker disable next-line ConditionalExpression: a release per write would find the list empty after the first, the same bytes at the same time
  if (held.length === 0) setImmediate(release);
  held.push(write);
}

function heldWrite(this: Socket, chunk: unknown, encoding: BufferEncoding, callback: Callback): void {
  if (releasing) return ownWrites(this)._write.call(this, chunk, encoding, callback);
  hold({ socket: this, chunk, encoding, chunks: undefined, callback });
}

function heldWritev(this: Socket, chunks: Chunks, callback: Callback): void {
  if (releasing) return ownWrites(this)._writev.call(this, chunks, callback);
  hold({ socket: this, chunk: undefined, encoding: 'buffer' as BufferEncoding, chunks, callback });
}

/**
 * The socket's writes are made at the end of the event loop's I/O phase
 * (its `setImmediate`), all sockets' together, instead of each at once.
 *
 * A process answering many connections reads the requests that arrived
 * together in one phase and, until now, wrote each answer as soon as it was
 * ready: one system call per answer, each waking the peer that waits for it.
 * On a machine whose cores are shared, or whose wake-ups are costly (virtual
 * machines), the peer woke, read one answer and slept again between two of
 * them, and both sides paid a wake-up per request. Held to the end of the
 * phase, the answers leave back to back: the peer wakes once and reads them
 * together, and sends its next requests together too (ADR 0094).
 *
 * Nothing else changes for the stream: its writes are queued, its callbacks
 * and `finish` come when the bytes have gone, as before, only later in the
 * same turn of the loop (by the rest of that phase's callbacks). The socket's
 * class's `_write` and `_writev` make the write when it is released, so this
 * works for TLS sockets too (their records are made then).
 */
export function holdWrites(socket: Socket): void {
  const writes = socket as unknown as SocketWrites;
  writes._write = heldWrite;
  writes._writev = heldWritev;
}

/**
 * The socket's writes are made at once again, as its class makes them (a
 * write already held still goes at the end of the phase, first). For a
 * connection that becomes a long-lived stream of its own (an upgraded
 * WebSocket piped to its upstream), whose end follows the upstream's close
 * without waiting for the socket's writes.
 */
export function writeAtOnce(socket: Duplex): void {
  const writes = socket as unknown as SocketWrites;
  // Stryker disable next-line ConditionalExpression: without it a socket that never held gets its class's own writes as its own properties: the same writes
  if (writes._write !== heldWrite) return;
  const own = ownWrites(socket);
  // Assigned rather than deleted: the socket keeps its shape.
  writes._write = own._write;
  writes._writev = own._writev;
}
