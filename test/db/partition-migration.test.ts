import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RowValues } from '../../src/db/copy-text.js';
import type { Database, Transaction } from '../../src/db/database.js';
import { loadMigrations, migrate, splitStatements } from '../../src/db/migrate.js';
import { monthPartitions, PARTITIONED_TABLES } from '../../src/db/partitions.js';
import { deployments, workflows } from '../../src/db/tables.js';
import { type Columns, unnestInsert } from '../../src/db/unnest-insert.js';
import { EXECUTION_COLUMNS, executionRow, mergeExecution } from '../../src/ingest/execution-upsert.store.js';
import { deploymentRow, workflowRow } from '../../src/ingest/ingest.store.js';
import { EVENT_COLUMNS, eventRow, LOG_COLUMNS, logRow } from '../../src/ingest/lines.store.js';
import {
  type EventRecord,
  type ExecutionRecord,
  type IngestRecord,
  type LogRecord,
  parseRecord,
} from '../../src/ingest/records.js';
import { recountRollups } from '../../src/ingest/recount.js';
import { pruneRecentRungs } from '../../src/rollups/rollup-upkeep.store.js';
import { openTestDatabase, type TestDatabase } from '../harness/database.js';
import { createTenant, STORABLE_TIMES, type Tenant } from '../harness/fixtures.js';
import { startServer } from '../harness/server.js';
import { buildDataset, type Dataset, readEverything } from '../ingest/dataset.js';
import { rollupDrift } from '../ingest/rollup-drift.js';

/**
 * Stores records as a database of the schema before partitioning holds them: the final state of
 * each uuid, each distinct line once in arrival order, and every rollup counted from those rows
 * by the rollup recount migration 0003 asks for (the same code ingestion keeps them with).
 */
async function storeBeforePartitioning(db: Database, raw: readonly unknown[]): Promise<void> {
  const records = raw.map((value) => parseRecord(value, STORABLE_TIMES));
  const of = <T extends IngestRecord['type']>(type: T) =>
    records.filter((r) => r.type === type) as Extract<IngestRecord, { type: T }>[];
  const last = <T extends { uuid: string }>(list: T[]) => [...new Map(list.map((r) => [r.uuid, r])).values()];
  const executions = new Map<string, ExecutionRecord>();
  for (const e of of('execution')) executions.set(e.uuid, mergeExecution(executions.get(e.uuid), e));
  const distinct = <T>(list: T[], row: (r: T) => RowValues<'workflow_execution_uuid' | 'line_hash'>) => {
    const seen = new Set<string>();
    return list.map(row).filter((values) => {
      const key = `${values.workflow_execution_uuid}/${Buffer.from(values.line_hash as Uint8Array).toString('hex')}`;
      return !seen.has(key) && seen.add(key);
    });
  };
  await db.transaction(async (tx) => {
    const insert = async (table: string, columns: Columns, rows: readonly RowValues[]) => {
      if (rows.length === 0) return;
      const statement = unnestInsert(table, columns, rows);
      await tx.query(statement.text, statement.params);
    };
    await insert('workflows', workflows.columnsWithout('updated_at'), last(of('workflow')).map(workflowRow));
    await insert(
      'deployments',
      deployments.columnsWithout('updated_at'),
      last(of('deployment')).map(deploymentRow),
    );
    await insert('executions', EXECUTION_COLUMNS, [...executions.values()].map(executionRow));
    await insert('execution_logs', LOG_COLUMNS, distinct(of('log') as LogRecord[], logRow));
    await insert('execution_events', EVENT_COLUMNS, distinct(of('event') as EventRecord[], eventRow));
    // Today's recount writes the error rows with their start, which version 8 adds (`if not
    // exists` there).
    await tx.query('alter table execution_error_groups add column if not exists started_at timestamptz');
    // And raises the rollup versions of the days it writes, a table version 15 adds (`if not
    // exists` there).
    const versions = (await loadMigrations()).find((m) => m.version.startsWith('0015'))!;
    for (const statement of splitStatements(versions.sql!)) await tx.query(statement);
    await recountAsBefore(tx);
  });
}

/**
 * Every rollup recounted as a version before 0017 kept them: the five-minute duration rows for
 * every bucket, which 0009 sums into its rows (0010 rebuilds the one-minute ones). Today's recount
 * writes them for every bucket when its clock stands before the first record.
 */
async function recountAsBefore(tx: Transaction): Promise<void> {
  const clock = Date.now;
  Date.now = () => Date.parse('2025-01-01T00:00:00Z');
  try {
    await recountRollups(tx);
  } finally {
    Date.now = clock;
  }
}

const iso = (s: string) => new Date(s).toISOString();

