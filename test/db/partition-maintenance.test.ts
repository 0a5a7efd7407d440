/**
 * No stored row and no single partition can stop partition maintenance: a row dated 9999 (which
 * an older version accepted) once stopped the whole round for every organization, retention and
 * the coming months' partitions with it. Each partition's work is its own; a failure is reported
 * with the partition's name, and the rest of the round goes on.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { PartitionMaintainer } from '../../src/db/partition-maintainer.js';
import { type MaintenanceResult, maintainPartitions, monthPartitions } from '../../src/db/partitions.js';
import { openTestDatabase, type TestDatabase } from '../harness/database.js';
import { createTenant, execution, ingest, log, workflow } from '../harness/fixtures.js';

/** The instant the rounds run at: December 2026, so January and February 2027 are the months ahead. */
const NOW = Date.parse('2026-12-02T00:00:00Z');

describe('partition maintenance', () => {
  let database: TestDatabase;
  before(async () => {
    database = await openTestDatabase();
  });
  afterEach(async () => {
    await database.db.query('drop view if exists wfapi_test_pins_march');
    await database.db.query('drop table if exists execution_logs_p202702');
    await database.db.query('drop table if exists execution_logs_p202705');
    await database.reset();
  });
  after(async () => {
    await database?.close();
  });

  const names = async (table: string) => (await monthPartitions(database.db, table)).map((p) => p.name);

  /** An organization's executions, logs and a workflow, stored as an older version stored them. */
  async function storeOld(startedAt: readonly string[]) {
    const tenant = await createTenant(database.db);
    const org = tenant.organizationId;
    const wf = workflow(org, { registeredAt: '2026-01-01T00:00:00Z' });
    const records: Record<string, unknown>[] = [wf];
    for (const at of startedAt) {
      const e = execution(org, wf.uuid as string, { startedAt: at });
      records.push(e, log(org, e.uuid as string, { timestamp: at }));
    }
    await ingest(database.db, records);
    return org;
  }

  it('keeps creating the coming months and applying retention when rows dated 9999 and 1970 are stored', async () => {
    const { db } = database;
    await storeOld(['9999-12-31T23:59:59.999Z', '9999-06-15T00:00:00Z', '1970-01-01T00:00:00Z']);
    // Rows moved with plain SQL, past any check of this version: a log line to the last instant.
    await db.query(
      `update execution_logs set timestamp = '9999-12-31T23:59:59.999Z' where timestamp = '1970-01-01T00:00:00Z'`,
    );
    const [far] = await db.query<{ n: number }>(
      `select count(*)::int as n from execution_logs where timestamp >= '9999-01-01'`,
    );
    assert.equal(far!.n, 3);

    const result = await maintainPartitions(db, { now: NOW, retentionDays: 30 });
    assert.deepEqual(result.failed, [], JSON.stringify(result.failed));
    for (const table of ['executions', 'execution_logs', 'execution_events']) {
      const made = await names(table);
      for (const month of ['202612', '202701', '202702'])
        assert.ok(made.includes(`${table}_p${month}`), `${table} ${month}`);
    }
    // Retention (30 days from December 2026) removed what was before November, 1970 included.
    const [old] = await db.query<{ n: number }>(
      `select count(*)::int as n from executions where started_at < '2000-01-01'`,
    );
    assert.equal(old!.n, 0);
    // A second round finds nothing to do and fails nowhere.
    const again = await maintainPartitions(db, { now: NOW, retentionDays: 30 });
    assert.deepEqual(again.failed, []);
    assert.deepEqual(again.created, []);
  });

  it('goes on with every other partition when one cannot be created or dropped, naming the one that failed', async () => {
    const { db } = database;
    await storeOld(['2026-03-10T00:00:00Z', '2026-04-10T00:00:00Z']);
    await maintainPartitions(db, { now: Date.parse('2026-04-15T00:00:00Z') });
    assert.ok((await names('executions')).includes('executions_p202603'));
    // A view that depends on March's partition: dropping it fails.
    await db.query('create view wfapi_test_pins_march as select * from executions_p202603');
    // A stray table under the name of February 2027's logs partition: creating it fails.
    await db.query('create table execution_logs_p202702 (x int)');

    const result: MaintenanceResult = await maintainPartitions(db, { now: NOW, retentionDays: 30 });
    assert.deepEqual(
      result.failed.map((f) => f.partition).sort(),
      ['execution_logs_p202702', 'executions_p202603'],
      JSON.stringify(result.failed),
    );
    assert.ok(result.failed.every((f) => f.error.length > 0));
    assert.ok(result.dropped.includes('executions_p202604'), JSON.stringify(result));
    assert.ok(result.dropped.includes('execution_logs_p202603'));
    assert.ok((await names('executions')).includes('executions_p202702'));
    assert.ok((await names('execution_events')).includes('execution_events_p202702'));
    assert.ok(!(await names('execution_logs')).includes('execution_logs_p202702'));
    assert.ok((await names('executions')).includes('executions_p202603'));
    assert.ok(!(await names('executions')).includes('executions_p202604'));
  });

  it("reports each failed partition by name to the maintainer's report, and still reports the round", async () => {
    const { db } = database;
    await db.query('create table execution_logs_p202705 (x int)');
    const outcomes: Array<{ result?: MaintenanceResult; error?: unknown }> = [];
    const maintainer = new PartitionMaintainer(
      db,
      { everyMs: 3_600_000, retentionDays: undefined, now: () => Date.parse('2027-03-02T00:00:00Z') },
      (outcome) => outcomes.push(outcome),
    );
    await maintainer.runOnce();
    await maintainer.stop();
    assert.equal(outcomes.length, 1);
    assert.equal(outcomes[0]!.error, undefined);
    assert.deepEqual(
      outcomes[0]!.result!.failed.map((f) => f.partition),
      ['execution_logs_p202705'],
    );
    assert.ok(outcomes[0]!.result!.created.includes('executions_p202705'));
  });
});
