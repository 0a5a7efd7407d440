import { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { RateLimitConfig } from '../../config.js';

export interface RateDecision {
  readonly allowed: boolean;
  /** Whole tokens left after this request. */
  readonly remaining: number;
  /** Seconds until the next token (when refused: the Retry-After). */
  readonly retryAfterSeconds: number;
  /** Seconds until the bucket is full again. */
  readonly resetSeconds: number;
}

/** A token bucket per key: `burst` tokens, refilled at `perSecond`. */
export interface RateLimiter {
  take(key: string, limit: RateLimitConfig): Promise<RateDecision>;
  /** `take` answered without waiting, by a limiter that keeps its buckets in this process. */
  readonly takeAtOnce?: (key: string, limit: RateLimitConfig) => RateDecision;
  close(): Promise<void>;
}

function decide(tokens: number, allowed: boolean, limit: RateLimitConfig): RateDecision {
  return {
    allowed,
    remaining: Math.max(0, Math.floor(tokens)),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / limit.perSecond)),
    resetSeconds: Math.max(0, Math.ceil((limit.burst - tokens) / limit.perSecond)),
  };
}

/**
 * In-process buckets; the default for a single instance. Memory is bounded: past `maxBuckets`
 * the least recently used bucket is dropped (O(1)), which is the one most likely to have
 * refilled anyway, so many distinct callers (e.g. addresses failing authentication) cannot
 * grow the map without bound nor make each request scan it.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets: LRUCache<string, { tokens: number; at: number }>;

  /** `clock`: wall-clock milliseconds the buckets refill by (a test moves its own). */
  constructor(
    maxBuckets = 100_000,
    private readonly clock: () => number = Date.now,
  ) {
    this.buckets = new LRUCache({ max: maxBuckets });
  }

  async take(key: string, limit: RateLimitConfig, now = this.clock()): Promise<RateDecision> {
    return this.takeAtOnce(key, limit, now);
  }

  takeAtOnce(key: string, limit: RateLimitConfig, now = this.clock()): RateDecision {
    const bucket = this.buckets.get(key);
    let tokens = limit.burst;
    if (bucket) tokens = Math.min(limit.burst, bucket.tokens + ((now - bucket.at) / 1000) * limit.perSecond);
    const allowed = tokens >= 1;
    if (allowed) tokens -= 1;
    // get() made the bucket the most recently used: it is updated in place.
    if (bucket) {
      bucket.tokens = tokens;
      bucket.at = now;
    } else this.buckets.set(key, { tokens, at: now });
    return decide(tokens, allowed, limit);
  }

  async close(): Promise<void> {}
}

/** Atomic token bucket in Redis, so that several instances share one budget per key. */
const TAKE_SCRIPT = `
local burst = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local state = redis.call('HMGET', KEYS[1], 't', 'a')
local tokens = burst
if state[1] then
  tokens = math.min(burst, tonumber(state[1]) + (now - tonumber(state[2])) / 1000 * rate)
end
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'a', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return {allowed, tostring(tokens)}
`;

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;

  /** `prefix` namespaces the buckets, so that several deployments (or test runs) can share one Redis. */
  constructor(
    url: string,
    private readonly prefix = 'wfapi:rl:',
  ) {
    this.redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: false });
    this.redis.on('error', () => {});
    this.redis.defineCommand('wfapiTake', { numberOfKeys: 1, lua: TAKE_SCRIPT });
  }

  async take(key: string, limit: RateLimitConfig): Promise<RateDecision> {
    const take = (this.redis as unknown as Record<string, (...args: unknown[]) => Promise<[number, string]>>)
      .wfapiTake!;
    const [allowed, tokens] = await take.call(
      this.redis,
      `${this.prefix}${key}`,
      limit.burst,
      limit.perSecond,
      Date.now(),
    );
    return decide(Number(tokens), allowed === 1, limit);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

/** The RateLimit-Policy header of each policy, for the limit it was last made for (limits are config: they do not change). */
const policyHeaders = new Map<string, { limit: RateLimitConfig; header: string }>();

function policyHeader(limit: RateLimitConfig, policy: string): string {
  const made = policyHeaders.get(policy);
  if (made?.limit === limit) return made.header;
  const window = Math.max(1, Math.ceil(limit.burst / limit.perSecond));
  const header = `"${policy}";q=${limit.burst};w=${window}`;
  policyHeaders.set(policy, { limit, header });
  return header;
}

export function rateLimitHeaders(
  decision: RateDecision,
  limit: RateLimitConfig,
  policy: string,
): Record<string, string> {
  const headers: Record<string, string> = {
    'ratelimit-policy': policyHeader(limit, policy),
    ratelimit: `"${policy}";r=${decision.remaining};t=${decision.resetSeconds}`,
  };
  if (!decision.allowed) headers['retry-after'] = String(decision.retryAfterSeconds);
  return headers;
}