/** Records far from the dataset's month, so that the migration has several months to partition. */
function farRecords(tenant: Tenant, dataset: Dataset): Record<string, unknown>[] {
  const org = tenant.organizationId;
  const workflowUUID = dataset.workflows[0]!;
  const old = '7b0e9f3c-0000-4000-8000-000000000001';
  const future = '7b0e9f3c-0000-4000-8000-000000000002';
  return [
    {
      type: 'execution',
      organizationId: org,
      uuid: old,
      id: 'old-1',
      workflowUUID,
      status: 'FAILURE',
      startedAt: iso('2025-06-10T08:00:00Z'),
      finishedAt: iso('2025-06-10T08:00:03Z'),
      creditUsed: '0.25',
      errors: [{ error: 'out of gas: used 9 of 10', count: 1 }],
    },
    {
      type: 'execution',
      organizationId: org,
      uuid: future,
      id: 'future-1',
      workflowUUID,
      status: 'SUCCESS',
      startedAt: iso('2027-01-31T23:59:59Z'),
      finishedAt: iso('2027-02-01T00:00:01Z'),
    },
    // Two lines at one instant: their order is their arrival, which the migration must keep.
    {
      type: 'log',
      organizationId: org,
      workflowExecutionUUID: old,
      nodeID: 'n',
      message: 'second by time, first to arrive',
      timestamp: iso('2025-06-10T08:00:02Z'),
    },
    {
      type: 'log',
      organizationId: org,
      workflowExecutionUUID: old,
      nodeID: 'n',
      message: 'b arrives second',
      timestamp: iso('2025-06-10T08:00:01Z'),
    },
    {
      type: 'log',
      organizationId: org,
      workflowExecutionUUID: old,
      nodeID: 'n',
      message: 'a arrives third',
      timestamp: iso('2025-06-10T08:00:01Z'),
    },
    {
      type: 'event',
      organizationId: org,
      workflowExecutionUUID: old,
      capabilityID: 'cap-1@1.0.0',
      status: 'FAILED',
      startedAt: iso('2025-06-10T08:00:00.500Z'),
      finishedAt: iso('2025-06-10T08:00:02Z'),
    },
    // An event of an execution never stored: it waits for it across the migration.
    {
      type: 'event',
      organizationId: org,
      workflowExecutionUUID: '7b0e9f3c-0000-4000-8000-000000000003',
      capabilityID: 'cap-1@1.0.0',
      status: 'COMPLETED',
      startedAt: iso('2026-04-02T00:00:00Z'),
    },
  ];
}

const FAR_QUERIES = `query ($old: String!) {
  old: workflowExecution(input: { uuid: $old }) { data { uuid status startedAt errors { error count } } }
  oldLogs: workflowExecutionLogs(input: { workflowExecutionUUID: $old }) { data { message timestamp } }
  oldEvents: workflowExecutionEvents(input: { workflowExecutionUUID: $old }) { data { capabilityID status startedAt } }
  all: workflowExecutions(input: { from: "2025-01-01T00:00:00Z", to: "2028-01-01T00:00:00Z", page: { size: 100 } }) { count data { uuid startedAt } }
  year: workflowActivity(input: { from: "2025-01-01T00:00:00Z", to: "2027-06-01T00:00:00Z" }) { data { from successCount failureCount } }
  groups: errorGroups(input: { from: "2025-01-01T00:00:00Z", to: "2027-06-01T00:00:00Z", page: { size: 100 } }) { count data { fingerprint occurrences executionCount firstSeenAt lastSeenAt } }
  durations: durationStats(input: { from: "2025-01-01T00:00:00Z", to: "2027-06-01T00:00:00Z" }) { data { count minMs maxMs p50Ms p99Ms } }
  calls: capabilityStats(input: { from: "2025-01-01T00:00:00Z", to: "2027-06-01T00:00:00Z" }) { count data { capabilityID calls failures p95Ms } }
  search: searchExecutionLogs(input: { query: "arrive", from: "2025-01-01T00:00:00Z", to: "2027-06-01T00:00:00Z" }) { count data { message timestamp } }
}`;

