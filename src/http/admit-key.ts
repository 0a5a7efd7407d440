import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { AppError, isDatabaseUnavailable, unavailable } from '../errors.js';
import { chargeAuthFailure } from '../modules/auth/auth-failures.js';
import { authenticate, type Principal } from '../modules/auth/authenticate.js';
import type { CredentialCache } from '../modules/auth/credential-cache.js';
import type { KeyUsageRecorder } from '../modules/auth/key-usage.js';
import { type RateLimiter, rateLimitHeaders } from '../modules/auth/rate-limit.js';
import { bindRequestLogger } from './request-logger.js';

/** Admits a request made with an API key (`/graphql`, `/events`), or throws the AppError to answer. */
export type AdmitKey = (request: FastifyRequest, reply: FastifyReply) => Promise<Principal>;

export interface AdmitKeyDeps {
  readonly config: Config;
  readonly rateLimiter: RateLimiter;
  readonly keyUsage: KeyUsageRecorder;
  readonly credentials: CredentialCache;
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
    // What the request logs from here on carries its organization and key, through request.log
    // and reply.log alike (Fastify logs a request's completion through reply.log).
    const bound = bindRequestLogger(request.log, {
      organizationId: principal.organizationId,
      keyId: principal.keyId,
    });
    if (bound) {
      request.log = bound;
      reply.log = bound;
    }
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
