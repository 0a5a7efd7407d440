import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { createApiKey } from '../../src/admin/admin.service.js';
import { buildApp } from '../../src/app.js';
import { type ConfigOverrides, loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import { generateApiKey } from '../../src/modules/auth/api-key.js';
import { MemoryRateLimiter, type RateLimiter, RedisRateLimiter } from '../../src/modules/auth/rate-limit.js';
import { TEST_REDIS_URL as REDIS_URL, requireEngine } from '../harness/engines.js';
import { eventually } from '../harness/eventually.js';
import { createTenant } from '../harness/fixtures.js';
import { ManualClock } from '../harness/manual-clock.js';
import { useServer } from '../harness/suite.js';
import { apikey, errorCode, type HttpAnswer, postGraphql } from './http-client.js';

const needsRedis = await requireEngine('redis');
const LIMIT = { burst: 3, perSecond: 1 };
const QUERY = { query: '{ __typename }' };
const BAD_KEY = apikey(generateApiKey().key);

/** A real server with an explicit rate limiter (closed with the server). */
async function startWithLimiter(db: Database, overrides: ConfigOverrides, rateLimiter?: RateLimiter) {
  const config = loadConfig({}, { port: 0, logLevel: 'silent', ...overrides });
  const app = await buildApp(config, rateLimiter ? { db, rateLimiter } : { db });
  return { url: await app.listen(), close: () => app.close() };
}

/** Redis connects asynchronously and an unreachable limiter lets requests through: wait until it answers. */
async function untilLimiterAnswers(url: string, key: string): Promise<void> {
  await eventually(
    async () => (await postGraphql(url, apikey(key), QUERY)).headers.has('ratelimit'),
    `the rate limiter of ${url} never answered`,
  );
}

function assertRefused(answer: HttpAnswer, policy: string): void {
  assert.equal(answer.status, 429, answer.text);
  assert.equal(errorCode(answer), 'RATE_LIMITED');
  assert.ok(Number(answer.headers.get('retry-after')) >= 1, 'Retry-After');
  assert.match(answer.headers.get('ratelimit') ?? '', new RegExp(`^"${policy}";r=0;t=\\d+$`));
  assert.equal(answer.headers.get('ratelimit-policy'), `"${policy}";q=3;w=3`);
}

describe('rate limiting', () => {
  // The buckets refill by this clock, which moves only when a test says: a busy machine refills nothing.
  const clock = new ManualClock(Date.now());
  const ctx = useServer(
    { rateLimit: LIMIT, authFailureLimit: LIMIT },
    { rateLimiter: new MemoryRateLimiter(undefined, clock.read) },
  );
  const ask = (key: string, url = ctx.server.url) => postGraphql(url, apikey(key), QUERY);

  it('answers 429 RATE_LIMITED with Retry-After and RateLimit headers once a key spends its burst', async () => {
    const tenant = await createTenant(ctx.db);
    for (const remaining of [2, 1, 0]) {
      const answer = await ask(tenant.key);
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('ratelimit-policy'), '"per-key";q=3;w=3');
      assert.match(answer.headers.get('ratelimit') ?? '', new RegExp(`^"per-key";r=${remaining};t=\\d+$`));
      assert.equal(answer.headers.get('retry-after'), null);
    }
    const refused = await ask(tenant.key);
    assertRefused(refused, 'per-key');
    assert.equal(refused.headers.get('retry-after'), '1');
    assert.match(refused.body.errors[0].message, /Rate limit exceeded/);
  });

  it('lets the key in again once the bucket refills', async () => {
    const tenant = await createTenant(ctx.db);
    const answers = await Promise.all([1, 2, 3, 4].map(() => ask(tenant.key)));
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 200, 200, 429]);
    clock.advance(999);
    assert.equal((await ask(tenant.key)).status, 429);
    clock.advance(1);
    assert.equal((await ask(tenant.key)).status, 200);
  });

  it('does not charge one key for the requests of another, even of the same member', async () => {
    const tenant = await createTenant(ctx.db);
    const other = await createTenant(ctx.db, 'Globex');
    const sibling = await createApiKey(ctx.db, { memberId: tenant.memberId, name: 'second' });
    await Promise.all([1, 2, 3].map(() => ask(tenant.key)));
    assert.equal((await ask(tenant.key)).status, 429);
    for (const key of [other.key, sibling.key]) {
      const answer = await ask(key);
      assert.equal(answer.status, 200);
      assert.match(answer.headers.get('ratelimit') ?? '', /r=2;/);
    }
  });

  it('throttles failed authentication per client address without charging any tenant', async () => {
    const tenant = await createTenant(ctx.db);
    assert.match((await ask(tenant.key)).headers.get('ratelimit') ?? '', /r=2;/);
    for (let i = 0; i < 3; i++) {
      assert.equal((await postGraphql(ctx.server.url, BAD_KEY, QUERY)).status, 401);
    }
    const throttled = await postGraphql(ctx.server.url, BAD_KEY, QUERY);
    assertRefused(throttled, 'auth-failure');
    assert.match(throttled.body.errors[0].message, /failed authentication/);
    assert.equal((await postGraphql(ctx.server.url, undefined, QUERY)).status, 429);

    // The tenant's valid key, from the same address, keeps working: had the four failures been
    // charged to it, its burst of three would be spent.
    assert.equal((await ask(tenant.key)).status, 200);
  });

  it('keeps a bounded number of in-memory buckets, forgetting the least recently used first', async () => {
    const limiter = new MemoryRateLimiter(2);
    const one = { burst: 1, perSecond: 1 };
    const now = Date.now();
    assert.equal((await limiter.take('a', one, now)).allowed, true);
    assert.equal((await limiter.take('b', one, now)).allowed, true);
    assert.equal((await limiter.take('a', one, now)).allowed, false); // a is now the most recent
    assert.equal((await limiter.take('c', one, now)).allowed, true); // drops b, the least recent
    assert.equal((await limiter.take('a', one, now)).allowed, false);
    assert.equal((await limiter.take('b', one, now)).allowed, true); // b was forgotten
  });

  describe('with Redis', needsRedis, () => {
    it('shares one budget per key across server instances', async () => {
      const tenant = await createTenant(ctx.db);
      const warmUp = await createTenant(ctx.db, 'Warm');
      const a = await startWithLimiter(ctx.db, { redisUrl: REDIS_URL, rateLimit: LIMIT });
      const b = await startWithLimiter(ctx.db, { redisUrl: REDIS_URL, rateLimit: LIMIT });
      try {
        await untilLimiterAnswers(a.url, warmUp.key);
        await untilLimiterAnswers(b.url, warmUp.key);
        const statuses = [];
        for (const server of [a, b, a, b]) statuses.push((await ask(tenant.key, server.url)).status);
        assert.deepEqual(statuses, [200, 200, 200, 429]);
        assertRefused(await ask(tenant.key, a.url), 'per-key');
        const other = await createTenant(ctx.db, 'Globex');
        assert.equal((await ask(other.key, b.url)).status, 200);
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('shares the failed-authentication budget of an address across server instances', async () => {
      const tenant = await createTenant(ctx.db);
      // A prefix of its own, so that other runs on the same Redis and address do not interfere.
      const prefix = `wfapi-test:${randomUUID()}:`;
      const overrides = { rateLimit: LIMIT, authFailureLimit: LIMIT };
      const a = await startWithLimiter(ctx.db, overrides, new RedisRateLimiter(REDIS_URL, prefix));
      const b = await startWithLimiter(ctx.db, overrides, new RedisRateLimiter(REDIS_URL, prefix));
      try {
        await untilLimiterAnswers(a.url, tenant.key);
        await untilLimiterAnswers(b.url, tenant.key);
        const statuses = [];
        for (const server of [a, b, a, b])
          statuses.push((await postGraphql(server.url, BAD_KEY, QUERY)).status);
        assert.deepEqual(statuses, [401, 401, 401, 429]);
        assertRefused(await postGraphql(a.url, BAD_KEY, QUERY), 'auth-failure');
        // The tenant is not charged for them: its key still works from the same address.
        assert.equal((await ask(tenant.key, a.url)).status, 200);
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
});