describe('the partitioning migration (0006)', () => {
  let database: TestDatabase;
  before(async () => {
    database = await openTestDatabase({ migrate: false });
  });
  after(() => database?.close());

  it('answers every read query exactly as before, for every organization, with the rows in month partitions', async () => {
    const { db } = database;
    const all = await loadMigrations();
    await migrate(
      db,
      all.filter((m) => m.version < '0006'),
    );
    const acme = await createTenant(db, 'Acme');
    const globex = await createTenant(db, 'Globex');
    const shape = { workflows: 3, executionsPerWorkflow: 5, logsPerExecution: 3, eventsPerExecution: 3 };
    const acmeData = buildDataset(acme.organizationId, shape, 1);
    const globexData = buildDataset(globex.organizationId, shape, 2);
    await storeBeforePartitioning(db, [
      ...acmeData.records,
      ...farRecords(acme, acmeData),
      ...globexData.records,
    ]);
    const counts = async () =>
      Object.fromEntries(
        await Promise.all(
          [...PARTITIONED_TABLES.map((t) => t.table), 'orphan_event_executions', 'execution_rollups'].map(
            async (table) => [
              table,
              (await db.query<{ n: number }>(`select count(*)::int as n from ${table}`))[0]!.n,
            ],
          ),
        ),
      );
    const answers = async () => {
      const server = await startServer(db);
      try {
        return {
          acme: await readEverything(server, acme.key, acmeData),
          acmeFar: (await server.gql(acme.key, FAR_QUERIES, { old: '7b0e9f3c-0000-4000-8000-000000000001' }))
            .body,
          globex: await readEverything(server, globex.key, globexData),
          globexFar: (
            await server.gql(globex.key, FAR_QUERIES, { old: '7b0e9f3c-0000-4000-8000-000000000001' })
          ).body,
        };
      } finally {
        await server.close();
      }
    };
    const rowsBefore = await counts();
    // This checkout's list count reads where retention starts (0006's raw_retention, empty until
    // retention runs): an empty stand-in lets it read the schema before 0006 as that version did.
    await db.query('create table raw_retention (kept_from timestamptz not null)');
    // Its log search asks for lines by day and hour (0018's wfapi_log_spans, the migration's first
    // statement): the same function stands in.
    await db.query(splitStatements(all.find((m) => m.version.startsWith('0018'))!.sql!)[0]!);
    // Its executions list reads which workflows an organization awaits (0013's awaited_workflows):
    // the table, filled from the rows as that migration fills it, stands in.
    for (const statement of splitStatements(all.find((m) => m.version.startsWith('0013'))!.sql!))
      await db.query(statement);
    // Its error groups keep their sightings under a state that counts an organization's rows
    // waiting in 0006's DEFAULT partitions: empty stand-ins.
    for (const table of ['executions_default', 'execution_events_default'])
      await db.query(`create table ${table} (organization_id uuid not null)`);
    const before = await answers();
    // That server's rollup upkeep deleted the aged five-minute rows, as today's does once it has
    // migrated a database; the version before kept them.
    await db.transaction(recountAsBefore);
    for (const table of ['executions_default', 'execution_events_default'])
      await db.query(`drop table ${table}`);
    await db.query('drop table raw_retention');
    await db.query('drop function wfapi_log_spans(timestamptz)');
    await db.query('drop table awaited_workflows');
    assert.equal((before.acmeFar as { data: { oldLogs: { data: unknown[] } } }).data.oldLogs.data.length, 3);
    assert.equal((before.globexFar as { data: { old: { data: unknown } } }).data.old.data, null);

    // A trigger another migration (0004, 0005) may have put on a raw table survives the rebuild.
    await db.query('create table executions_seen (uuid uuid not null)');
    await db.query(
      `create function executions_seen() returns trigger language plpgsql as $$
       begin insert into executions_seen values (new.uuid); return null; end $$`,
    );
    await db.query(
      'create trigger executions_seen after insert on executions for each row execute function executions_seen()',
    );

    await migrate(db);

    assert.deepEqual(await counts(), rowsBefore);
    assert.deepEqual(await answers(), before);
    // One-minute (0010) and five-minute duration rows are there for every bucket; a server deletes
    // the aged ones once it starts (src/rollups/rollup-upkeep.store.ts).
    await pruneRecentRungs(db);
    const drift = await rollupDrift(db, 'kept by upkeep');
    assert.equal(drift.actual, drift.expected);
    const months = async (table: string) => (await monthPartitions(db, table)).map((p) => p.name);
    for (const name of ['executions_p202506', 'executions_p202603', 'executions_p202701']) {
      assert.ok((await months('executions')).includes(name), name);
    }
    assert.ok((await months('execution_events')).includes('execution_events_p202604'));
    assert.ok((await months('execution_logs')).includes('execution_logs_p202506'));
    const [inDefault] = await db.query<{ n: number }>(
      `select (select count(*) from executions_default) + (select count(*) from execution_logs_default)
              + (select count(*) from execution_events_default) as n`,
    );
    assert.equal(Number(inDefault!.n), 0);
    const [trigger] = await db.query<{ n: number }>(
      `select count(*)::int as n from pg_trigger where tgrelid = 'executions'::regclass and tgname = 'executions_seen'`,
    );
    assert.equal(trigger!.n, 1);
    const [keys] = await db.query<{ n: number }>('select count(*)::int as n from execution_keys');
    assert.equal(keys!.n, rowsBefore.executions);
  });
});
