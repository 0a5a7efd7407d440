import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import { LOWER_BOUNDS_SQL as FROZEN_BOUNDS } from '../../src/db/migrations/0010_minute_duration_grain.js';
import { recountRollups } from '../../src/ingest/recount.js';
import { LOWER_BOUNDS } from '../../src/rollups/duration-bins.js';
import { openTestDatabase, type TestDatabase } from '../harness/database.js';
import { createTenant } from '../harness/fixtures.js';
import { rollupDrift } from '../ingest/rollup-drift.js';

/**
 * Runs `upgrade` on a database of its own migrated to just before `version`, with a tenant in it;
 * `upgrade` applies `version` itself (`migrateTo`) and checks what it did.
 */
async function beforeVersion(
  version: string,
  upgrade: (db: TestDatabase['db'], org: string, migrateTo: () => Promise<string[]>) => Promise<void>,
): Promise<void> {
  const older = await openTestDatabase({ migrate: false });
  try {
    const all = await loadMigrations();
    await migrate(
      older.db,
      all.filter((m) => m.version < version),
    );
    const { organizationId } = await createTenant(older.db);
    const next = String(Number(version) + 1).padStart(4, '0');
    await upgrade(older.db, organizationId, () =>
      migrate(
        older.db,
        all.filter((m) => m.version < next),
      ),
    );
  } finally {
    await older.close();
  }
}

