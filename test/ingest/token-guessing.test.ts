import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryRateLimiter } from '../../src/modules/auth/rate-limit.js';
import { createTenant } from '../harness/fixtures.js';
import { assertBystanderServed, trivialQueryOf } from '../harness/latency.js';
import { ManualClock } from '../harness/manual-clock.js';
import { useServer } from '../harness/suite.js';
import { call, errorCode } from '../http/http-client.js';

const INGEST_TOKEN = 'the-right-ingest-token';
const ADMIN_TOKEN = 'the-right-admin-token';

describe('guessing the ingest token', () => {
  // The budgets refill by a clock that stands still: a failure budget spent stays spent however
  // long a busy machine takes over the guesses (at one a second, a slow run earned more). Keys get
  // a burst no test here spends, since their buckets do not refill either.
  const clock = new ManualClock(Date.now());
  const ctx = useServer(
    {
      ingestToken: INGEST_TOKEN,
      adminToken: ADMIN_TOKEN,
      authFailureLimit: { burst: 20, perSecond: 1 },
      rateLimit: { burst: 1_000_000, perSecond: 1 },
    },
    { rateLimiter: new MemoryRateLimiter(undefined, clock.read) },
  );

  const ingestWith = (token: string, ip?: string) =>
    call(`${ctx.server.url}/ingest`, {
      headers: {
        'content-type': 'application/x-ndjson',
        authorization: `Bearer ${token}`,
        ...(ip ? { 'x-forwarded-for': ip } : {}),
      },
      body: '',
    });

  it('answers 429 with Retry-After once 20 wrong tokens are spent, yet still admits the right token', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) statuses.push((await ingestWith(`guess-${i}`)).status);
    assert.deepEqual(statuses, [...Array(20).fill(401), ...Array(5).fill(429)]);
    const refused = await ingestWith('guess-again');
    assert.equal(errorCode(refused), 'RATE_LIMITED');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    const right = await ingestWith(INGEST_TOKEN);
    assert.equal(right.status, 200, right.text);
    assert.deepEqual(right.body, { accepted: 0, rejected: [], rejectedCount: 0 });
  });

  it('shares one failure budget between the ingest and admin tokens', async () => {
    // The previous test spent this address's budget on /ingest: the admin endpoint refuses guesses too.
    const admin = await call(`${ctx.server.url}/admin/graphql`, {
      headers: { 'content-type': 'application/json', authorization: 'Bearer wrong' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    assert.equal(admin.status, 429);
    assert.equal(errorCode(admin), 'RATE_LIMITED');
  });

  // The bystander's latency figures while tokens are guessed are bench/bystander.ts's (`--attack guesses`).
  it("refuses 200 guessed ingest tokens while an organization's trivial query is answered all along, never stalled", async (t) => {
    const bystander = await createTenant(ctx.db, 'Bystander');
    const probe = trivialQueryOf(ctx.server.url, bystander.key);
    const guess = {
      url: `${ctx.server.url}/ingest`,
      headers: { 'content-type': 'application/x-ndjson', authorization: 'Bearer guess-{{i}}' },
      body: '',
    };
    await assertBystanderServed(t, {
      hostile: { requests: [guess], concurrency: 4, total: 200 },
      probe,
      refusedWith: ['401 UNAUTHENTICATED', '429 RATE_LIMITED'],
    });
  });
});
