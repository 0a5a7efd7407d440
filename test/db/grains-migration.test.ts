import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { migrate } from '../../src/db/migrate.js';
import { openTestDatabase, type TestDatabase } from '../harness/database.js';
import { createTenant, event, execution, ingest, workflow } from '../harness/fixtures.js';
import { startServer } from '../harness/server.js';
import { rollupDrift } from '../ingest/rollup-drift.js';
import { dataOf } from '../read-api/graphql-assertions.js';

const VERSION = '0009_quarter_hour_and_six_hour_grains';
const NEW_GRAINS = [900, 21600];
const T0 = Date.parse('2026-05-04T00:00:00Z');
const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

const INSIGHT = `query ($window: DurationStatsInput!, $groups: ErrorGroupsInput!, $calls: CapabilityStatsInput!) {
  durationStats(input: $window) { data { count minMs maxMs p50Ms p99Ms } }
  errorGroups(input: $groups) { count data { fingerprint occurrences executionCount activity { from occurrences } } }
  capabilityStats(input: $calls) { count data { capabilityID calls failures p50Ms p95Ms } }
}`;

describe('the 15-minute and 6-hour grains of the duration rollups (0009)', () => {
  let database: TestDatabase;
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database?.close());

  it("derives a version 8 database's 15-minute and 6-hour duration rows from its finer rows, as ingestion keeps them", async () => {
    const { db } = database;
    const t = await createTenant(db);
    const wfs = [workflow(t.organizationId), workflow(t.organizationId)];
    // Executions every 37 minutes over 20 hours: many 5-minute, 15-minute and hourly buckets, a
    // few of 6 hours; every third fails with an error whose numbers vary, each has a call.
    const runs = Array.from({ length: 32 }, (_, i) =>
      execution(t.organizationId, wfs[i % 2]!.uuid as string, {
        uuid: randomUUID(),
        status: i % 3 === 0 ? 'FAILURE' : 'SUCCESS',
        startedAt: iso(T0 + i * 37 * MINUTE),
        finishedAt: iso(T0 + i * 37 * MINUTE + 1000 + i * 997),
        errors: i % 3 === 0 ? [{ error: `nonce ${i} too low`, count: 1 + (i % 4) }] : [],
      }),
    );
    const calls = runs.map((run, i) =>
      event(t.organizationId, run.uuid as string, {
        capabilityID: i % 2 === 0 ? 'chain@1' : 'http@1',
        status: i % 5 === 0 ? 'FAILED' : 'COMPLETED',
        startedAt: iso(T0 + i * 37 * MINUTE + 100),
        finishedAt: iso(T0 + i * 37 * MINUTE + 100 + i * 311),
        errors: i % 5 === 0 ? [{ error: `timeout after ${i}s`, count: 1 }] : [],
      }),
    );
    await ingest(db, [...wfs, ...runs, ...calls]);
    // A finished execution corrected: the rows it leaves have their extremes recounted.
    await ingest(db, [{ ...runs[4]!, finishedAt: iso(T0 + 4 * 37 * MINUTE + 5) }]);

    const window = { from: iso(T0 + 7 * MINUTE), to: iso(T0 + 19 * 60 * MINUTE + 3 * MINUTE) };
    const variables = { window, groups: window, calls: window };
    const answer = async () => {
      const server = await startServer(db);
      try {
        return dataOf(await server.gql(t.key, INSIGHT, variables));
      } finally {
        await server.close();
      }
    };
    const before = await answer();
    assert.ok(before.durationStats.data.count > 20, 'the window holds most executions');
    const drift = await rollupDrift(db);
    assert.equal(drift.actual, drift.expected);

    // The database as version 8 left it: no rows at the new grains.
    await db.transaction(async (tx) => {
      await tx.query('delete from duration_rollups where grain = any($1::int[])', [NEW_GRAINS]);
      await tx.query('delete from schema_migrations where version = $1', [VERSION]);
    });
    const stripped = await rollupDrift(db);
    assert.notEqual(stripped.actual, stripped.expected);

    assert.deepEqual(await migrate(db), [VERSION]);
    const derived = await rollupDrift(db);
    assert.equal(derived.actual, derived.expected);
    const grains = await db.query<{ grain: number }>(
      'select distinct grain from duration_rollups where grain = any($1::int[]) order by grain',
      [NEW_GRAINS],
    );
    assert.deepEqual(
      grains.map((row) => row.grain),
      NEW_GRAINS,
    );
    assert.deepEqual(await answer(), before);
  });
});