describe('migrations', () => {
  let database: TestDatabase;
  before(async () => {
    database = await openTestDatabase({ migrate: false });
  });
  after(() => database?.close());

  it('recount every rollup from the raw rows a version 1 database holds', async () => {
    const { db } = database;
    const all = await loadMigrations();
    await migrate(
      db,
      all.filter((m) => m.version < '0002'),
    );
    const tenant = await createTenant(db);
    const org = tenant.organizationId;
    const workflow = randomUUID();
    await db.query(
      `insert into workflows (uuid, organization_id, workflow_id, name, owner_address, status, registered_at)
       values ($1, $2, 'wf', 'price-feed', '0xaa', 'ACTIVE', '2026-01-01T00:00:00Z')`,
      [workflow, org],
    );
    const executions = [
      [randomUUID(), 'SUCCESS', '2026-01-02T00:00:00Z', '2026-01-02T00:00:01.250Z', null],
      [
        randomUUID(),
        'FAILURE',
        '2026-01-02T00:07:00Z',
        '2026-01-02T00:07:04Z',
        [{ error: 'index out of range [3] with length 3', count: 2 }],
      ],
      [randomUUID(), 'IN_PROGRESS', '2026-01-02T01:00:00Z', null, null],
    ] as const;
    for (const [uuid, status, startedAt, finishedAt, errors] of executions) {
      await db.query(
        `insert into executions (uuid, organization_id, workflow_uuid, id, status, started_at, finished_at, errors, credit_used)
         values ($1, $2, $3, $8, $4, $5, $6, $7, 1.5)`,
        [
          uuid,
          org,
          workflow,
          status,
          startedAt,
          finishedAt,
          errors === null ? null : JSON.stringify(errors),
          uuid,
        ],
      );
      await db.query(
        `insert into execution_events (organization_id, workflow_execution_uuid, line_hash, capability_id, status, started_at, finished_at, errors)
         values ($1, $2, $3, 'evm-write@1.0.0', $4, $5, $6, $7)`,
        [
          org,
          uuid,
          Buffer.from(uuid),
          status === 'FAILURE' ? 'FAILED' : 'COMPLETED',
          startedAt,
          finishedAt,
          errors === null ? null : JSON.stringify(errors),
        ],
      );
    }
    // An event whose execution has not arrived.
    await db.query(
      `insert into execution_events (organization_id, workflow_execution_uuid, line_hash, capability_id, status, started_at, errors)
       values ($1, $2, '\\x00', 'http@1.0.0', 'FAILED', '2026-01-02T00:00:00Z', '[{"error": "timeout after 10s", "count": 1}]')`,
      [org, randomUUID()],
    );

    await assert.rejects(migrate(db), /needs the rollups recounted/);
    const [unchanged] = await db.query<{ n: number }>('select count(*)::int as n from schema_migrations');
    assert.equal(unchanged!.n, 1, 'a refused upgrade leaves the database at version 1');
    assert.deepEqual(
      await migrate(db, undefined, { recountRollups }),
      all.filter((m) => m.version >= '0002').map((m) => m.version),
    );
    const [asked] = await db.query<{ n: number }>('select count(*)::int as n from rollup_recounts');
    assert.equal(asked!.n, 0, 'the recount is done once');
    const drift = await rollupDrift(db);
    assert.equal(drift.actual, drift.expected);
    const [durations] = await db.query<{ n: number }>(
      `select count(*)::int as n from duration_rollups where organization_id = $1 and item_count > 0`,
      [org],
    );
    assert.ok(durations!.n > 0, 'the history got duration rollups');
    const [orphans] = await db.query<{ n: number }>('select count(*)::int as n from orphan_event_executions');
    assert.equal(orphans!.n, 1);
  });

  it('record, as version 13 upgrades a database, the workflows that stored executions name and that have not arrived', () =>
    beforeVersion('0013', async (db, org, migrateTo) => {
      const [stored, missing] = [randomUUID(), randomUUID()];
      await db.query(
        `insert into workflows (uuid, organization_id, workflow_id, name, owner_address, status, registered_at)
         values ($1, $2, 'wf', 'stored', '0xaa', 'ACTIVE', '2026-01-01T00:00:00Z')`,
        [stored, org],
      );
      for (const workflow of [stored, missing, missing]) {
        await db.query(
          `insert into executions (uuid, organization_id, workflow_uuid, id, status, started_at)
           values ($1, $2, $3, 'x', 'SUCCESS', '2026-01-02T00:00:00Z')`,
          [randomUUID(), org, workflow],
        );
      }
      assert.deepEqual(await migrateTo(), ['0013_awaited_workflows']);
      const awaited = await db.query('select organization_id, workflow_uuid from awaited_workflows');
      assert.deepEqual(awaited, [{ organization_id: org, workflow_uuid: missing }]);
    }));

  it('store, as version 14 upgrades a database, only the bins of each histogram that hold a count, the empty ones between as nulls', () =>
    beforeVersion('0014', async (db, org, migrateTo) => {
      // As version 13 wrote them: zeros from the first bin to the last, and after a removal zeros
      // at either end or everywhere.
      const written = ['[3:7]={1,0,0,2,1}', '[10:14]={0,0,4,0,0}', '[5:6]={0,0}', null];
      for (const bins of written) {
        await db.query(
          `insert into duration_rollups (organization_id, grain, bucket_start, workflow_uuid, capability_id, status,
             item_count, finished_count, duration_sum_ms, duration_bins)
           values ($1, 60, '2026-01-02T00:00:00Z', $2, '', 'SUCCESS', 1, 1, 1, $3::int8[])`,
          [org, randomUUID(), bins],
        );
      }
      const stored = async () =>
        (
          await db.query<{ bins: string | null }>('select duration_bins::text as bins from duration_rollups')
        ).map((r) => r.bins);
      assert.deepEqual(new Set(await stored()), new Set(written));
      assert.deepEqual(await migrateTo(), ['0014_sparse_histograms']);
      assert.deepEqual(new Set(await stored()), new Set(['[3:7]={1,NULL,NULL,2,1}', '[12:12]={4}', null]));
      // Written from then on, a bin whose count comes back to zero is emptied too.
      const [added] = await db.query<{ bins: string }>(
        `select wfapi_hist_add('[3:5]={1,NULL,2}'::int8[], '[2:5]={7,-1,NULL,1}'::int8[])::text as bins`,
      );
      assert.equal(added!.bins, '[2:5]={7,NULL,NULL,3}');
    }));

  it('freeze each migration in time: none imports live code, only the types of a transaction', () => {
    const dir = new URL('../../src/db/migrations/', import.meta.url);
    const imports = readdirSync(dir)
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) =>
        [...readFileSync(new URL(file, dir), 'utf8').matchAll(/^import\s+(type\s+)?[^'"]*from\s+'([^']+)'/gm)]
          .filter(([, typeOnly, from]) => !(typeOnly && from === '../database.js'))
          .map(([statement]) => `${file}: ${statement}`),
      );
    assert.deepEqual(imports, []);
  });

  it('keep the duration bins frozen in migration 0010 equal to the bins ingestion writes', async () => {
    const [row] = await database.db.query<{ bounds: string[] }>(`select ${FROZEN_BOUNDS}::text[] as bounds`);
    assert.deepEqual(row!.bounds.map(Number), LOWER_BOUNDS);
  });
});
