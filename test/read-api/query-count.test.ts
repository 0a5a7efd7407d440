import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countingDatabase } from '../harness/counting-database.js';
import { openTestDatabase, type TestDatabase } from '../harness/database.js';
import {
  createTenant,
  deployment,
  execution,
  ingest,
  log,
  type Tenant,
  workflow,
} from '../harness/fixtures.js';
import { startServer, type TestServer } from '../harness/server.js';
import { dataOf } from './graphql-assertions.js';

const WORKFLOW_FIELDS = `uuid ownerAddress name workflowId status registeredAt creditUsed executedAt executionCount
  executionCountByStatus { success failure } workflowSource hasTeeExecutions hasNonTeeExecutions`;
const DEPLOYMENT_FIELDS = `uuid workflowID status deployedAt txHash errorMessage binaryURL configURL
  executionCountByStatus { success failure } workflowSource hasTeeExecutions hasNonTeeExecutions`;

describe('SQL statements per page', () => {
  let database: TestDatabase;
  let counter: ReturnType<typeof countingDatabase>;
  let server: TestServer;
  let tenant: Tenant;
  let busyWorkflow: string;
  let quietWorkflows: string[];

  before(async () => {
    database = await openTestDatabase();
    counter = countingDatabase(database.db);
    // Key use is written on a timer; keep it out of the counted window. Every request reads its
    // key (no credential cache), so that requests compare alike whichever comes first.
    // No alert worker: its polls would be counted with the reads. No rollup answers kept, so
    // that a request sends the same statements whichever came before it (what the cache adds and
    // saves is counted in test/insight/rollup-cache.test.ts).
    server = await startServer(counter.db, {
      keyUsageFlushMs: 3_600_000,
      authCacheMs: 0,
      alerts: { worker: false },
      limits: { rollupCacheMb: 0 },
    });
    tenant = await createTenant(database.db);
    const org = tenant.organizationId;
    const workflows = Array.from({ length: 120 }, (_, i) =>
      workflow(org, { registeredAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString() }),
    );
    busyWorkflow = workflows[0]!.uuid as string;
    quietWorkflows = workflows.slice(1, 10).map((wf) => wf.uuid as string);
    const records: Record<string, unknown>[] = [...workflows];
    for (const [i, wf] of workflows.entries()) {
      const w = wf.uuid as string;
      records.push(deployment(org, w, { deployedAt: '2026-01-01T00:00:00Z' }));
      records.push(deployment(org, w, { deployedAt: '2026-01-02T00:00:00Z', status: 'PAUSED' }));
      records.push(execution(org, w, { startedAt: '2026-01-01T12:00:00Z', creditUsed: '0.5' }));
      records.push(
        execution(org, w, {
          startedAt: '2026-01-03T00:07:00Z',
          status: 'FAILURE',
          executedInTee: i % 2 === 0,
        }),
      );
    }
    for (let i = 0; i < 120; i++) {
      records.push(
        deployment(org, busyWorkflow, {
          deployedAt: new Date(Date.UTC(2026, 1, 1) + i * 3_600_000).toISOString(),
        }),
      );
      records.push(
        execution(org, busyWorkflow, {
          startedAt: new Date(Date.UTC(2026, 1, 1) + i * 3_600_000 + 1).toISOString(),
        }),
      );
    }
    await ingest(database.db, records);
  });

  after(async () => {
    await server?.close();
    await database?.close();
  });

  async function statementsFor(query: string, variables: Record<string, unknown>) {
    counter.take();
    const data = dataOf(await server.gql(tenant.key, query, variables));
    return { data, statements: counter.take() };
  }

  it('costs the same number of statements for 10 and for 100 workflows with every aggregate', async () => {
    for (const orderBy of [null, { field: 'EXECUTED_AT', order: 'DESC' }, { field: 'NAME', order: 'ASC' }]) {
      const query = `query($size: Int!, $orderBy: WorkflowOrderBy) {
        workflows(input: {orderBy: $orderBy, page: {size: $size}}) { count data { ${WORKFLOW_FIELDS} } } }`;
      const ten = await statementsFor(query, { size: 10, orderBy });
      const hundred = await statementsFor(query, { size: 100, orderBy });
      assert.equal(ten.data.workflows.data.length, 10);
      assert.equal(hundred.data.workflows.data.length, 100);
      assert.ok(hundred.data.workflows.data.every((w: { executionCount: number }) => w.executionCount >= 2));
      assert.equal(hundred.statements.length, ten.statements.length, hundred.statements.join('\n---\n'));
      assert.ok(ten.statements.length <= 6, `${ten.statements.length} statements`);
    }
  });

  it("counts a request's 30 aliased workflowExecutions, over different workflows, statuses and windows, in as many statements as one", async () => {
    // Each of the ten workflows asked with three of the status sets and three of the windows
    // (every quiet workflow ran once at Jan 1 12:00 and failed once at Jan 3 00:07; the busy one
    // also ran 120 times in February); the windows' edges fall inside rollup buckets.
    const statusSets = [null, ['SUCCESS'], ['FAILURE'], ['FAILURE', 'SUCCESS'], ['IN_PROGRESS']];
    const windows = [
      { from: '2026-01-01T00:00:00Z', to: '2026-01-01T23:59:59.999Z' },
      { from: '2026-01-01T11:59:30Z', to: '2026-01-03T00:07:00Z' },
      { from: '2026-01-01T12:00:00.001Z', to: '2026-02-03T05:30:00Z' },
    ];
    const asked = [busyWorkflow, ...quietWorkflows].flatMap((w, i) =>
      [0, 1, 2].map((j) => ({ w, status: statusSets[(i + j) % 5]!, ...windows[(i + 2 * j) % 3]! })),
    );
    assert.equal(asked.length, 30);
    const field = (n: number) => {
      const { status } = asked[n]!;
      return `c${n}: workflowExecutions(input: {workflowUuid: $w${n}, from: $from${n}, to: $to${n}${
        status === null ? '' : `, status: [${status.join(', ')}]`
      }, page: {size: 1}}) { count }`;
    };
    const request = (ns: number[]) => {
      const variables = ns.map((n) => `$w${n}: String!, $from${n}: Time!, $to${n}: Time!`).join(', ');
      return statementsFor(
        `query(${variables}) { ${ns.map(field).join('\n')} }`,
        Object.fromEntries(
          ns.flatMap((n) => [
            [`w${n}`, asked[n]!.w],
            [`from${n}`, asked[n]!.from],
            [`to${n}`, asked[n]!.to],
          ]),
        ),
      );
    };
    const all = await request(asked.map((_, n) => n));
    const alone = [];
    for (const n of asked.keys()) alone.push(await request([n]));
    assert.deepEqual(
      asked.map((_, n) => all.data[`c${n}`].count),
      alone.map((one, n) => one.data[`c${n}`].count),
    );
    // What the fixtures hold, so that the comparison above is not between two wrong answers.
    const expected = ({ w, status, from, to }: (typeof asked)[number]) => {
      const runs = [
        { at: '2026-01-01T12:00:00Z', status: 'SUCCESS' },
        { at: '2026-01-03T00:07:00Z', status: 'FAILURE' },
        ...(w === busyWorkflow
          ? Array.from({ length: 120 }, (_, i) => ({
              at: new Date(Date.UTC(2026, 1, 1) + i * 3_600_000 + 1).toISOString(),
              status: 'SUCCESS',
            }))
          : []),
      ];
      return runs.filter(
        (run) =>
          Date.parse(run.at) >= Date.parse(from) &&
          Date.parse(run.at) <= Date.parse(to) &&
          (status === null || status.includes(run.status)),
      ).length;
    };
    assert.deepEqual(
      asked.map((_, n) => all.data[`c${n}`].count),
      asked.map(expected),
    );
    assert.ok(asked.some((a, n) => a.w === busyWorkflow && all.data[`c${n}`].count > 50));
    const statements = alone.map((one) => one.statements.length);
    assert.ok(
      statements.every((count) => count === all.statements.length),
      `30 aliases: ${all.statements.length} statements, one alone: ${statements.join(' ')}\n${all.statements.join('\n---\n')}`,
    );
    assert.ok(all.statements.length <= 3, all.statements.join('\n---\n'));
  });

  it('computes only the requested fields: no aggregate or count query for a bare page', async () => {
    const aggregate = /workflow_rollups|execution_rollups|from executions|count\(\*\)/i;
    const workflows = await statementsFor(
      '{ workflows(input: {page: {size: 100}}) { data { uuid name status } } }',
      {},
    );
    assert.equal(workflows.data.workflows.data.length, 100);
    assert.deepEqual(
      workflows.statements.filter((sql) => aggregate.test(sql)),
      [],
    );
    const deployments = await statementsFor(
      'query($w: String!) { workflowDeployments(input: {workflowUUID: $w, page: {size: 100}}) { data { uuid txHash } } }',
      { w: busyWorkflow },
    );
    assert.equal(deployments.data.workflowDeployments.data.length, 100);
    assert.deepEqual(
      deployments.statements.filter((sql) => aggregate.test(sql)),
      [],
    );
    const counted = await statementsFor('{ workflows(input: {}) { count } }', {});
    assert.equal(counted.statements.filter((sql) => aggregate.test(sql)).length, 1);
  });

  it('costs the same number of statements for 10 and for 100 deployments with their reign counts', async () => {
    const query = `query($w: String!, $size: Int!) {
      workflowDeployments(input: {workflowUUID: $w, page: {size: $size}}) { count data { ${DEPLOYMENT_FIELDS} } } }`;
    const ten = await statementsFor(query, { w: busyWorkflow, size: 10 });
    const hundred = await statementsFor(query, { w: busyWorkflow, size: 100 });
    assert.equal(hundred.data.workflowDeployments.data.length, 100);
    assert.deepEqual(hundred.data.workflowDeployments.data[0].executionCountByStatus, {
      success: 1,
      failure: 0,
    });
    assert.equal(hundred.statements.length, ten.statements.length, hundred.statements.join('\n---\n'));
    assert.ok(ten.statements.length <= 5, `${ten.statements.length} statements`);
  });

  it("reads an execution's logs or events, its visibility included, in one statement besides the key", async () => {
    const { data: page } = await statementsFor(
      'query($w: String!) { workflowExecutions(input: {workflowUuid: $w, page: {size: 1}}) { data { uuid } } }',
      { w: busyWorkflow },
    );
    const uuid = page.workflowExecutions.data[0].uuid as string;
    const isKeyRead = (sql: string) => /from api_keys/.test(sql);
    for (const field of ['workflowExecutionLogs', 'workflowExecutionEvents']) {
      const query = `query($u: String!) { ${field}(input: {workflowExecutionUUID: $u}) { data { __typename } } }`;
      const known = await statementsFor(query, { u: uuid });
      assert.deepEqual(known.data[field].data, []);
      assert.equal(
        known.statements.filter((sql) => !isKeyRead(sql)).length,
        1,
        known.statements.join('\n---\n'),
      );
      const unknown = await statementsFor(query, { u: '00000000-0000-4000-8000-000000000000' });
      assert.equal(unknown.data[field].data, null);
      assert.equal(unknown.statements.filter((sql) => !isKeyRead(sql)).length, 1);
    }
  });

  it('ranks error groups and reads where each was seen in one statement, and each detail in one more', async () => {
    const org = tenant.organizationId;
    const [one, two] = [workflow(org), workflow(org)];
    const startedAt = (minute: number) => new Date(Date.UTC(2026, 3, 1, 0, minute)).toISOString();
    await ingest(database.db, [
      one,
      two,
      ...[one, two].flatMap((wf, i) =>
        [1, 2, 3].map((n) =>
          execution(org, wf.uuid as string, {
            status: 'FAILURE',
            startedAt: startedAt(10 * n + i),
            errors: [{ error: `rpc timeout after ${n} s`, count: n }],
          }),
        ),
      ),
    ]);
    const input = { from: '2026-04-01T00:00:00Z', to: '2026-04-01T06:00:00Z' };
    const reads = (statements: string[]) => statements.filter((sql) => /error_group/.test(sql));
    for (const [fields, statementCount] of [
      ['count data { fingerprint occurrences workflowCount capabilityIDs }', 1],
      ['count data { fingerprint occurrences }', 1],
      ['count data { fingerprint occurrences workflowCount firstSeenAt activity { occurrences } }', 3],
    ] as const) {
      const { data, statements } = await statementsFor(
        `query($input: ErrorGroupsInput!) { errorGroups(input: $input) { ${fields} } }`,
        { input },
      );
      const [group] = data.errorGroups.data;
      assert.equal(data.errorGroups.count, 1);
      assert.equal(group.occurrences, 12);
      if ('workflowCount' in group) assert.equal(group.workflowCount, 2);
      assert.equal(reads(statements).length, statementCount, `${fields}:\n${statements.join('\n---\n')}`);
    }
  });

  it("reads the details of deploymentImpact's error groups in one statement, whatever the number of deployments", async () => {
    const org = tenant.organizationId;
    const wf = workflow(org);
    const w = wf.uuid as string;
    const at = (day: number, minute = 0) => new Date(Date.UTC(2026, 4, day, 0, minute)).toISOString();
    // Three deployments a day apart; after each, failures with an error never seen before it.
    const records: Record<string, unknown>[] = [wf];
    // Messages apart in more than their variable parts: each its own error group.
    const message = (day: number) => ['disk full', 'quota exceeded', 'signature invalid'][day - 1]!;
    for (const day of [1, 2, 3]) {
      records.push(deployment(org, w, { deployedAt: at(day) }));
      for (const minute of [10, 20])
        records.push(
          execution(org, w, {
            status: 'FAILURE',
            startedAt: at(day, minute),
            errors: [{ error: message(day), count: 1 }],
          }),
        );
    }
    await ingest(database.db, records);
    const query = `query($input: DeploymentImpactInput!) { deploymentImpact(input: $input) {
      data { newErrorGroups { fingerprint sampleMessage firstSeenAt lastSeenAt } } } }`;
    const sightings = (statements: string[]) => statements.filter((sql) => /first_seen_at/.test(sql));
    const one = await statementsFor(query, { input: { workflowUUID: w, page: { size: 1 } } });
    const three = await statementsFor(query, { input: { workflowUUID: w, page: { size: 3 } } });
    assert.deepEqual(
      three.data.deploymentImpact.data.map((d: { newErrorGroups: Array<{ sampleMessage: string }> }) =>
        d.newErrorGroups.map((g) => g.sampleMessage),
      ),
      [['signature invalid'], ['quota exceeded'], ['disk full']],
    );
    assert.equal(sightings(one.statements).length, 1, one.statements.join('\n---\n'));
    assert.equal(sightings(three.statements).length, 1, three.statements.join('\n---\n'));
    assert.equal(three.statements.length, one.statements.length, three.statements.join('\n---\n'));
  });

  it('searches logs for a page and its count in one statement, and for either alone in one', async () => {
    const { data: page } = await statementsFor(
      'query($w: String!) { workflowExecutions(input: {workflowUuid: $w, page: {size: 1}}) { data { uuid } } }',
      { w: busyWorkflow },
    );
    const uuid = page.workflowExecutions.data[0].uuid as string;
    await ingest(
      database.db,
      [1, 2, 3].map((i) =>
        log(tenant.organizationId, uuid, { message: `needle ${i}`, timestamp: `2026-03-01T00:00:0${i}Z` }),
      ),
    );
    const input = { query: 'needle', from: '2026-02-28T00:00:00Z', to: '2026-03-02T00:00:00Z' };
    const reads = (statements: string[]) => statements.filter((sql) => /from execution_logs/.test(sql));
    for (const [fields, answer] of [
      [
        'count countIsExact data { message }',
        { count: 3, countIsExact: true, data: ['needle 3', 'needle 2', 'needle 1'] },
      ],
      ['data { message }', { data: ['needle 3', 'needle 2', 'needle 1'] }],
      ['count', { count: 3 }],
    ] as const) {
      const searched = await statementsFor(
        `query($input: SearchExecutionLogsInput!) { searchExecutionLogs(input: $input) { ${fields} } }`,
        { input },
      );
      const { data, ...counts } = searched.data.searchExecutionLogs;
      assert.deepEqual(
        { ...counts, ...(data ? { data: data.map((m: { message: string }) => m.message) } : {}) },
        answer,
      );
      assert.equal(
        reads(searched.statements).length,
        1,
        `${fields}:\n${searched.statements.join('\n---\n')}`,
      );
    }
  });
});
