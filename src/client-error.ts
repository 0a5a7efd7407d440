import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { AppError, errorBody } from './errors.js';

/**
 * Answers a request that is not valid HTTP (bad framing, headers over the size limit, too slow
 * to arrive). Such a request never reaches a route or the error handler, so without this Node
 * and Fastify would answer in their own body shape; this keeps the contract's error shape.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'The request headers are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request took too long to arrive']
        : [400, 'The request is not valid HTTP'];
  const body = JSON.stringify(errorBody(new AppError('BAD_USER_INPUT', message, { status })));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
