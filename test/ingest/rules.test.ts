import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTenant, deployment, event, execution, log, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { snapshotTables } from './dataset.js';
import { INGEST_TOKEN, postIngest } from './http.js';

describe('ingestion rules', () => {
  const ctx = useServer({ ingestToken: INGEST_TOKEN, limits: { ingestBatchSize: 2 } });

  /** Sends records and insists every line was accepted. */
  async function send(records: readonly unknown[]) {
    const answer = await postIngest(ctx.server.url, records);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body.rejected, []);
    return answer.body;
  }

  const read = async (key: string, query: string, variables?: Record<string, unknown>) => {
    const answer = await ctx.server.gql(key, query, variables);
    assert.equal(answer.body.errors, undefined, JSON.stringify(answer.body.errors));
    return answer.body.data;
  };

  it('changes nothing when a batch is sent again', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const ex = execution(t.organizationId, wf.uuid as string, {
      creditUsed: '2.50',
      errors: [{ error: 'e', count: 1 }],
    });
    const batch = [
      wf,
      deployment(t.organizationId, wf.uuid as string),
      ex,
      log(t.organizationId, ex.uuid as string),
      event(t.organizationId, ex.uuid as string, { errors: [{ error: 'x', count: 2 }] }),
    ];
    await send(batch);
    const before = await snapshotTables(ctx.db);
    const again = await send(batch);
    assert.equal(again.accepted, 5);
    assert.equal(await snapshotTables(ctx.db), before);
  });

  it('replaces a workflow or deployment by a later record with the same uuid', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId, { name: 'old' });
    const dep = deployment(t.organizationId, wf.uuid as string, { status: 'PENDING' });
    await send([wf, dep]);
    await send([
      { ...wf, name: 'new', uuid: (wf.uuid as string).toUpperCase() },
      { ...dep, status: 'ACTIVE', txHash: '0xabc' },
    ]);
    const data = await read(
      t.key,
      `query ($uuid: String!) { workflows(input: {}) { count data { name status } }
         workflowDeployments(input: { workflowUUID: $uuid }) { count data { status txHash } } }`,
      { uuid: wf.uuid },
    );
    assert.deepEqual(data.workflows, { count: 1, data: [{ name: 'new', status: 'ACTIVE' }] });
    assert.deepEqual(data.workflowDeployments, { count: 1, data: [{ status: 'ACTIVE', txHash: '0xabc' }] });
  });

  it('stores a log or event line once however often it is sent, in one batch or many', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const ex = execution(t.organizationId, wf.uuid as string);
    const line = log(t.organizationId, ex.uuid as string, { message: 'same' });
    const other = log(t.organizationId, ex.uuid as string, { message: 'same', nodeID: 'node-2' });
    const ev = event(t.organizationId, ex.uuid as string);
    await send([wf, ex, line, line, ev, line, ev]);
    await send([line, other, ev]);
    const data = await read(
      t.key,
      `query ($uuid: String!) { workflowExecutionLogs(input: { workflowExecutionUUID: $uuid }) { data { nodeID message } }
         workflowExecutionEvents(input: { workflowExecutionUUID: $uuid }) { data { capabilityID } } }`,
      { uuid: ex.uuid },
    );
    assert.deepEqual(data.workflowExecutionLogs.data, [
      { nodeID: 'node-1', message: 'same' },
      { nodeID: 'node-2', message: 'same' },
    ]);
    assert.equal(data.workflowExecutionEvents.data.length, 1);
  });

  it('stores text holding tabs, newlines, backslashes and any Unicode exactly as sent', async () => {
    const t = await createTenant(ctx.db);
    const awkward = 'a\tb\nc\r\nd \\ \\N \\x41 "q" é 🚀 \u2028';
    const wf = workflow(t.organizationId);
    const ex = execution(t.organizationId, wf.uuid as string, {
      id: `id ${awkward}`,
      status: 'FAILURE',
      errors: [{ error: awkward, count: 3 }],
    });
    await send([
      wf,
      ex,
      log(t.organizationId, ex.uuid as string, { nodeID: `node ${awkward}`, message: awkward }),
      event(t.organizationId, ex.uuid as string, {
        capabilityID: `cap ${awkward}`,
        method: awkward,
        errors: [{ error: awkward, count: 1 }],
      }),
    ]);
    const data = await read(
      t.key,
      `query ($uuid: String!) {
         workflowExecution(input: { uuid: $uuid }) { data { id errors { error count } } }
         workflowExecutionLogs(input: { workflowExecutionUUID: $uuid }) { data { nodeID message } }
         workflowExecutionEvents(input: { workflowExecutionUUID: $uuid }) { data { capabilityID method errors { error count } } } }`,
      { uuid: ex.uuid },
    );
    assert.deepEqual(data.workflowExecution.data, {
      id: `id ${awkward}`,
      errors: [{ error: awkward, count: 3 }],
    });
    assert.deepEqual(data.workflowExecutionLogs.data, [{ nodeID: `node ${awkward}`, message: awkward }]);
    assert.deepEqual(data.workflowExecutionEvents.data, [
      { capabilityID: `cap ${awkward}`, method: awkward, errors: [{ error: awkward, count: 1 }] },
    ]);
  });

  it("replaces an execution's state by a later one, but never a terminal status by a non-terminal one", async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const base = execution(t.organizationId, wf.uuid as string, { status: 'TRIGGERED' });
    const query = `query ($uuid: String!) { workflowExecution(input: { uuid: $uuid }) { data { status creditUsed } }
      workflows(input: {}) { data { executionCount executionCountByStatus { success failure } creditUsed } } }`;
    await send([wf, base, { ...base, status: 'IN_PROGRESS' }]);
    assert.equal(
      (await read(t.key, query, { uuid: base.uuid })).workflowExecution.data.status,
      'IN_PROGRESS',
    );

    // Terminal, then an older non-terminal state in the same batch and in a later one: it stays.
    await send([
      { ...base, status: 'SUCCESS', creditUsed: '3' },
      { ...base, status: 'IN_PROGRESS' },
    ]);
    await send([{ ...base, status: 'TRIGGERED', creditUsed: '99' }]);
    let data = await read(t.key, query, { uuid: base.uuid });
    assert.deepEqual(data.workflowExecution.data, { status: 'SUCCESS', creditUsed: '3' });
    assert.deepEqual(data.workflows.data[0], {
      executionCount: 1,
      executionCountByStatus: { success: 1, failure: 0 },
      creditUsed: '3',
    });

    // A later terminal state still replaces an earlier terminal one, and the counts follow.
    await send([{ ...base, status: 'FAILURE', creditUsed: '1.5' }]);
    data = await read(t.key, query, { uuid: base.uuid });
    assert.deepEqual(data.workflowExecution.data, { status: 'FAILURE', creditUsed: '1.5' });
    assert.deepEqual(data.workflows.data[0], {
      executionCount: 1,
      executionCountByStatus: { success: 0, failure: 1 },
      creditUsed: '1.5',
    });
  });

  it('keeps children that arrive before their parent and shows them once it arrives', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const ex = execution(t.organizationId, wf.uuid as string, { executedInTee: true });
    const dep = deployment(t.organizationId, wf.uuid as string);
    const query = `query ($wf: String!, $ex: String!) {
      workflowExecutions(input: {}) { count }
      workflowDeployments(input: { workflowUUID: $wf }) { count }
      workflowExecution(input: { uuid: $ex }) { data { uuid } }
      workflowExecutionLogs(input: { workflowExecutionUUID: $ex }) { data { message } }
      workflows(input: {}) { data { executionCount executedAt hasTeeExecutions } } }`;
    const variables = { wf: wf.uuid, ex: ex.uuid };
    await send([log(t.organizationId, ex.uuid as string, { message: 'early' })]);
    let data = await read(t.key, query, variables);
    assert.equal(data.workflowExecutionLogs.data, null);
    await send([ex, dep]);
    data = await read(t.key, query, variables);
    assert.equal(data.workflowExecutions.count, 0);
    assert.equal(data.workflowDeployments.count, 0);
    assert.equal(data.workflowExecution.data, null);
    await send([wf]);
    data = await read(t.key, query, variables);
    assert.equal(data.workflowExecutions.count, 1);
    assert.equal(data.workflowDeployments.count, 1);
    assert.equal(data.workflowExecution.data.uuid, ex.uuid);
    assert.deepEqual(data.workflowExecutionLogs.data, [{ message: 'early' }]);
    assert.deepEqual(data.workflows.data, [
      { executionCount: 1, executedAt: '2026-01-02T00:00:00Z', hasTeeExecutions: true },
    ]);
  });

  it('keeps every derived value right when an execution moves in time, changes status or loses its TEE flag', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const first = deployment(t.organizationId, wf.uuid as string, { deployedAt: '2026-01-01T00:00:00Z' });
    const second = deployment(t.organizationId, wf.uuid as string, { deployedAt: '2026-01-03T00:00:00Z' });
    const moving = execution(t.organizationId, wf.uuid as string, {
      status: 'TRIGGERED',
      startedAt: '2026-01-03T10:00:00Z',
      executedInTee: true,
    });
    const steady = execution(t.organizationId, wf.uuid as string, {
      startedAt: '2026-01-02T00:30:00Z',
      creditUsed: '1',
    });
    const query = `query ($wf: String!) {
      workflows(input: {}) { data { executedAt executionCount executionCountByStatus { success failure } creditUsed
        hasTeeExecutions hasNonTeeExecutions } }
      workflow(input: { uuid: $wf, from: "2026-01-02T12:00:00Z" }) { data { executionCount creditUsed } }
      workflowDeployments(input: { workflowUUID: $wf, orderBy: { field: DEPLOYED_AT, order: ASC } }) {
        data { executionCountByStatus { success failure } } }
      workflowActivity(input: { from: "2026-01-02T00:00:00Z", to: "2026-01-03T23:59:59Z" }) {
        data { from successCount failureCount } } }`;
    await send([second, moving, wf, steady, first]);
    let data = await read(t.key, query, { wf: wf.uuid });
    assert.deepEqual(data.workflows.data[0], {
      executedAt: '2026-01-03T10:00:00Z',
      executionCount: 2,
      executionCountByStatus: { success: 1, failure: 0 },
      creditUsed: '1',
      hasTeeExecutions: true,
      hasNonTeeExecutions: true,
    });
    assert.deepEqual(data.workflow.data, { executionCount: 1, creditUsed: '0' });

    // The execution finishes with another start time (an earlier day), no TEE, and a cost.
    await send([
      {
        ...moving,
        status: 'FAILURE',
        startedAt: '2026-01-02T00:10:00Z',
        executedInTee: false,
        creditUsed: '2.5',
      },
    ]);
    data = await read(t.key, query, { wf: wf.uuid });
    assert.deepEqual(data.workflows.data[0], {
      executedAt: '2026-01-02T00:30:00Z',
      executionCount: 2,
      executionCountByStatus: { success: 1, failure: 1 },
      creditUsed: '3.5',
      hasTeeExecutions: false,
      hasNonTeeExecutions: true,
    });
    assert.deepEqual(data.workflow.data, { executionCount: 0, creditUsed: null });
    assert.deepEqual(
      data.workflowDeployments.data.map((d: { executionCountByStatus: unknown }) => d.executionCountByStatus),
      [
        { success: 1, failure: 1 },
        { success: 0, failure: 0 },
      ],
    );
    const busy = data.workflowActivity.data.filter(
      (b: { successCount: number; failureCount: number }) => b.successCount + b.failureCount > 0,
    );
    assert.deepEqual(busy, [{ from: '2026-01-02T00:00:00Z', successCount: 1, failureCount: 1 }]);
  });
});
