import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, errorBody } from '../errors.js';

export interface ConnectionLimits {
  /** Open connections in all; past it Node refuses new ones at once. */
  readonly maxConnections: number;
  /** Open connections from one TCP peer address (0: no cap). */
  readonly maxConnectionsPerAddress: number;
  /** Time for a request body to arrive in full, on every route but /ingest. */
  readonly bodyTimeoutMs: number;
}

/**
 * Caps open connections, in all and per peer address, so that clients holding connections open
 * (a byte at a time) cannot exhaust file descriptors. A connection over the per-address cap is
 * answered 429 RATE_LIMITED and closed before any request is read. The peer is the TCP one:
 * behind a proxy every connection comes from the proxy, so raise or disable the cap there.
 */
export function limitConnections(server: Server, limits: ConnectionLimits): void {
  server.maxConnections = limits.maxConnections;
  if (limits.maxConnectionsPerAddress <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
    if (count > limits.maxConnectionsPerAddress) {
      const body = JSON.stringify(
        errorBody(new AppError('RATE_LIMITED', 'Too many open connections from this address')),
      );
      socket.end(
        `HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n${body}`,
      );
      socket.destroySoon();
    }
  });
}

/**
 * The request's body timer while its body has not arrived in full: null before it is looked at,
 * ANSWERED once the request needs none (its body arrived, or it was answered).
 */
const BODY_TIMER = Symbol('bodyTimer');
const ANSWERED = Symbol('answered');
type BodyTimer = NodeJS.Timeout | typeof ANSWERED | null;
const timed = (request: FastifyRequest) => request as unknown as { [BODY_TIMER]: BodyTimer };

/**
 * A whole request body must arrive within `bodyTimeoutMs` (not /ingest, whose uploads may be
 * long: there an idle timeout between chunks applies, see ingest.route.ts). A late body is
 * answered 408 and its connection closed, so a client sending a byte at a time is let go.
 *
 * Most bodies arrive with their headers, in the same read: Node parses the whole read, body
 * included, before the event loop turns. So a request's timer is armed only if its body is still
 * incomplete once the loop turns (the requests that arrived in one turn are looked at together,
 * in one setImmediate), rather than armed and cleared for every POST. The limit then counts from
 * that turn, a few milliseconds at most after the headers.
 */
export function limitBodyTime(app: FastifyInstance, limits: ConnectionLimits): void {
  // Kept on the request itself (a property Fastify declares on every request, so requests keep
  // one shape): a WeakMap entry per request cost each POST a hash insert and the collector an
  // ephemeron to trace.
  app.decorateRequest(BODY_TIMER, null);
  let arriving: FastifyRequest[] = [];
  const armLate = () => {
    const requests = arriving;
    arriving = [];
    for (const request of requests) {
      if (timed(request)[BODY_TIMER] !== null || request.raw.complete) continue;
      const socket = request.raw.socket;
      timed(request)[BODY_TIMER] = setTimeout(() => {
        const body = JSON.stringify(
          errorBody(new AppError('BAD_USER_INPUT', 'The request took too long to arrive', { status: 408 })),
        );
        if (socket.writable && !request.raw.complete) {
          socket.end(
            `HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json; charset=utf-8\r\n` +
              `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
          );
        }
        socket.destroySoon();
      }, limits.bodyTimeoutMs);
    }
  };
  // Callback-style hooks: they run on every request, and an async hook costs each a promise.
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.method === 'GET' || request.method === 'HEAD' || request.url.startsWith('/ingest')) {
      return done();
    }
    if (arriving.push(request) === 1) setImmediate(armLate);
    done();
  });
  const clear = (request: FastifyRequest, _reply: unknown, done: () => void) => {
    const timer = timed(request)[BODY_TIMER];
    if (timer !== ANSWERED) {
      if (timer) clearTimeout(timer);
      timed(request)[BODY_TIMER] = ANSWERED;
    }
    done();
  };
  app.addHook('preHandler', clear);
  app.addHook('onResponse', clear);
  app.addHook('onRequestAbort', (request, done) => clear(request, undefined, done));
}
