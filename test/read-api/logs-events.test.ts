import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { createTenant, event, execution, ingest, log, type Tenant, workflow } from '../harness/fixtures.js';
import { assertContractFields } from '../harness/introspection.js';
import { useServer } from '../harness/suite.js';
import { dataOf } from './graphql-assertions.js';

const LOGS = `query ($u: String!) {
  workflowExecutionLogs(input: {workflowExecutionUUID: $u}) { data { nodeID message timestamp } } }`;
const EVENTS = `query ($input: WorkflowExecutionEventsInput!) {
  workflowExecutionEvents(input: $input) { data { capabilityID status method startedAt finishedAt errors { error count } } } }`;

describe('workflowExecutionLogs and workflowExecutionEvents', () => {
  const ctx = useServer();

  // biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
  async function logs(key: string, uuid: string): Promise<any[] | null> {
    return dataOf(await ctx.server.gql(key, LOGS, { u: uuid })).workflowExecutionLogs.data;
  }

  // biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
  async function events(key: string, input: Record<string, unknown>): Promise<any[] | null> {
    return dataOf(await ctx.server.gql(key, EVENTS, { input })).workflowExecutionEvents.data;
  }

  /** A workflow with one execution, stored; returns the execution's uuid. */
  async function anExecution(t: Tenant): Promise<string> {
    const wf = workflow(t.organizationId);
    const run = execution(t.organizationId, wf.uuid as string);
    await ingest(ctx.db, [wf, run]);
    return run.uuid as string;
  }

  it('serves the log, event and error types exactly as the contract writes them', async () => {
    const t = await createTenant(ctx.db);
    const fields = (name: string, contract: string) =>
      assertContractFields(ctx.server, t.key, name, contract);
    await fields('WorkflowExecutionLog', 'nodeID: String!, message: String!, timestamp: Time!');
    await fields(
      'WorkflowExecutionEvent',
      'capabilityID: String!, status: String!, method: String, startedAt: Time!, finishedAt: Time, errors: [CapabilityExecutionError]',
    );
    await fields('CapabilityExecutionError', 'error: String!, count: Int!');
    await fields('WorkflowExecutionLogsInput', 'workflowExecutionUUID: String!');
    await fields(
      'WorkflowExecutionEventsInput',
      'workflowExecutionUUID: String!, capabilityID: String, status: String',
    );
    await fields('WorkflowExecutionLogsOutput', 'data: [WorkflowExecutionLog!]');
    await fields('WorkflowExecutionEventsOutput', 'data: [WorkflowExecutionEvent!]');
  });

  it('lists logs by timestamp, lines with the same timestamp in arrival order', async () => {
    const t = await createTenant(ctx.db);
    const run = await anExecution(t);
    const line = (timestamp: string, message: string, nodeID = 'node-1') =>
      log(t.organizationId, run, { timestamp, message, nodeID });
    await ingest(ctx.db, [
      line('2026-01-02T00:00:03Z', 'third second'),
      line('2026-01-02T00:00:02+00:00', 'y: first at :02'),
      line('2026-01-02T00:00:01.500Z', 'at 1.5 s'),
      line('2026-01-02T00:00:02Z', 'x: second at :02', 'node-2'),
    ]);
    await ingest(ctx.db, [
      line('2026-01-02T01:00:02+01:00', 'a: third at :02'),
      line('2026-01-01T23:59:59.999Z', 'earliest', 'node-3'),
    ]);
    assert.deepEqual(await logs(t.key, run), [
      { nodeID: 'node-3', message: 'earliest', timestamp: '2026-01-01T23:59:59.999Z' },
      { nodeID: 'node-1', message: 'at 1.5 s', timestamp: '2026-01-02T00:00:01.500Z' },
      { nodeID: 'node-1', message: 'y: first at :02', timestamp: '2026-01-02T00:00:02Z' },
      { nodeID: 'node-2', message: 'x: second at :02', timestamp: '2026-01-02T00:00:02Z' },
      { nodeID: 'node-1', message: 'a: third at :02', timestamp: '2026-01-02T00:00:02Z' },
      { nodeID: 'node-1', message: 'third second', timestamp: '2026-01-02T00:00:03Z' },
    ]);
  });

  it('shows a log line sent twice, in one batch or in two, once', async () => {
    const t = await createTenant(ctx.db);
    const run = await anExecution(t);
    const line = log(t.organizationId, run, { message: 'tick', timestamp: '2026-01-02T00:00:01Z' });
    // Same content but another node, or another instant, is another line.
    const otherNode = { ...line, nodeID: 'node-2' };
    const otherTime = { ...line, timestamp: '2026-01-02T00:00:01.001Z' };
    await ingest(ctx.db, [line, line, otherNode]);
    await ingest(ctx.db, [line, otherTime, otherNode, { ...line, timestamp: '2026-01-02T01:00:01+01:00' }]);
    assert.deepEqual(await logs(t.key, run), [
      { nodeID: 'node-1', message: 'tick', timestamp: '2026-01-02T00:00:01Z' },
      { nodeID: 'node-2', message: 'tick', timestamp: '2026-01-02T00:00:01Z' },
      { nodeID: 'node-1', message: 'tick', timestamp: '2026-01-02T00:00:01.001Z' },
    ]);
  });

  it('lists events by startedAt, ties in arrival order, with every field in its wire form', async () => {
    const t = await createTenant(ctx.db);
    const run = await anExecution(t);
    await ingest(ctx.db, [
      event(t.organizationId, run, {
        capabilityID: 'write-chain@1.0.0',
        status: 'FAILURE',
        method: 'WriteReport',
        startedAt: '2026-01-02T00:00:05Z',
        finishedAt: '2026-01-02T00:00:06.250Z',
        errors: [{ error: 'gas too low', count: 3 }],
      }),
      event(t.organizationId, run, { capabilityID: 'tie-b', startedAt: '2026-01-02T00:00:02Z' }),
      event(t.organizationId, run, { capabilityID: 'cron-trigger@1.0.0', startedAt: '2026-01-02T00:00:00Z' }),
    ]);
    await ingest(ctx.db, [
      event(t.organizationId, run, { capabilityID: 'tie-a', startedAt: '2026-01-02T02:00:02+02:00' }),
    ]);
    const plain = { status: 'SUCCESS', method: null, finishedAt: null, errors: null };
    assert.deepEqual(await events(t.key, { workflowExecutionUUID: run }), [
      { ...plain, capabilityID: 'cron-trigger@1.0.0', startedAt: '2026-01-02T00:00:00Z' },
      { ...plain, capabilityID: 'tie-b', startedAt: '2026-01-02T00:00:02Z' },
      { ...plain, capabilityID: 'tie-a', startedAt: '2026-01-02T00:00:02Z' },
      {
        capabilityID: 'write-chain@1.0.0',
        status: 'FAILURE',
        method: 'WriteReport',
        startedAt: '2026-01-02T00:00:05Z',
        finishedAt: '2026-01-02T00:00:06.250Z',
        errors: [{ error: 'gas too low', count: 3 }],
      },
    ]);
  });

  it('filters events by capabilityID and by status, both together as AND, exactly', async () => {
    const t = await createTenant(ctx.db);
    const run = await anExecution(t);
    const spec: Array<[string, string]> = [
      ['cron@1', 'SUCCESS'],
      ['chain@1', 'FAILURE'],
      ['chain@1', 'SUCCESS'],
      ['http@2', 'FAILURE'],
      ['chain@1', 'FAILURE'],
    ];
    await ingest(
      ctx.db,
      spec.map(([capabilityID, status], i) =>
        event(t.organizationId, run, { capabilityID, status, startedAt: `2026-01-02T00:00:0${i}Z` }),
      ),
    );
    const pick = async (input: Record<string, unknown>) =>
      (await events(t.key, { workflowExecutionUUID: run, ...input }))!.map(
        (e) => `${e.capabilityID} ${e.status} ${e.startedAt.slice(17, 19)}`,
      );
    assert.deepEqual(await pick({ capabilityID: 'chain@1' }), [
      'chain@1 FAILURE 01',
      'chain@1 SUCCESS 02',
      'chain@1 FAILURE 04',
    ]);
    assert.deepEqual(await pick({ status: 'FAILURE' }), [
      'chain@1 FAILURE 01',
      'http@2 FAILURE 03',
      'chain@1 FAILURE 04',
    ]);
    assert.deepEqual(await pick({ capabilityID: 'chain@1', status: 'FAILURE' }), [
      'chain@1 FAILURE 01',
      'chain@1 FAILURE 04',
    ]);
    assert.deepEqual(await pick({ capabilityID: 'chain', status: null }), []);
    assert.deepEqual(await pick({ status: 'failure' }), []);
    assert.equal((await pick({ capabilityID: null, status: null })).length, 5);
  });

  it('shows an event sent twice, in one batch or in two, once', async () => {
    const t = await createTenant(ctx.db);
    const run = await anExecution(t);
    const once = event(t.organizationId, run, { errors: [{ error: 'x', count: 1 }], method: 'Trigger' });
    await ingest(ctx.db, [once, once]);
    await ingest(ctx.db, [once, { ...once, status: 'FAILURE' }]);
    assert.deepEqual(
      (await events(t.key, { workflowExecutionUUID: run }))!.map((e) => e.status),
      ['SUCCESS', 'FAILURE'],
    );
  });

  it('answers null for an unknown or malformed execution, and [] for a known one without lines', async () => {
    const t = await createTenant(ctx.db);
    const run = await anExecution(t);
    for (const uuid of [randomUUID(), 'not-a-uuid', '']) {
      assert.equal(await logs(t.key, uuid), null);
      assert.equal(await events(t.key, { workflowExecutionUUID: uuid }), null);
      assert.equal(
        await events(t.key, { workflowExecutionUUID: uuid, capabilityID: 'x', status: 'y' }),
        null,
      );
    }
    assert.deepEqual(await logs(t.key, run), []);
    assert.deepEqual(await logs(t.key, run.toUpperCase()), []);
    assert.deepEqual(await events(t.key, { workflowExecutionUUID: run }), []);
    assert.deepEqual(await events(t.key, { workflowExecutionUUID: run, capabilityID: 'x' }), []);
  });

  it('keeps logs and events that arrive before their execution and shows them once it and its workflow arrive', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const run = execution(t.organizationId, wf.uuid as string);
    const uuid = run.uuid as string;
    await ingest(ctx.db, [
      log(t.organizationId, uuid, { message: 'early' }),
      event(t.organizationId, uuid, { capabilityID: 'early@1' }),
    ]);
    assert.equal(await logs(t.key, uuid), null);
    assert.equal(await events(t.key, { workflowExecutionUUID: uuid }), null);
    await ingest(ctx.db, [run]);
    // The execution is not visible while its workflow is missing, nor are its lines.
    assert.equal(await logs(t.key, uuid), null);
    assert.equal(await events(t.key, { workflowExecutionUUID: uuid }), null);
    await ingest(ctx.db, [
      wf,
      log(t.organizationId, uuid, { message: 'late', timestamp: '2026-01-02T00:00:02Z' }),
    ]);
    assert.deepEqual(
      (await logs(t.key, uuid))!.map((l) => l.message),
      ['early', 'late'],
    );
    assert.deepEqual(
      (await events(t.key, { workflowExecutionUUID: uuid }))!.map((e) => e.capabilityID),
      ['early@1'],
    );
  });
});
