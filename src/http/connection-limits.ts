import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { LATE_REQUEST, rawErrorAnswer } from './client-error.js';

export interface ConnectionLimits {
  /** Time for a request body to arrive in full, on every route but /ingest. */
  readonly bodyTimeoutMs: number;
}

/**
 * A whole request body must arrive within `bodyTimeoutMs` (not /ingest, whose uploads may be
 * long: there an idle timeout between chunks applies, see ingest.route.ts). A late body is
 * answered 408 and its connection closed, so a client sending a byte at a time is let go.
 *
 * Checked as Node checks `headersTimeout`: one sweep every quarter of the limit, not a timer per
 * request. A request is noted (with the sweep it arrived in) until its handler runs or it is
 * answered; a sweep refuses those noted more than the limit ago whose body is still incomplete,
 * so a late body is refused between the limit and a quarter past it. Most bodies arrive with
 * their headers: making and clearing a timer for each POST was the larger part of this check.
 */
export function limitBodyTime(app: FastifyInstance, limits: ConnectionLimits): void {
  const everyMs = Math.max(25, Math.floor(limits.bodyTimeoutMs / 4));
  // Whole sweeps that must pass after the one a request arrived in: at least the limit.
  const sweepsAllowed = Math.ceil(limits.bodyTimeoutMs / everyMs);
  // In arrival order (a Map iterates in insertion order), so a sweep stops at the first young one.
  const arriving = new Map<FastifyRequest, number>();
  let sweep = 0;
  const sweeper = setInterval(() => {
    sweep += 1;
    for (const [request, arrivedIn] of arriving) {
      if (sweep - arrivedIn - 1 < sweepsAllowed) break;
      arriving.delete(request);
      if (!request.raw.complete) refuseLateBody(request.raw.socket);
    }
  }, everyMs);
  sweeper.unref();
  app.addHook('onClose', (_instance, done) => {
    clearInterval(sweeper);
    done();
  });
  // Callback-style hooks: they run on every request, and an async hook costs each a promise.
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.method !== 'GET' && request.method !== 'HEAD' && !request.url.startsWith('/ingest')) {
      arriving.set(request, sweep);
    }
    done();
  });
  const forget = (request: FastifyRequest, _reply: unknown, done: () => void) => {
    arriving.delete(request);
    done();
  };
  app.addHook('preHandler', forget);
  app.addHook('onResponse', forget);
  app.addHook('onRequestAbort', (request, done) => forget(request, undefined, done));
}

function refuseLateBody(socket: Socket): void {
  if (socket.writable) {
    socket.end(rawErrorAnswer(new AppError('REQUEST_TIMEOUT', LATE_REQUEST)));
  }
  socket.destroySoon();
}
