import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { createTenant, execution, ingest, log, type Tenant, workflow } from '../harness/fixtures.js';
import { assertContractFields, queryRootFields } from '../harness/introspection.js';
import { useServer } from '../harness/suite.js';
import { dataOf } from './graphql-assertions.js';

const FIELDS = `uuid workflowUUID id workflowName workflowId status classifiedStatus startedAt finishedAt
  creditUsed errors { error count } executedInTee`;
const ONE = `query ($uuid: String!) { workflowExecution(input: {uuid: $uuid}) { data { ${FIELDS} } } }`;
const COUNT = `query ($input: WorkflowExecutionsInput!) { workflowExecutions(input: $input) { count data { uuid } } }`;

describe('workflowExecution and ingestion as seen through reads', () => {
  const ctx = useServer();

  // biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
  async function one(key: string, uuid: string): Promise<any> {
    return dataOf(await ctx.server.gql(key, ONE, { uuid })).workflowExecution.data;
  }

  /** `count` of workflowExecutions, checked against the rows of its (single) page. */
  async function count(key: string, input: Record<string, unknown>): Promise<number> {
    const answer = dataOf(
      await ctx.server.gql(key, COUNT, { input: { ...input, page: { size: 100 } } }),
    ).workflowExecutions;
    assert.equal(answer.count, answer.data.length, `count and rows of ${JSON.stringify(input)}`);
    return answer.count;
  }

  /**
   * Every aggregate that counts one workflow's executions, each answered from a different path:
   * status counts over all time (day rollups), an unaligned window (edge scans and 5-minute and
   * hour rollups), a whole day (one day rollup), hourly activity buckets, the workflow's windowed
   * counts and the inventory's all-time totals.
   */
  async function aggregates(t: Tenant, workflowUuid: string) {
    const byStatus: Record<string, number> = {};
    for (const status of ['IN_PROGRESS', 'SUCCESS', 'FAILURE'])
      byStatus[status] = await count(t.key, { workflowUuid, status: [status] });
    const activity = dataOf(
      await ctx.server.gql(
        t.key,
        `query ($wf: String) { workflowActivity(input: {workflowUUID: $wf, from: "2026-01-02T00:00:00Z",
           to: "2026-01-02T05:59:59Z"}) { data { failureCount successCount } } }`,
        { wf: workflowUuid },
      ),
    ).workflowActivity.data;
    const summary = dataOf(
      await ctx.server.gql(
        t.key,
        `query ($wf: String!) {
           workflow(input: {uuid: $wf, from: "2026-01-01T00:00:00Z"}) { data { executionCount executionCountByStatus { success failure } } }
           workflows(input: {}) { data { uuid executionCount executionCountByStatus { success failure } } } }`,
        { wf: workflowUuid },
      ),
    );
    return {
      byStatus,
      unalignedFailures: await count(t.key, {
        workflowUuid,
        status: ['FAILURE'],
        from: '2026-01-02T00:00:00.001Z',
        to: '2026-01-02T02:59:59.999Z',
      }),
      dayFailures: await count(t.key, {
        workflowUuid,
        status: ['FAILURE'],
        from: '2026-01-02T00:00:00Z',
        to: '2026-01-02T23:59:59.999Z',
      }),
      hourlyFailures: activity.map((row: { failureCount: number }) => row.failureCount),
      workflow: summary.workflow.data,
      inventory: summary.workflows.data.find((w: { uuid: string }) => w.uuid === workflowUuid),
    };
  }

  it('serves WorkflowExecution, ExecutionError and the root fields exactly as the contract writes them', async () => {
    const t = await createTenant(ctx.db);
    const fields = (name: string, contract: string) =>
      assertContractFields(ctx.server, t.key, name, contract);
    await fields(
      'WorkflowExecution',
      'uuid: String!, workflowUUID: String!, id: String!, workflowName: String!, workflowId: WorkflowId!, status: WorkflowExecutionStatus!, classifiedStatus: WorkflowExecutionClassifiedStatus, startedAt: Time!, finishedAt: Time, creditUsed: CreditAmount, errors: [ExecutionError], executedInTee: Boolean',
    );
    await fields('ExecutionError', 'error: String!, count: Int!');
    await fields('WorkflowExecutionInput', 'uuid: String!');
    await fields('WorkflowExecutionOutput', 'data: WorkflowExecution');
    const roots = new Map((await queryRootFields(ctx.server, t.key)).map((f) => [f.name, f]));
    for (const [name, input, output] of [
      ['workflowExecutions', 'WorkflowExecutionsInput', 'WorkflowExecutionsOutput'],
      ['workflowExecution', 'WorkflowExecutionInput', 'WorkflowExecutionOutput'],
      ['workflowExecutionLogs', 'WorkflowExecutionLogsInput', 'WorkflowExecutionLogsOutput'],
      ['workflowExecutionEvents', 'WorkflowExecutionEventsInput', 'WorkflowExecutionEventsOutput'],
    ] as const) {
      const root = roots.get(name);
      assert.deepEqual([root?.args, root?.type], [[`input: ${input}!`], `${output}!`], name);
    }
  });

  it('answers every field in its wire form: Time in UTC, CreditAmount as a string, errors as {error, count}', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId, { name: 'Price Feed', workflowId: '0xfeed' });
    const full = execution(t.organizationId, wf.uuid as string, {
      id: '0xRun-1',
      status: 'FAILURE',
      classifiedStatus: 'USER_ERROR',
      startedAt: '2026-01-02T03:04:05.12+02:00',
      finishedAt: '2026-01-02T01:04:06Z',
      creditUsed: 12.5,
      errors: [
        { error: 'timeout', count: 2 },
        { error: 'revert', count: 1 },
      ],
      executedInTee: true,
    });
    const bare = execution(t.organizationId, wf.uuid as string, { status: 'TRIGGERED' });
    await ingest(ctx.db, [wf, full, bare]);
    assert.deepEqual(await one(t.key, full.uuid as string), {
      uuid: full.uuid,
      workflowUUID: wf.uuid,
      id: '0xRun-1',
      workflowName: 'Price Feed',
      workflowId: '0xfeed',
      status: 'FAILURE',
      classifiedStatus: 'USER_ERROR',
      startedAt: '2026-01-02T01:04:05.120Z',
      finishedAt: '2026-01-02T01:04:06Z',
      creditUsed: '12.5',
      errors: [
        { error: 'timeout', count: 2 },
        { error: 'revert', count: 1 },
      ],
      executedInTee: true,
    });
    assert.deepEqual(await one(t.key, bare.uuid as string), {
      uuid: bare.uuid,
      workflowUUID: wf.uuid,
      id: bare.id,
      workflowName: 'Price Feed',
      workflowId: '0xfeed',
      status: 'TRIGGERED',
      classifiedStatus: null,
      startedAt: '2026-01-02T00:00:00Z',
      finishedAt: null,
      creditUsed: null,
      errors: null,
      executedInTee: null,
    });
  });

  it('keeps every digit of a credit amount and drops only trailing zeros', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const cases: Array<[string | number, string]> = [
      ['12.50', '12.5'],
      ['0.000100', '0.0001'],
      ['100', '100'],
      [0, '0'],
      ['1234567890123456789012345.123456789012345678', '1234567890123456789012345.123456789012345678'],
      [0.1, '0.1'],
    ];
    const records = cases.map(([creditUsed]) =>
      execution(t.organizationId, wf.uuid as string, { creditUsed }),
    );
    await ingest(ctx.db, [wf, ...records]);
    for (const [index, [, expected]] of cases.entries()) {
      assert.equal((await one(t.key, records[index]!.uuid as string)).creditUsed, expected);
    }
  });

  it('answers {data: null} without errors for an unknown, malformed or empty uuid, and ignores uuid case', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const known = execution(t.organizationId, wf.uuid as string);
    await ingest(ctx.db, [wf, known]);
    for (const uuid of [randomUUID(), 'not-a-uuid', '', `${known.uuid}0`, wf.uuid as string]) {
      const response = await ctx.server.gql(t.key, ONE, { uuid });
      assert.equal(response.status, 200);
      assert.equal(response.body.errors, undefined, uuid);
      assert.deepEqual(response.body.data, { workflowExecution: { data: null } }, uuid);
    }
    assert.equal((await one(t.key, (known.uuid as string).toUpperCase())).uuid, known.uuid);
  });

  it('shows the later state of an execution, in one batch or across batches', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const across = execution(t.organizationId, wf.uuid as string, { status: 'TRIGGERED' });
    const within = execution(t.organizationId, wf.uuid as string, { status: 'TRIGGERED' });
    await ingest(ctx.db, [wf, across]);
    await ingest(ctx.db, [{ ...across, status: 'IN_PROGRESS', creditUsed: '1' }]);
    assert.deepEqual(await pick(t.key, across.uuid as string), { status: 'IN_PROGRESS', creditUsed: '1' });
    await ingest(ctx.db, [
      { ...across, status: 'SUCCESS', creditUsed: '2', finishedAt: '2026-01-02T00:01:00Z' },
    ]);
    assert.deepEqual(await pick(t.key, across.uuid as string), { status: 'SUCCESS', creditUsed: '2' });
    // A terminal state may still be corrected by a later terminal one.
    await ingest(ctx.db, [{ ...across, status: 'FAILURE', creditUsed: '3' }]);
    assert.deepEqual(await pick(t.key, across.uuid as string), { status: 'FAILURE', creditUsed: '3' });

    await ingest(ctx.db, [
      { ...within, status: 'IN_PROGRESS' },
      { ...within, status: 'SUCCESS', creditUsed: '4' },
    ]);
    assert.deepEqual(await pick(t.key, within.uuid as string), { status: 'SUCCESS', creditUsed: '4' });
  });

  it('never replaces a terminal status by a later-arriving non-terminal one', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const success = execution(t.organizationId, wf.uuid as string, { status: 'SUCCESS', creditUsed: '5' });
    const failure = execution(t.organizationId, wf.uuid as string, { status: 'FAILURE', creditUsed: '6' });
    const sameBatch = execution(t.organizationId, wf.uuid as string, { status: 'SUCCESS', creditUsed: '7' });
    await ingest(ctx.db, [wf, success, failure]);
    await ingest(ctx.db, [
      { ...success, status: 'IN_PROGRESS', creditUsed: '50' },
      { ...failure, status: 'TRIGGERED', creditUsed: '60' },
      sameBatch,
      { ...sameBatch, status: 'UNKNOWN', creditUsed: '70' },
    ]);
    await ingest(ctx.db, [{ ...success, status: 'UNSPECIFIED' }]);
    assert.deepEqual(await pick(t.key, success.uuid as string), { status: 'SUCCESS', creditUsed: '5' });
    assert.deepEqual(await pick(t.key, failure.uuid as string), { status: 'FAILURE', creditUsed: '6' });
    assert.deepEqual(await pick(t.key, sameBatch.uuid as string), { status: 'SUCCESS', creditUsed: '7' });
    for (const status of ['IN_PROGRESS', 'TRIGGERED', 'UNKNOWN', 'UNSPECIFIED'])
      assert.equal(await count(t.key, { status: [status] }), 0, status);
    assert.equal(await count(t.key, { status: ['SUCCESS', 'FAILURE'] }), 3);
  });

  it('moves an execution between status counts, windows and activity buckets when its state changes', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const at = [
      '2026-01-02T00:03:17.250Z',
      '2026-01-02T01:00:00Z',
      '2026-01-02T02:59:59.999Z',
      '2026-01-03T10:00:00Z',
    ];
    const runs = at.map((startedAt) =>
      execution(t.organizationId, wf.uuid as string, { status: 'IN_PROGRESS', startedAt, creditUsed: '1' }),
    );
    await ingest(ctx.db, [wf, ...runs]);
    const wfUuid = wf.uuid as string;
    assert.deepEqual(await aggregates(t, wfUuid), {
      byStatus: { IN_PROGRESS: 4, SUCCESS: 0, FAILURE: 0 },
      unalignedFailures: 0,
      dayFailures: 0,
      hourlyFailures: [0, 0, 0, 0, 0, 0],
      workflow: { executionCount: 4, executionCountByStatus: { success: 0, failure: 0 } },
      inventory: { uuid: wfUuid, executionCount: 4, executionCountByStatus: { success: 0, failure: 0 } },
    });

    await ingest(ctx.db, [
      ...runs.slice(0, 3).map((run) => ({ ...run, status: 'FAILURE' })),
      { ...runs[3]!, status: 'SUCCESS' },
    ]);
    const failed = {
      byStatus: { IN_PROGRESS: 0, SUCCESS: 1, FAILURE: 3 },
      unalignedFailures: 3,
      dayFailures: 3,
      hourlyFailures: [1, 1, 1, 0, 0, 0],
      workflow: { executionCount: 4, executionCountByStatus: { success: 1, failure: 3 } },
      inventory: { uuid: wfUuid, executionCount: 4, executionCountByStatus: { success: 1, failure: 3 } },
    };
    assert.deepEqual(await aggregates(t, wfUuid), failed);

    // Re-sending any of it, or a stale non-terminal state, changes nothing.
    await ingest(ctx.db, [...runs.slice(0, 3).map((run) => ({ ...run, status: 'FAILURE' })), runs[3]!]);
    assert.deepEqual(await aggregates(t, wfUuid), failed);

    // A later state with another start time moves the execution to another bucket.
    await ingest(ctx.db, [{ ...runs[1]!, status: 'FAILURE', startedAt: '2026-01-02T05:30:00Z' }]);
    assert.deepEqual(await aggregates(t, wfUuid), {
      ...failed,
      unalignedFailures: 2,
      hourlyFailures: [1, 0, 1, 0, 0, 1],
    });
  });

  it('hides an execution whose workflow has not arrived, and shows and counts it once it does', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId, { name: 'Late Arrival' });
    const early = execution(t.organizationId, wf.uuid as string, {
      status: 'FAILURE',
      startedAt: '2026-01-02T00:07:00Z',
    });
    await ingest(ctx.db, [early, log(t.organizationId, early.uuid as string)]);
    const wfUuid = wf.uuid as string;
    const everywhere = async () => ({
      one: (await one(t.key, early.uuid as string))?.uuid ?? null,
      all: await count(t.key, {}),
      byWorkflow: await count(t.key, { workflowUuid: wfUuid }),
      byStatus: await count(t.key, { status: ['FAILURE'] }),
      window: await count(t.key, { from: '2026-01-02T00:00:00.001Z', to: '2026-01-03T00:00:00Z' }),
      search: await count(t.key, { search: 'late' }),
      logs: dataOf(
        await ctx.server.gql(
          t.key,
          `query ($u: String!) { workflowExecutionLogs(input: {workflowExecutionUUID: $u}) { data { message } } }`,
          { u: early.uuid },
        ),
      ).workflowExecutionLogs.data,
      activity: dataOf(
        await ctx.server.gql(
          t.key,
          `{ workflowActivity(input: {from: "2026-01-02T00:00:00Z", to: "2026-01-02T01:00:00Z"}) { data { failureCount } } }`,
        ),
      ).workflowActivity.data.reduce(
        (sum: number, row: { failureCount: number }) => sum + row.failureCount,
        0,
      ),
    });
    assert.deepEqual(await everywhere(), {
      one: null,
      all: 0,
      byWorkflow: 0,
      byStatus: 0,
      window: 0,
      search: 0,
      logs: null,
      activity: 0,
    });
    await ingest(ctx.db, [wf]);
    assert.deepEqual(await everywhere(), {
      one: early.uuid,
      all: 1,
      byWorkflow: 1,
      byStatus: 1,
      window: 1,
      search: 1,
      logs: [{ message: 'hello' }],
      activity: 1,
    });
  });

  it('lists, page by page, only the executions whose workflow has arrived, as each arrives', async () => {
    const t = await createTenant(ctx.db);
    const other = await createTenant(ctx.db);
    const [shown, first, second] = ['Shown', 'First Late', 'Second Late'].map((name) =>
      workflow(t.organizationId, { name }),
    );
    const at = (minute: number) => `2026-01-03T00:${String(minute).padStart(2, '0')}:00Z`;
    const run = (wf: Record<string, unknown>, minute: number) =>
      execution(t.organizationId, wf.uuid as string, { startedAt: at(minute) });
    // Newest first: second (5), shown (4), first (3), shown (2), second (1), shown (0).
    const runs = [
      run(shown!, 0),
      run(second!, 1),
      run(shown!, 2),
      run(first!, 3),
      run(shown!, 4),
      run(second!, 5),
    ];
    const otherWf = workflow(other.organizationId, { name: 'Elsewhere' });
    await ingest(ctx.db, [shown!, otherWf, ...runs, execution(other.organizationId, otherWf.uuid as string)]);
    const pages = async (key: string) => {
      const uuids: string[] = [];
      for (let number = 0; number < 4; number++) {
        const page = dataOf(
          await ctx.server.gql(key, COUNT, { input: { page: { number, size: 2 } } }),
        ).workflowExecutions.data.map((row: { uuid: string }) => row.uuid);
        uuids.push(...page);
      }
      return uuids;
    };
    const uuidsOf = (...indexes: number[]) => indexes.map((i) => runs[i]!.uuid);

    assert.deepEqual(await pages(t.key), uuidsOf(4, 2, 0));
    assert.equal(
      (await pages(other.key)).length,
      1,
      "another organization's awaited workflows change nothing",
    );
    await ingest(ctx.db, [first!]);
    assert.deepEqual(await pages(t.key), uuidsOf(4, 3, 2, 0), 'the second workflow is still awaited');
    await ingest(ctx.db, [second!]);
    assert.deepEqual(await pages(t.key), uuidsOf(5, 4, 3, 2, 1, 0));
  });

  async function pick(key: string, uuid: string) {
    const row = await one(key, uuid);
    return { status: row.status, creditUsed: row.creditUsed };
  }
});
