import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { openUnlimited } from '../../src/db/open.js';
import type { RoundOutcome } from '../../src/lib/recurring.js';
import {
  COMPACTION_LOCK,
  compactRollupIndexes,
  entryBytes,
  type IndexFill,
  indexFill,
  needsRebuild,
  REBUILD_RATIO,
  ROLLUP_TABLES,
} from '../../src/rollups/rollup-compaction.store.js';
import { RollupUpkeep, type UpkeepRound } from '../../src/rollups/rollup-upkeep.store.js';
import { openTestDatabase, TEST_DB, type TestDatabase } from '../harness/database.js';
import { eventually } from '../harness/eventually.js';
import { createTenant, event, execution, ingest, type Tenant, workflow } from '../harness/fixtures.js';
import { startServer } from '../harness/server.js';
import { rollupDrift } from '../ingest/rollup-drift.js';
import { HOUR, iso, SECOND } from './reference.js';

const ROLLUP_INDEXES = ['duration_rollups_pkey', 'error_group_rollups_pkey', 'execution_rollups_pkey'];

const ANSWERS = `query ($wf: String, $from: Time, $to: Time) {
  all: durationStats(input: { from: $from, to: $to }) { data { count minMs maxMs meanMs p50Ms p99Ms } }
  one: durationStats(input: { workflowUUID: $wf, from: $from, to: $to }) { data { count p50Ms p95Ms } }
  calls: capabilityStats(input: { from: $from, to: $to }) { count data { capabilityID calls failures p50Ms p95Ms } }
  activity: workflowActivity(input: { from: $from, to: $to }) { data { from to successCount failureCount } }
  errors: errorGroups(input: { from: $from, to: $to }) { count data { fingerprint occurrences executionCount } }
}`;

const fillOf = (fills: readonly IndexFill[], index: string) => {
  const fill = fills.find((f) => f.index === index);
  assert.ok(fill, `${index} has a fill estimate`);
  return fill;
};

describe('an index entry on a leaf page', () => {
  it('counts its header, each column at its alignment, the whole aligned to eight, and its line pointer', () => {
    // uuid (16), int4 (4), timestamptz aligned to 8, uuid, two short texts unaligned: the duration key.
    const key = [
      { len: 16, align: 'c', avgWidth: 16 },
      { len: 4, align: 'i', avgWidth: 4 },
      { len: 8, align: 'd', avgWidth: 8 },
      { len: 16, align: 'c', avgWidth: 16 },
      { len: -1, align: 'i', avgWidth: 14 },
      { len: -1, align: 'i', avgWidth: 8 },
    ];
    // 8 + 16 + 4, 4 of padding, 8 + 16 + 14 + 8 = 78, aligned to 80, and 4.
    assert.equal(entryBytes(key), 84);
    // A long text (its four-byte header counted in its width) at its type's alignment: 8 + 4 + 130 = 142, aligned to 144.
    assert.equal(
      entryBytes([
        { len: 4, align: 'i', avgWidth: 4 },
        { len: -1, align: 'i', avgWidth: 130 },
      ]),
      144 + 4,
    );
  });
});

