import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { FULL_MIX } from '../../bench/queries.js';
import { createApiKey } from '../../src/admin/admin.service.js';
import { ADMIN_TOKEN, adminGql, REVOKE_API_KEY } from '../admin/admin-request.js';
import { openTestDatabase, TEST_DB, type TestDatabase } from '../harness/database.js';
import { type Dataset, seedDataset } from '../harness/dataset.js';
import { TEST_REDIS_URL as REDIS_URL, requireEngine } from '../harness/engines.js';
import { createTenant, type Tenant } from '../harness/fixtures.js';
import { apikey, postGraphql } from '../http/http-client.js';
import { type ServeProcess, spawnServe } from './serve-process.js';

const BURST = 100;
const INSTANCES = 3;

/**
 * Contract section 6: several API instances on one PostgreSQL and one Redis answer identically and
 * share rate limits. Three real `wfapi serve` processes; PostgreSQL only (the embedded database
 * belongs to one process).
 */
const needsRedis = TEST_DB === 'postgres' ? await requireEngine('redis') : { skip: true };
describe('three API instances on one database and one Redis', needsRedis, () => {
  let database: TestDatabase;
  let tenant: Tenant;
  let data: Dataset;
  let servers: ServeProcess[] = [];
  let urls: string[] = [];

  before(async () => {
    database = await openTestDatabase();
    tenant = await createTenant(database.db, 'Shared');
    data = await seedDataset(database.db, tenant.organizationId, {
      workflows: 3,
      executions: 60,
      detailed: 10,
    });
    servers = Array.from({ length: INSTANCES }, () =>
      spawnServe({
        DATABASE_URL: database.url,
        REDIS_URL,
        WFAPI_ADMIN_TOKEN: ADMIN_TOKEN,
        WFAPI_LOG_LEVEL: 'warn',
        WFAPI_RATE_LIMIT_BURST: String(BURST),
        WFAPI_RATE_LIMIT_PER_SECOND: '1',
      }),
    );
    urls = await Promise.all(servers.map((server) => server.ready));
    // Redis connects in the background, and a limiter not yet connected lets requests through.
    for (const url of urls) {
      for (let i = 0; ; i++) {
        const answer = await postGraphql(url, apikey(tenant.key), { query: '{ __typename }' });
        if (answer.headers.has('ratelimit')) break;
        if (i > 100) throw new Error(`the rate limiter of ${url} never answered`);
        await sleep(50);
      }
    }
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.kill()));
    await database?.close();
  });

  it('spend one rate limit between them: a key is refused once its burst is spent across the instances', async () => {
    const { key } = await createApiKey(database.db, { memberId: tenant.memberId, name: 'limited' });
    const perInstance = BURST / 2; // half the burst: no instance alone would refuse anything
    const started = Date.now();
    const statuses: number[] = [];
    for (let i = 0; i < perInstance * INSTANCES; i++) {
      const answer = await postGraphql(urls[i % INSTANCES]!, apikey(key), { query: '{ __typename }' });
      statuses.push(answer.status);
    }
    const refilled = Math.ceil((Date.now() - started) / 1000);
    const allowed = statuses.filter((status) => status === 200).length;
    assert.ok(allowed >= BURST, `${allowed} allowed`);
    assert.ok(allowed <= BURST + refilled, `${allowed} allowed, burst ${BURST} plus ${refilled} refilled`);
    assert.deepEqual(new Set(statuses), new Set([200, 429]));
    // Every instance refused some: the bucket each consulted was the same.
    for (let instance = 0; instance < INSTANCES; instance++) {
      const own = statuses.filter((_, i) => i % INSTANCES === instance);
      assert.ok(own.includes(429), `instance ${instance} refused none`);
    }
  });

  it('answer the read mix byte for byte alike (data and dataAsOf)', async () => {
    const last = data.executions.at(-1)!;
    const facts = {
      now: new Date(Date.parse(last.startedAt as string) + 60_000),
      workflowUuid: data.workflows[0]!.uuid as string,
      executionUuid: data.executions[0]!.uuid as string,
      totalExecutions: data.executions.length,
      insight: {
        logTerm: 'fetch',
        logTermShare: 0,
        errorFingerprint: '0000000000000000',
        capabilityId: 'cron-trigger@1.0.0',
      },
    };
    for (const entry of FULL_MIX) {
      // A key of its own for each query: the mix (three requests an entry) outgrows this file's
      // burst of 100, and the shared bucket is the first test's subject, not this one's.
      const { key } = await createApiKey(database.db, { memberId: tenant.memberId, name: entry.name });
      const body = { query: entry.query, variables: entry.variables(facts) };
      const answers = await Promise.all(urls.map((url) => postGraphql(url, apikey(key), body)));
      const first = answers[0]!;
      assert.equal(first.status, 200, `${entry.name}: ${first.text}`);
      assert.equal(first.body.errors, undefined, `${entry.name}: ${first.text}`);
      for (const answer of answers.slice(1)) assert.equal(answer.text, first.text, entry.name);
    }
  });

  it('refuse a key revoked through one of them: that one at once, the others within the credential cache interval (1 s)', async () => {
    const { key, row } = await createApiKey(database.db, { memberId: tenant.memberId, name: 'revoked' });
    for (const url of urls)
      assert.equal((await postGraphql(url, apikey(key), { query: '{ __typename }' })).status, 200);
    const revoked = await adminGql(urls[0]!, REVOKE_API_KEY, { input: { id: row.id } });
    assert.equal(revoked.status, 200);
    const revokedAt = Date.now();
    assert.equal((await postGraphql(urls[0]!, apikey(key), { query: '{ __typename }' })).status, 401);
    for (const url of urls.slice(1)) {
      for (;;) {
        const answer = await postGraphql(url, apikey(key), { query: '{ __typename }' });
        if (answer.status === 401) break;
        assert.equal(answer.status, 200);
        // The cached entry was read before the revocation, so it expires within 1 s of it; the
        // half second beyond is this loop's own latency on a busy machine.
        assert.ok(Date.now() - revokedAt < 1500, 'still accepted a second after the revocation');
        await sleep(50);
      }
    }
  });
});
