import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { maintainPartitions, monthPartitions, PARTITIONED_TABLES } from '../../src/db/partitions.js';
import { ingestBatch } from '../../src/ingest/ingest.store.js';
import { parseRecord } from '../../src/ingest/records.js';
import { openTestDatabase, type TestDatabase } from '../harness/database.js';
import { createTenant, event, execution, ingest, log, type Tenant, workflow } from '../harness/fixtures.js';
import { startServer, type TestServer } from '../harness/server.js';

/** The instant retention runs at in these tests, and what 60 days then keep: May 2026 onwards. */
const NOW = Date.parse('2026-07-15T00:00:00Z');
const RETENTION_DAYS = 60;
const MONTHS = ['2026-03', '2026-04', '2026-05', '2026-06', '2026-07'];
const DROPPED = ['2026-03', '2026-04'];

const WINDOW = 'from: "2026-03-01T00:00:00Z", to: "2026-07-31T00:00:00Z"';

/** Every aggregate over the whole period: the counts of section 1 and the insight of section 5. */
const AGGREGATES = `query ($wf: String!) {
  workflows(input: { page: { size: 100 } }) { count data { uuid executionCount executionCountByStatus { success failure }
    creditUsed hasTeeExecutions hasNonTeeExecutions } }
  workflow(input: { uuid: $wf, from: "2026-01-01T00:00:00Z" }) { data { executionCount executionCountByStatus { success failure } creditUsed } }
  april: workflow(input: { uuid: $wf, from: "2026-04-10T08:05:00Z" }) { data { executionCount creditUsed } }
  activity: workflowActivity(input: { ${WINDOW} }) { data { from to successCount failureCount } }
  march: workflowActivity(input: { workflowUUID: $wf, from: "2026-03-10T08:00:00Z", to: "2026-03-10T09:00:00Z" }) { data { from successCount failureCount } }
  errorGroups(input: { ${WINDOW}, page: { size: 100 } }) { count data { fingerprint pattern sampleMessage occurrences
    executionCount workflowCount capabilityIDs firstSeenAt lastSeenAt activity { from to occurrences } } }
  marchGroups: errorGroups(input: { from: "2026-03-01T00:00:00Z", to: "2026-03-31T00:00:00Z" }) { count data { fingerprint occurrences firstSeenAt lastSeenAt sampleMessage } }
  durationStats(input: { ${WINDOW} }) { data { count minMs maxMs meanMs p50Ms p90Ms p99Ms histogram { fromMs toMs count } } }
  calls: durationStats(input: { capabilityID: "evm-write@1.0.0", ${WINDOW} }) { data { count minMs maxMs p50Ms } }
  capabilityStats(input: { ${WINDOW}, page: { size: 100 } }) { count data { capabilityID calls failures failureRate p50Ms p95Ms } }
}`;

const LISTS = `query ($old: String!, $kept: String!) {
  workflowExecutions(input: { ${WINDOW}, page: { size: 100 } }) { count data { uuid startedAt } }
  oldest: workflowExecutions(input: { ${WINDOW}, orderBy: { field: STARTED_AT, order: ASC }, page: { size: 1 } }) { data { startedAt } }
  april: workflowExecutions(input: { from: "2026-04-01T00:00:00Z", to: "2026-04-30T00:00:00Z" }) { count data { uuid } }
  old: workflowExecution(input: { uuid: $old }) { data { uuid } }
  oldLogs: workflowExecutionLogs(input: { workflowExecutionUUID: $old }) { data { message } }
  oldEvents: workflowExecutionEvents(input: { workflowExecutionUUID: $old }) { data { status } }
  kept: workflowExecution(input: { uuid: $kept }) { data { uuid status } }
  keptLogs: workflowExecutionLogs(input: { workflowExecutionUUID: $kept }) { data { message } }
  search: searchExecutionLogs(input: { query: "step of", ${WINDOW}, page: { size: 100 } }) { count data { message } }
}`;

