// test: alone (it measures latency: no other test file shares the cores meanwhile)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTenant } from '../harness/fixtures.js';
import { assertBystanderHolds, p99Budget, trivialQueryOf } from '../harness/latency.js';
import { useServer } from '../harness/suite.js';
import { call, errorCode } from '../http/http-client.js';

const INGEST_TOKEN = 'the-right-ingest-token';
const ADMIN_TOKEN = 'the-right-admin-token';

describe('guessing the ingest token', () => {
  const ctx = useServer({
    ingestToken: INGEST_TOKEN,
    adminToken: ADMIN_TOKEN,
    authFailureLimit: { burst: 20, perSecond: 1 },
  });

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

  it("keeps another organization's trivial query from stalling (p99 within five times its 50 ms target) while ingest tokens are guessed", async (t) => {
    const bystander = await createTenant(ctx.db, 'Bystander');
    const probe = trivialQueryOf(ctx.server.url, bystander.key);
    const budget = await p99Budget(probe);
    const guess = {
      url: `${ctx.server.url}/ingest`,
      headers: { 'content-type': 'application/x-ndjson', authorization: 'Bearer guess-{{i}}' },
      body: '',
    };
    await assertBystanderHolds(
      t,
      { durationMs: 5000, hostile: { requests: [guess], concurrency: 4 }, probe, minHostileRequests: 20 },
      budget,
    );
  });
});
