import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { AppError, errorBody } from '../errors.js';

/** The message of a request whose headers or body took longer than their limit to arrive. */
export const LATE_REQUEST = 'The request took too long to arrive';

/**
 * A whole HTTP/1.1 answer carrying `error` in the contract's shape, for the socket-level paths
 * that answer before (or instead of) any route: it closes the connection.
 */
export function rawErrorAnswer(error: AppError, headers: Readonly<Record<string, string>> = {}): string {
  const body = JSON.stringify(errorBody(error));
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return (
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `Content-Type: application/json; charset=utf-8\r\n${extra}Connection: close\r\n\r\n${body}`
  );
}

/**
 * Answers a request that is not valid HTTP (bad framing, headers over the size limit, too slow
 * to arrive). Such a request never reaches a route or the error handler, so without this Node
 * and Fastify would answer in their own body shape; this keeps the contract's error shape.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const refusal =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new AppError('HEADERS_TOO_LARGE', 'The request headers are too large')
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new AppError('REQUEST_TIMEOUT', LATE_REQUEST)
        : new AppError('BAD_USER_INPUT', 'The request is not valid HTTP');
  if (socket.writable) socket.write(rawErrorAnswer(refusal));
  socket.destroy();
}
