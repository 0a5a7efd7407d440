import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import { LOWER_BOUNDS_SQL as FROZEN_BOUNDS } from '../../src/db/migrations/0010_minute_duration_grain.js';
import { recountRollups } from '../../src/ingest/recount.js';
import { searchLogs } from '../../src/modules/log-search/log-search.store.js';
import { LOWER_BOUNDS } from '../../src/rollups/duration-bins.js';
import { openTestDatabase, type TestDatabase } from '../harness/database.js';
import { createTenant, execution, ingest, log, workflow } from '../harness/fixtures.js';
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

  it('give, as version 15 upgrades a database, each month partition of the log lines a trigram index per day, which a search over a day reads alone', () =>
    beforeVersion('0015', async (db, org, migrateTo) => {
      // December 2026 has a partition since version 6 (made for the months around its time);
      // August's line waits in DEFAULT.
      const flow = workflow(org);
      const run = execution(org, flow.uuid as string, { startedAt: '2026-12-01T09:00:00Z' });
      const times = ['2026-12-01T10:00:00Z', '2026-12-03T10:00:00Z', '2026-08-02T10:00:00Z'];
      await ingest(db, [
        flow,
        run,
        ...times.map((timestamp) =>
          log(org, run.uuid as string, { message: `kept line ${timestamp}`, timestamp }),
        ),
      ]);
      assert.deepEqual(await migrateTo(), ['0015_log_search_day_indexes']);
      const indexes = await db.query<{ name: string; partition: string }>(
        `select i.relname as name, t.relname as partition from pg_index x
         join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
         where t.relname like 'execution_logs%' and i.relname ~ '_(d[0-9]{2}|default_message|day_message)$'`,
      );
      const dayIndexes = (partition: string) =>
        indexes.filter((i) => i.partition === partition && /_d\d\d$/.test(i.name)).length;
      assert.equal(dayIndexes('execution_logs_p202612'), 31);
      assert.equal(dayIndexes('execution_logs_p202702'), 28);
      assert.deepEqual(
        indexes.filter((i) => !/_d\d\d$/.test(i.name)).map((i) => i.name),
        ['execution_logs_default_message'],
      );
      // Every line is found in a window of its own day, and the 3rd's search can be answered from
      // that day's index alone: with the other ways to read the lines taken away (in a transaction
      // rolled back; on so few lines the planner would rather read them all, or the day's by
      // time), the planner reads it and no other day's.
      const statements: Array<[string, readonly unknown[]]> = [];
      const seen = {
        query: <Row>(text: string, params?: readonly unknown[]) => {
          statements.push([text, params ?? []]);
          return db.query<Row>(text, params);
        },
      };
      for (const timestamp of times) {
        const day = Date.parse(timestamp.slice(0, 10));
        const found = await searchLogs(
          seen,
          org,
          {
            pattern: '%kept line%',
            workflowUuid: null,
            nodeId: null,
            from: new Date(day),
            to: new Date(day + 86_399_999),
          },
          { offset: 0, limit: 10 },
        );
        assert.deepEqual(
          found.map((line) => line.message),
          [`kept line ${timestamp}`],
        );
      }
      const [text, params] = statements[1]!;
      let plan: string[] = [];
      const rolledBack = new Error('rolled back');
      await db
        .transaction(async (tx) => {
          await tx.query('alter table execution_logs drop constraint execution_logs_pkey');
          await tx.query('drop index execution_logs_org_timestamp');
          await tx.query('set local enable_seqscan = off');
          plan = (await tx.query<{ 'QUERY PLAN': string }>(`explain ${text}`, params)).map(
            (r) => r['QUERY PLAN'],
          );
          throw rolledBack;
        })
        .catch((error: unknown) => {
          if (error !== rolledBack) throw error;
        });
      const scanned = plan.join('\n').match(/execution_logs_\w+_(d\d\d|default_message)/g) ?? [];
      assert.deepEqual([...new Set(scanned)], ['execution_logs_p202612_d03'], plan.join('\n'));
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
