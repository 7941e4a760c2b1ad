import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { ErrorCodes } from '@ocg/contracts';
import { errorBody, HttpError } from './http-error';
import { REQUEST_ID_HEADER } from './request-id';
import { writeAtOnce } from './write-batch';

/** Node's parser errors that a client caused, with the answer each deserves. */
function answerFor(code: string | undefined): HttpError {
  if (code === 'HPE_HEADER_OVERFLOW') return new HttpError(431, ErrorCodes.VALIDATION_FAILED, 'Request headers are too large');
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new HttpError(408, ErrorCodes.VALIDATION_FAILED, 'The request took too long to arrive');
  return new HttpError(400, ErrorCodes.MALFORMED_BODY, 'Malformed HTTP request');
}

/**
 * Requests node rejects before any handler runs (headers too large, a broken
 * request line) get the one error shape instead of a bare status line.
 */
export function answerClientErrors(server: http.Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable || (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    // Node cuts the connection soon after a parse error: the answer is written at once, not at the end of the phase.
    writeAtOnce(socket);
    socket.end(clientErrorReply(err.code));
  });
}

/** The whole answer (status line, headers, error body) to a request node's parser refused, by its error code; the connection closes after it. */
export function clientErrorReply(code: string | undefined): string {
  const requestId = randomUUID();
  const mapped = answerFor(code);
  const body = JSON.stringify(errorBody(mapped, requestId));
  const head = [
    `HTTP/1.1 ${mapped.status} ${mapped.status === 431 ? 'Request Header Fields Too Large' : mapped.status === 408 ? 'Request Timeout' : 'Bad Request'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `${REQUEST_ID_HEADER}: ${requestId}`,
    'Connection: close',
  ];
  return `${head.join('\r\n')}\r\n\r\n${body}`;
}
