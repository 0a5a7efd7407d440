import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { AppError, isDatabaseUnavailable, unavailable } from '../errors.js';
import { chargeAuthFailure } from '../modules/auth/auth-failures.js';
import { authenticate, authenticateAtOnce, type Principal } from '../modules/auth/authenticate.js';
import type { CredentialCache } from '../modules/auth/credential-cache.js';
import type { KeyUsageRecorder } from '../modules/auth/key-usage.js';
import { type RateDecision, type RateLimiter, rateLimitHeaders } from '../modules/auth/rate-limit.js';
import { bindRequestLogger } from './request-logger.js';

/**
 * Admits a request made with an API key (`/graphql`, `/events`), or throws the AppError to
 * answer. It answers at once, without a promise, when nothing needs waiting for: a key admitted
 * before whose credentials are still cached, and an in-process rate limiter.
 */
export type AdmitKey = (request: FastifyRequest, reply: FastifyReply) => Principal | Promise<Principal>;

export interface AdmitKeyDeps {
  readonly config: Config;
  readonly rateLimiter: RateLimiter;
  readonly keyUsage: KeyUsageRecorder;
  readonly credentials: CredentialCache;
  /** Wall-clock milliseconds, for key expiry. */
  readonly now: () => number;
}

/**
 * Authentication, then the key's rate limit; failures are charged to the client address only.
 * One admission serves every route that takes API keys, so they share the limiter-outage state.
 */
export function keyAdmission(deps: AdmitKeyDeps): AdmitKey {
  const { config, rateLimiter, keyUsage, credentials, now } = deps;
  // One warning per outage of the rate limiter (e.g. Redis unreachable), not one per request.
  let limiterDown = false;

  /** What follows authentication once the rate limiter has decided (no decision: it is down). */
  function admitted(
    request: FastifyRequest,
    reply: FastifyReply,
    principal: Principal,
    decision: RateDecision | undefined,
  ): Principal {
    if (decision) {
      if (limiterDown) request.log.info('rate limiter available again');
      limiterDown = false;
      reply.headers(rateLimitHeaders(decision, config.rateLimit, 'per-key'));
      if (!decision.allowed)
        throw new AppError('RATE_LIMITED', 'Rate limit exceeded; retry after the Retry-After delay');
    }
    keyUsage.touch(principal.keyId);
    return principal;
  }

  // What the request logs from here on carries its organization and key, through request.log
  // and reply.log alike (Fastify logs a request's completion through reply.log).
  function bindLogger(request: FastifyRequest, reply: FastifyReply, principal: Principal): void {
    const bound = bindRequestLogger(request.log, {
      organizationId: principal.organizationId,
      keyId: principal.keyId,
    });
    if (bound) {
      request.log = bound;
      reply.log = bound;
    }
  }

  async function admitWaiting(request: FastifyRequest, reply: FastifyReply): Promise<Principal> {
    let principal: Principal;
    try {
      principal = await authenticate(credentials, request.headers.authorization, now());
    } catch (error) {
      if (error instanceof AppError && error.code === 'UNAUTHENTICATED') {
        await chargeAuthFailure(rateLimiter, request.ip, config.authFailureLimit);
      }
      throw isDatabaseUnavailable(error) ? unavailable() : error;
    }
    bindLogger(request, reply, principal);
    // A rate limiter outage must not take the API down: such requests are let through.
    const decision = await rateLimiter.take(`key:${principal.keyId}`, config.rateLimit).catch((error) => {
      if (!limiterDown)
        request.log.warn({ err: error }, 'rate limiter unavailable; requests are let through');
      limiterDown = true;
      return undefined;
    });
    return admitted(request, reply, principal, decision);
  }

  return (request, reply) => {
    const takeAtOnce = rateLimiter.takeAtOnce;
    const principal = takeAtOnce && authenticateAtOnce(credentials, request.headers.authorization, now());
    if (!principal) return admitWaiting(request, reply);
    bindLogger(request, reply, principal);
    return admitted(
      request,
      reply,
      principal,
      takeAtOnce.call(rateLimiter, `key:${principal.keyId}`, config.rateLimit),
    );
  };
}
