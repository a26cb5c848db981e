import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ApiError } from '../../contract/errors.js';
import { Errors } from '../../shared/errors.js';
import { monotonicPart } from '../../shared/ids.js';

/**
 * Requests Node's HTTP parser rejects before fastify sees them (a garbage request line, NUL in
 * the path, headers over the 16 KiB limit, a request that took too long to arrive) never reach a
 * route or hook. fastify's default answer is a bare JSON body without the error envelope or
 * X-Request-Id; this one writes the envelope, with a fresh request id in both places, whenever
 * the socket can still take a response (issue #10 item 8).
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  let status = 400;
  let error: ApiError;
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    status = 431;
    error = Errors.invalidField('headers', 'The request headers are larger than the 16 KiB this server accepts; send fewer or shorter headers.');
  } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'ERR_HTTP_REQUEST_HEADERS_TIMEOUT') {
    status = 408;
    error = Errors.invalidField('request', 'The request did not arrive in time; send it again.');
  } else {
    error = Errors.invalidField('request', `The request is not valid HTTP/1.1 (${describe(err.code)}); check the request line, path and headers.`);
  }
  const requestId = `req_${monotonicPart(Date.now())}`;
  const body = JSON.stringify(error.toEnvelope(requestId));
  if (socket.writable) {
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n`
      + `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
    // end() lets the answer flush; a client that never reads it must not keep the socket.
    setTimeout(() => socket.destroy(), 1000).unref();
  } else {
    socket.destroy();
  }
}

function describe(code: string | undefined): string {
  switch (code) {
    case 'HPE_INVALID_METHOD': return 'unknown method';
    case 'HPE_INVALID_URL': return 'invalid characters in the path';
    case 'HPE_INVALID_VERSION': return 'unknown HTTP version';
    case 'HPE_INVALID_HEADER_TOKEN': return 'invalid characters in a header name';
    case 'HPE_INVALID_CONTENT_LENGTH': return 'invalid Content-Length';
    case 'HPE_UNEXPECTED_CONTENT_LENGTH': return 'both Content-Length and Transfer-Encoding';
    case 'HPE_INVALID_CHUNK_SIZE': return 'invalid chunk size';
    case 'HPE_LF_EXPECTED':
    case 'HPE_CR_EXPECTED': return 'malformed line endings';
    default: return 'malformed request';
  }
}
