import type { RateLimitConfig } from '../../config.js';
import { AppError } from '../../errors.js';
import { type RateLimiter, rateLimitHeaders } from './rate-limit.js';

/**
 * Charges one failed authentication to the client address, so that guessing credentials (API
 * keys or operator tokens, which share the budget) is slowed down; throws RATE_LIMITED once the
 * budget is spent. A rate limiter outage lets the failure through as a plain 401.
 */
export async function chargeAuthFailure(
  rateLimiter: RateLimiter,
  address: string,
  limit: RateLimitConfig,
): Promise<void> {
  const decision = await rateLimiter.take(`auth:${address}`, limit).catch(() => undefined);
  if (decision && !decision.allowed) {
    throw new AppError('RATE_LIMITED', 'Too many failed authentication attempts; retry later', {
      headers: rateLimitHeaders(decision, limit, 'auth-failure'),
    });
  }
}