interface Seeded {
  readonly workflowUUID: string;
  readonly byMonth: Map<string, string[]>;
}

/** Four executions on the 10th of each month, at aligned five-minute starts, with a log line and a call each. */
async function seed(db: TestDatabase['db'], tenant: Tenant, months: readonly string[]): Promise<Seeded> {
  const org = tenant.organizationId;
  const wf = workflow(org, { registeredAt: '2026-01-01T00:00:00Z' });
  const records: Record<string, unknown>[] = [wf];
  const byMonth = new Map<string, string[]>();
  for (const [m, month] of months.entries()) {
    for (let k = 0; k < 4; k++) {
      const start = Date.parse(`${month}-10T08:00:00Z`) + k * 5 * 60_000;
      const failed = k % 2 === 1;
      const e = execution(org, wf.uuid as string, {
        status: failed ? 'FAILURE' : 'SUCCESS',
        startedAt: new Date(start).toISOString(),
        finishedAt: new Date(start + (m + 1) * 1000 + k * 250).toISOString(),
        creditUsed: `${m + k}.5`,
        executedInTee: k === 0,
        ...(failed
          ? {
              errors: [
                { error: `out of gas: used ${m * 10 + k} of 100`, count: k },
                // A group only the first month has: once that month is dropped, its last sighting
                // and sample come from what is kept with the group.
                ...(m === 0 ? [{ error: `nonce too low: next is ${k}`, count: 1 }] : []),
              ],
            }
          : {}),
      });
      byMonth.set(month, [...(byMonth.get(month) ?? []), e.uuid as string]);
      records.push(
        e,
        log(org, e.uuid as string, {
          message: `step of ${month} #${k}`,
          timestamp: new Date(start + 100).toISOString(),
        }),
        event(org, e.uuid as string, {
          capabilityID: 'evm-write@1.0.0',
          status: failed ? 'FAILED' : 'COMPLETED',
          startedAt: new Date(start + 10).toISOString(),
          finishedAt: new Date(start + 10 + (k + 1) * 400).toISOString(),
          ...(failed ? { errors: [{ error: `revert 0x${m}${k}ab`, count: 1 }] } : {}),
        }),
      );
    }
  }
  await ingest(db, records);
  return { workflowUUID: wf.uuid as string, byMonth };
}

