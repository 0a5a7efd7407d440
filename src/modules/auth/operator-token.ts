import type { RateLimitConfig } from '../../config.js';
import { AppError } from '../../errors.js';
import { chargeAuthFailure } from './auth-failures.js';
import { bearerTokenCheck } from './bearer-token.js';
import type { RateLimiter } from './rate-limit.js';

/**
 * The one gate of both operator endpoints (`/admin/graphql`, `/ingest`): `Authorization: Bearer
 * <token>` compared in constant time, and every wrong or missing token charged to the client
 * address in the budget that failed API keys share, so guessing either token is slowed alike
 * (429 once the budget is spent). `admit` throws the endpoint's 401 or the 429.
 */
export interface OperatorGuard {
  admit(authorization: string | undefined, address: string): Promise<void>;
}

export function operatorGuard(options: {
  readonly token: string;
  /** Names the token in the 401 message, e.g. "admin" or "ingest". */
  readonly name: string;
  readonly rateLimiter: RateLimiter;
  readonly failureLimit: RateLimitConfig;
}): OperatorGuard {
  const matches = bearerTokenCheck(options.token);
  return {
    async admit(authorization, address) {
      if (matches(authorization)) return;
      await chargeAuthFailure(options.rateLimiter, address, options.failureLimit);
      throw new AppError('UNAUTHENTICATED', `Invalid or missing ${options.name} token`, {
        headers: { 'www-authenticate': 'Bearer' },
      });
    },
  };
}