describe('the rollup indexes, rebuilt when they have grown far past their compact size', () => {
  let database: TestDatabase;
  let tenant: Tenant;
  let wf: string;
  const now = Date.now();
  const window = { from: iso(now - 30 * HOUR), to: iso(now) };

  before(async () => {
    database = await openTestDatabase();
    tenant = await createTenant(database.db);
    const workflows = [0, 1, 2, 3, 4].map(() => workflow(tenant.organizationId));
    wf = workflows[0]!.uuid as string;
    await ingest(database.db, workflows);
    // A day of executions, each with two calls, in ten batches in time order as ingestion gets
    // them: a rollup row for every minute, workflow, capability and outcome.
    const start = now - 26 * HOUR;
    for (let batch = 0; batch < 10; batch++) {
      const records = [];
      for (let i = 0; i < 240; i++) {
        const at = start + (batch * 240 + i) * 37 * SECOND;
        const uuid = randomUUID();
        const failed = i % 7 === 0;
        records.push(
          execution(tenant.organizationId, workflows[i % 5]!.uuid as string, {
            uuid,
            status: failed ? 'FAILURE' : 'SUCCESS',
            startedAt: iso(at),
            finishedAt: iso(at + 200 + (i % 13) * 90),
            ...(failed ? { errors: [{ error: `timeout after ${i % 3} retries`, count: 1 }] } : {}),
          }),
          event(tenant.organizationId, uuid, {
            capabilityID: i % 2 ? 'cap-a@1' : 'cap-b@1',
            status: failed ? 'FAILED' : 'COMPLETED',
            startedAt: iso(at + SECOND),
            finishedAt: iso(at + SECOND + 50 + (i % 11) * 20),
          }),
          event(tenant.organizationId, uuid, {
            capabilityID: 'cap-c@1',
            status: 'COMPLETED',
            startedAt: iso(at + 2 * SECOND),
            finishedAt: iso(at + 2 * SECOND + 30 + (i % 5) * 10),
          }),
        );
      }
      await ingest(database.db, records);
    }
    await database.db.query('analyze');
  });
  after(() => database?.close());

  const answers = async () => {
    // A server of its own each time: no answer kept in memory from before.
    const server = await startServer(database.db);
    try {
      const response = await server.gql(tenant.key, ANSWERS, { wf, ...window });
      assert.equal(response.status, 200);
      assert.equal(response.body.errors, undefined);
      return response.body.data;
    } finally {
      await server.close();
    }
  };

  /** Every rollup row rewritten in one statement, as ingestion's non-HOT updates do: the index splits. */
  const bloat = async () => {
    for (const table of ROLLUP_TABLES) {
      await database.db.query(`update ${table} set organization_id = organization_id`);
      await database.db.query(`vacuum analyze ${table}`);
    }
  };

  it("estimates a rollup index's compact size within a tenth of what a rebuild takes", async () => {
    for (const index of ROLLUP_INDEXES) await database.db.query(`reindex index ${index}`);
    await database.db.query('analyze');
    const fills = await indexFill(database.db);
    for (const index of ROLLUP_INDEXES) {
      const fill = fillOf(fills, index);
      assert.ok(fill.bytes > 8192 * 4, `${index} spans pages (${fill.bytes} bytes)`);
      const ratio = fill.bytes / fill.compactBytes;
      assert.ok(
        ratio > 0.9 && ratio < 1.1,
        `${index}: ${fill.bytes} bytes built, ${fill.compactBytes} estimated`,
      );
      assert.equal(needsRebuild(fill, 0), false);
    }
  });

  it('rebuilds the indexes that take 1.4 times their compact size, and every answer stays the same', async () => {
    const before = await answers();
    assert.ok(before.all.data.count > 2000 && before.calls.count === 3 && before.errors.count > 0);
    await bloat();
    const bloated = await indexFill(database.db);
    const grown = bloated.filter((fill) => ROLLUP_INDEXES.includes(fill.index));
    for (const fill of grown)
      assert.ok(needsRebuild(fill, 0), `${fill.index}: ${fill.bytes} / ${fill.compactBytes}`);

    const round = await compactRollupIndexes(await unlimitedDb(), { minBytes: 0 });
    assert.deepEqual(round.rebuilt.map((r) => r.index).sort(), ROLLUP_INDEXES);
    for (const rebuilt of round.rebuilt) {
      const fill = fillOf(grown, rebuilt.index);
      assert.equal(rebuilt.bytesBefore, fill.bytes);
      assert.ok(rebuilt.bytesAfter * REBUILD_RATIO <= rebuilt.bytesBefore, JSON.stringify(rebuilt));
      assert.ok(rebuilt.bytesAfter <= fill.compactBytes * 1.1, JSON.stringify(rebuilt));
    }
    assert.deepEqual(await answers(), before);
    const drift = await rollupDrift(database.db);
    assert.equal(drift.actual, drift.expected);
  });

  it('leaves indexes near their compact size, and indexes under the minimum size, alone', async () => {
    const fills = await indexFill(database.db);
    assert.deepEqual((await compactRollupIndexes(await unlimitedDb(), { minBytes: 0 })).rebuilt, []);
    await bloat();
    // The default minimum (16 MiB) is far above these indexes.
    assert.deepEqual((await compactRollupIndexes(await unlimitedDb())).rebuilt, []);
    const grown = await indexFill(database.db);
    for (const index of ROLLUP_INDEXES) assert.ok(fillOf(grown, index).bytes > fillOf(fills, index).bytes);
  });

  it('skips the round while another instance holds the rebuilds’ lock', {
    skip: noConcurrency(),
  }, async () => {
    const other = openUnlimited(database.url!, 'wfapi-test-other');
    try {
      await other.query('select pg_advisory_lock($1)', [COMPACTION_LOCK]);
      const fills = await indexFill(database.db);
      assert.ok(fills.some((fill) => needsRebuild(fill, 0)));
      assert.deepEqual(await compactRollupIndexes(await unlimitedDb(), { minBytes: 0 }), {
        rebuilt: [],
        dropped: [],
      });
    } finally {
      await other.close();
    }
  });

  it('drops what an interrupted concurrent rebuild of a rollup index left, and nothing of another table', {
    skip: noConcurrency(),
  }, async () => {
    // A failed concurrent build leaves its index behind, invalid: as a rebuild's `_ccnew` would be.
    const leaveInvalid = async (name: string, table: string, column: string) => {
      await assert.rejects(
        database.db.query(`create unique index concurrently ${name} on ${table} (${column})`),
        {
          code: '23505',
        },
      );
    };
    await leaveInvalid('duration_rollups_pkey_ccnew', 'duration_rollups', 'organization_id');
    await leaveInvalid('executions_ccnew', 'execution_rollups', 'organization_id');
    await leaveInvalid('workflows_org_ccnew', 'workflows', 'organization_id');
    const round = await compactRollupIndexes(await unlimitedDb());
    assert.deepEqual([...round.dropped].sort(), ['duration_rollups_pkey_ccnew', 'executions_ccnew']);
    const left = await database.db.query<{ name: string }>(
      `select c.relname as name from pg_index i join pg_class c on c.oid = i.indexrelid where not i.indisvalid`,
    );
    assert.deepEqual(
      left.map((row) => row.name),
      ['workflows_org_ccnew'],
    );
    await database.db.query('drop index workflows_org_ccnew');
  });

  it('cancels a rebuild under way when upkeep stops, and the next round drops what it left', {
    skip: noConcurrency(),
  }, async () => {
    await bloat();
    // Another session holds the table in the mode a concurrent rebuild needs: the rebuild waits.
    // (One connection: its transaction spans the statements below.)
    const blocker = openUnlimited(database.url!, 'wfapi-test-blocker');
    await blocker.query('begin');
    await blocker.query('lock table duration_rollups in share update exclusive mode');
    const outcomes: Array<RoundOutcome<UpkeepRound>> = [];
    const upkeep = new RollupUpkeep(
      database.db,
      {
        everyMs: 3_600_000,
        compaction: true,
        compactionDb: () => {
          const connection = openUnlimited(database.url!, 'wfapi-test-upkeep');
          return { db: connection, close: () => connection.close() };
        },
        compactionMinBytes: 0,
      },
      (outcome) => outcomes.push(outcome),
    );
    try {
      upkeep.start();
      await eventually(async () => {
        const [waiting] = await database.db.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
           where query ilike 'reindex index concurrently%' and wait_event_type = 'Lock'`,
        );
        return waiting!.n > 0;
      }, 'the rebuild waiting for the lock');
      await upkeep.stop();
      assert.equal(outcomes.length, 1);
      assert.equal(outcomes[0]!.error, undefined);
      assert.deepEqual(outcomes[0]!.result!.rebuilt, []);
    } finally {
      await blocker.query('rollback');
      await blocker.close();
    }
    // The index is as it was, and whatever the cancelled rebuild left is dropped by the next round.
    const round = await compactRollupIndexes(await unlimitedDb(), { minBytes: 0 });
    assert.ok(round.rebuilt.some((r) => r.index === 'duration_rollups_pkey'));
    const invalid = await database.db.query('select 1 from pg_index where not indisvalid');
    assert.equal(invalid.length, 0);
  });

  /** The database the server's upkeep gives the rebuilds: on PostgreSQL one connection of its own. */
  async function unlimitedDb() {
    if (TEST_DB !== 'postgres') return database.db;
    const connection = openUnlimited(database.url!, 'wfapi-test-upkeep');
    opened.push(connection);
    return connection;
  }
  const opened: Array<{ close(): Promise<void> }> = [];
  after(async () => {
    for (const connection of opened) await connection.close();
  });
});

/** Concurrent rebuilds, their lock and their leftovers exist on PostgreSQL only (the embedded database has one connection). */
function noConcurrency(): string | false {
  return TEST_DB === 'postgres'
    ? false
    : 'the embedded database rebuilds with a plain REINDEX, one connection';
}