describe('retention', () => {
  let database: TestDatabase;
  let server: TestServer;
  before(async () => {
    database = await openTestDatabase();
    server = await startServer(database.db);
  });
  after(async () => {
    await server?.close();
    await database?.close();
  });

  const ask = async (tenant: Tenant, query: string, variables: Record<string, unknown>) => {
    const answer = await server.gql(tenant.key, query, variables);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.errors, undefined, JSON.stringify(answer.body.errors));
    return answer.body.data;
  };

  it('drops whole month partitions before the kept period while every aggregate still answers, and lists show what remains', async () => {
    const { db } = database;
    const acme = await createTenant(db, 'Acme');
    const globex = await createTenant(db, 'Globex');
    const a = await seed(db, acme, MONTHS);
    const g = await seed(db, globex, ['2026-03', '2026-06']);

    // The months had no partitions: their rows waited in DEFAULT, and upkeep gives each its own.
    const moved = await maintainPartitions(db, { now: NOW });
    for (const { table } of PARTITIONED_TABLES) {
      const names = (await monthPartitions(db, table)).map((p) => p.name);
      for (const month of MONTHS)
        assert.ok(names.includes(`${table}_p${month.replace('-', '')}`), `${table} ${month}`);
      const [inDefault] = await db.query<{ n: number }>(`select count(*)::int as n from ${table}_default`);
      assert.equal(inDefault!.n, 0, `${table}_default`);
    }
    assert.ok(moved.created.includes('executions_p202603'));

    const oldA = a.byMonth.get('2026-03')![1]!;
    const keptA = a.byMonth.get('2026-06')![1]!;
    const aggregatesBefore = await ask(acme, AGGREGATES, { wf: a.workflowUUID });
    const globexBefore = await ask(globex, AGGREGATES, { wf: g.workflowUUID });
    const listsBefore = await ask(acme, LISTS, { old: oldA, kept: keptA });
    assert.equal(listsBefore.workflowExecutions.count, 20);
    assert.equal(listsBefore.old.data.uuid, oldA);
    assert.ok(aggregatesBefore.marchGroups.count > 0);

    const result = await maintainPartitions(db, { now: NOW, retentionDays: RETENTION_DAYS });
    const droppedNames = PARTITIONED_TABLES.flatMap(({ table }) =>
      DROPPED.map((month) => `${table}_p${month.replace('-', '')}`),
    );
    assert.deepEqual([...result.dropped].sort(), droppedNames.sort());
    const tables = new Set(
      (
        await db.query<{ relname: string }>('select relname from pg_class where relkind in ($1, $2)', [
          'r',
          'p',
        ])
      ).map((row) => row.relname),
    );
    for (const name of droppedNames) assert.ok(!tables.has(name), `${name} is gone`);
    assert.ok(tables.has('executions_p202605'));

    // Counts, activity and every section 5 aggregate over the dropped months answer as before.
    assert.deepEqual(await ask(acme, AGGREGATES, { wf: a.workflowUUID }), aggregatesBefore);
    assert.deepEqual(await ask(globex, AGGREGATES, { wf: g.workflowUUID }), globexBefore);

    // Lists and single lookups show what remains: May, June and July.
    const lists = await ask(acme, LISTS, { old: oldA, kept: keptA });
    const remaining = ['2026-05', '2026-06', '2026-07'].flatMap((month) => a.byMonth.get(month)!);
    assert.equal(lists.workflowExecutions.count, remaining.length);
    assert.deepEqual(
      lists.workflowExecutions.data.map((e: { uuid: string }) => e.uuid).sort(),
      [...remaining].sort(),
    );
    assert.equal(lists.oldest.data[0].startedAt, '2026-05-10T08:00:00Z');
    assert.deepEqual(lists.april, { count: 0, data: [] });
    assert.equal(lists.old.data, null);
    assert.equal(lists.oldLogs.data, null);
    assert.equal(lists.oldEvents.data, null);
    assert.deepEqual(lists.kept, listsBefore.kept);
    assert.deepEqual(lists.keptLogs, listsBefore.keptLogs);
    assert.equal(lists.search.count, remaining.length);

    // Tenancy holds: Globex's March is gone for Globex, and nothing of Acme's shows to Globex.
    const globexLists = await ask(globex, LISTS, { old: oldA, kept: keptA });
    assert.equal(globexLists.workflowExecutions.count, 4);
    assert.equal(globexLists.kept.data, null);
    assert.equal(globexLists.search.count, 4);
  });

  it("dates a group seen only in dropped rows by its bucket's start once they are gone, though read before", async () => {
    const { db } = database;
    const tenant = await createTenant(db, 'Soylent');
    const a = await seed(db, tenant, ['2026-06']);
    const MONTH = `query ($from: Time!, $to: Time!) { errorGroups(input: { from: $from, to: $to }) {
      data { occurrences firstSeenAt lastSeenAt sampleMessage } } }`;
    /** A failure off the five-minute grid (only the execution itself knows its start), and its month's groups. */
    const lone = async (startedAt: string, error: string) => {
      await ingest(db, [
        execution(tenant.organizationId, a.workflowUUID, {
          status: 'FAILURE',
          startedAt,
          errors: [{ error, count: 1 }],
        }),
      ]);
      const month = startedAt.slice(0, 8);
      return async () =>
        (await ask(tenant, MONTH, { from: `${month}01T00:00:00Z`, to: `${month}28T00:00:00Z` })).errorGroups
          .data;
    };
    const seen = (error: string, at: string) => [
      { occurrences: 1, sampleMessage: error, firstSeenAt: at, lastSeenAt: at },
    ];

    // In a month partition of its own, which retention drops.
    const march = await lone('2026-03-10T08:02:30Z', 'quota exceeded for key 17');
    await maintainPartitions(db, { now: NOW });
    assert.deepEqual(await march(), seen('quota exceeded for key 17', '2026-03-10T08:02:30Z'));
    await maintainPartitions(db, { now: NOW, retentionDays: RETENTION_DAYS });
    // The rollups and the group's stored sample outlive the execution; its start does not.
    assert.deepEqual(await march(), seen('quota exceeded for key 17', '2026-03-10T08:00:00Z'));

    // Waiting in DEFAULT (its month has no partition now), where retention deletes it.
    const april = await lone('2026-04-10T08:07:30Z', 'lease lost on shard 4');
    assert.deepEqual(await april(), seen('lease lost on shard 4', '2026-04-10T08:07:30Z'));
    await maintainPartitions(db, { now: NOW, retentionDays: RETENTION_DAYS });
    assert.deepEqual(await april(), seen('lease lost on shard 4', '2026-04-10T08:05:00Z'));
  });

  it('ignores re-sent records of a dropped execution: nothing is counted twice and nothing reappears', async () => {
    const { db } = database;
    const acme = await createTenant(db, 'Initech');
    const other = await createTenant(db, 'Hooli');
    const a = await seed(db, acme, ['2026-03', '2026-06']);
    await maintainPartitions(db, { now: NOW, retentionDays: RETENTION_DAYS });
    const before = await ask(acme, AGGREGATES, { wf: a.workflowUUID });
    const old = a.byMonth.get('2026-03')![0]!;
    await ingest(db, [
      // The same execution again, in a later state and another time: still the dropped one.
      execution(acme.organizationId, a.workflowUUID, {
        uuid: old,
        status: 'FAILURE',
        startedAt: '2026-06-20T00:00:00Z',
        errors: [{ error: 'late', count: 1 }],
      }),
      log(acme.organizationId, old, { message: 'step of 2026-03 #0', timestamp: '2026-03-10T08:00:00.100Z' }),
      event(acme.organizationId, old, {
        capabilityID: 'evm-write@1.0.0',
        startedAt: '2026-03-10T08:00:00.010Z',
      }),
    ]);
    assert.deepEqual(await ask(acme, AGGREGATES, { wf: a.workflowUUID }), before);
    const lists = await ask(acme, LISTS, { old, kept: old });
    assert.equal(lists.old.data, null);
    assert.equal(lists.oldLogs.data, null);
    // Its uuid still belongs to its organization.
    const claimed = await ingestBatch(
      db,
      [
        {
          line: 1,
          record: parseRecord(
            execution(other.organizationId, '00000000-0000-4000-8000-00000000abcd', { uuid: old }),
          ),
        },
      ],
      { observers: [] },
    );
    assert.deepEqual(claimed.rejected, [{ line: 1, error: `uuid ${old} belongs to another organization` }]);
  });

  it('counts a new execution that arrives late for a dropped month, and keeps only its rollups', async () => {
    const { db } = database;
    const tenant = await createTenant(db, 'Umbrella');
    const a = await seed(db, tenant, ['2026-06']);
    await maintainPartitions(db, { now: NOW, retentionDays: RETENTION_DAYS });
    const late = execution(tenant.organizationId, a.workflowUUID, { startedAt: '2026-02-10T00:00:00Z' });
    await ingest(db, [late]);
    const counted = await ask(tenant, AGGREGATES, { wf: a.workflowUUID });
    assert.equal(counted.workflow.data.executionCount, 5);
    const result = await maintainPartitions(db, { now: NOW, retentionDays: RETENTION_DAYS });
    assert.equal(result.defaultRowsDeleted, 1);
    assert.deepEqual(await ask(tenant, AGGREGATES, { wf: a.workflowUUID }), counted);
    const lists = await ask(tenant, LISTS, { old: late.uuid, kept: late.uuid });
    assert.equal(lists.old.data, null);
    assert.equal(lists.workflowExecutions.count, 4);
  });
});
