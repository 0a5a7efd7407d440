import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { AppError, isDatabaseUnavailable, unavailable } from '../errors.js';
import { chargeAuthFailure } from '../modules/auth/auth-failures.js';
import { authenticate, type Principal } from '../modules/auth/authenticate.js';
import type { CredentialCache } from '../modules/auth/credential-cache.js';
import type { KeyUsageRecorder } from '../modules/auth/key-usage.js';
import { type RateLimiter, rateLimitHeaders } from '../modules/auth/rate-limit.js';

/** Admits a request made with an API key (`/graphql`, `/events`), or throws the AppError to answer. */
export type AdmitKey = (request: FastifyRequest, reply: FastifyReply) => Promise<Principal>;

export interface AdmitKeyDeps {
  readonly config: Config;
  readonly rateLimiter: RateLimiter;
  readonly keyUsage: KeyUsageRecorder;
  readonly credentials: CredentialCache;
}

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;

/**
 * From here on, what the request logs carries `bindings` (its organization and key), through
 * request.log and reply.log alike (Fastify logs a request's completion through reply.log). At
 * info and below every request logs its completion, so the child logger is made at once. Above
 * info a request logs only when something goes wrong, and making a child logger (which
 * serialises its bindings) cost 3% of a cheap read's time, measured: the request gets a logger
 * that makes the child on its first enabled call, its disabled levels staying the parent's no-ops
 * (Fastify calls reply.log.info for every request, whatever the level).
 */
function bindLogger(request: FastifyRequest, reply: FastifyReply, bindings: Record<string, string>): void {
  const parent = request.log;
  const from = LEVELS.indexOf(parent.level as (typeof LEVELS)[number]);
  if (from >= 0 && from <= LEVELS.indexOf('info')) {
    request.log = parent.child(bindings);
    reply.log = request.log;
    return;
  }
  let child: FastifyBaseLogger | undefined;
  const bound = (): FastifyBaseLogger => {
    child ??= parent.child(bindings);
    return child;
  };
  const logger = Object.create(parent) as FastifyBaseLogger;
  if (from >= 0) {
    for (const level of LEVELS.slice(from)) {
      logger[level] = ((...args: Parameters<FastifyBaseLogger['info']>) =>
        bound()[level](...args)) as FastifyBaseLogger['info'];
    }
  }
  logger.child = (childBindings, options) => bound().child(childBindings, options);
  request.log = logger;
  reply.log = logger;
}

/**
 * Authentication, then the key's rate limit; failures are charged to the client address only.
 * One admission serves every route that takes API keys, so they share the limiter-outage state.
 */
export function keyAdmission(deps: AdmitKeyDeps): AdmitKey {
  const { config, rateLimiter, keyUsage, credentials } = deps;
  // One warning per outage of the rate limiter (e.g. Redis unreachable), not one per request.
  let limiterDown = false;
  return async (request, reply) => {
    let principal: Principal;
    try {
      principal = await authenticate(credentials, request.headers.authorization);
    } catch (error) {
      if (error instanceof AppError && error.code === 'UNAUTHENTICATED') {
        await chargeAuthFailure(rateLimiter, request.ip, config.authFailureLimit);
      }
      throw isDatabaseUnavailable(error) ? unavailable() : error;
    }
    bindLogger(request, reply, { organizationId: principal.organizationId, keyId: principal.keyId });
    // A rate limiter outage must not take the API down: such requests are let through.
    const decision = await rateLimiter.take(`key:${principal.keyId}`, config.rateLimit).catch((error) => {
      if (!limiterDown)
        request.log.warn({ err: error }, 'rate limiter unavailable; requests are let through');
      limiterDown = true;
      return undefined;
    });
    if (decision) {
      if (limiterDown) request.log.info('rate limiter available again');
      limiterDown = false;
      reply.headers(rateLimitHeaders(decision, config.rateLimit, 'per-key'));
      if (!decision.allowed)
        throw new AppError('RATE_LIMITED', 'Rate limit exceeded; retry after the Retry-After delay');
    }
    keyUsage.touch(principal.keyId);
    return principal;
  };
}
