import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { migrate } from '../../src/db/migrate.js';
import { openTestDatabase, type TestDatabase } from '../harness/database.js';
import { createTenant, event, execution, ingest, workflow } from '../harness/fixtures.js';
import { startServer } from '../harness/server.js';
import { rollupDrift } from '../ingest/rollup-drift.js';
import { dataOf } from '../read-api/graphql-assertions.js';

/** Each migration that added grains to the duration rollups, and the grains it added. */
const MIGRATIONS = [
  { version: '0009_quarter_hour_and_six_hour_grains', grains: [900, 21600], from: 'their finer rows' },
  { version: '0010_minute_duration_grain', grains: [60], from: 'the raw executions and calls' },
];
/** The migrations after them that store empty histogram bins as nulls, and count bins in int4. */
const SPARSE = '0014_sparse_histograms';
const NARROW = '0017_narrow_histograms';
const MINUTE = 60_000;
const DAY = 1440 * MINUTE;
/**
 * Two days back, at midnight: the one-minute rows are kept for the last days only
 * (src/rollups/grains.ts), and these hold rows of every grain.
 */
const T0 = Math.floor(Date.now() / DAY) * DAY - 2 * DAY;
const iso = (ms: number) => new Date(ms).toISOString();

const INSIGHT = `query ($window: DurationStatsInput!, $groups: ErrorGroupsInput!, $calls: CapabilityStatsInput!) {
  durationStats(input: $window) { data { count minMs maxMs p50Ms p99Ms } }
  errorGroups(input: $groups) { count data { fingerprint occurrences executionCount activity { from occurrences } } }
  capabilityStats(input: $calls) { count data { capabilityID calls failures p50Ms p95Ms } }
}`;

describe('the grains added to the duration rollups (0009, 0010)', () => {
  let database: TestDatabase;
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database?.close());

  for (const { version, grains: newGrains, from } of MIGRATIONS)
    it(`builds the rows of grains ${newGrains.join(', ')} s from ${from}, as ingestion keeps them (${version})`, async () => {
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
      // A workflow that has not arrived: its rows are kept, outside the organization-wide ones. A
      // call still running: counted, without a duration.
      const hidden = execution(t.organizationId, randomUUID(), {
        uuid: randomUUID(),
        status: 'SUCCESS',
        startedAt: iso(T0 + 200 * MINUTE + 10),
        finishedAt: iso(T0 + 200 * MINUTE + 2500),
      });
      const running = event(t.organizationId, runs[7]!.uuid as string, {
        capabilityID: 'chain@1',
        status: 'RUNNING',
        startedAt: iso(T0 + 7 * 37 * MINUTE + 900),
      });
      // A second call of the same capability, outcome and minute: one histogram with a gap.
      const second = event(t.organizationId, runs[7]!.uuid as string, {
        capabilityID: 'http@1',
        status: 'COMPLETED',
        startedAt: iso(T0 + 7 * 37 * MINUTE + 5000),
        finishedAt: iso(T0 + 7 * 37 * MINUTE + 5040),
      });
      // Another workflow's execution in the first one's minute, outcome and bin: the
      // organization-wide row sums both.
      const beside = execution(t.organizationId, wfs[1]!.uuid as string, {
        uuid: randomUUID(),
        status: 'FAILURE',
        startedAt: iso(T0 + 30_000),
        finishedAt: iso(T0 + 31_000),
        errors: [{ error: 'nonce 77 too low', count: 1 }],
      });
      await ingest(db, [...wfs, ...runs, ...calls, hidden, running, second, beside]);
      // A finished execution corrected: the rows it leaves have their extremes recounted.
      await ingest(db, [{ ...runs[4]!, finishedAt: iso(T0 + 4 * 37 * MINUTE + 5) }]);

      // Edges inside a minute: raw rows, then rows of every grain.
      const window = {
        from: iso(T0 + 7 * MINUTE + 20_000),
        to: iso(T0 + 19 * 60 * MINUTE + 3 * MINUTE + 30_000),
      };
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

      // The database as the version before left it: no rows at the new grains. An upgrade from
      // there also runs 0014 after it, which stores the empty bins 0010 writes as zeros as nulls,
      // and 0017, which counts the bins in int4.
      await db.transaction(async (tx) => {
        await tx.query('delete from duration_rollups where grain = any($1::int[])', [newGrains]);
        await tx.query('delete from schema_migrations where version = any($1::text[])', [
          [version, SPARSE, NARROW],
        ]);
      });
      const stripped = await rollupDrift(db);
      assert.notEqual(stripped.actual, stripped.expected);

      assert.deepEqual(await migrate(db), [version, SPARSE, NARROW]);
      const derived = await rollupDrift(db);
      assert.equal(derived.actual, derived.expected);
      const grains = await db.query<{ grain: number }>(
        'select distinct grain from duration_rollups where grain = any($1::int[]) order by grain',
        [newGrains],
      );
      assert.deepEqual(
        grains.map((row) => row.grain),
        newGrains,
      );
      assert.deepEqual(await answer(), before);
    });
});
