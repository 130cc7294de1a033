import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorCode } from '../domain/errors.js';

/**
 * Requests Node refuses before any route sees them — headers over the size limit, a request
 * that timed out, bytes that are no HTTP — answered in the API's error body
 * (docs/api.md#errors), as Fastify's own handler would but in our shape: nothing about the
 * request is known yet, not even whether it was for a page or the API.
 */
export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message]: [number, ErrorCode, string] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'HEADERS_TOO_LARGE', 'request headers too large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'REQUEST_TIMEOUT', 'the request took too long to arrive']
        : [400, 'BAD_REQUEST', 'malformed HTTP request'];
  const body = JSON.stringify({ error: message, code });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
