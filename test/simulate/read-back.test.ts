import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { uploadNdjson } from '../../src/client/ingest-client.js';
import { recordsBetween, toNdjsonLine } from '../../src/simulate/index.js';
import { createTenant } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { index, smallWorld, UNTIL } from './world-fixture.js';

const INGEST_TOKEN = 'simulate-read-back-ingest-token';

async function* lines(records: Iterable<Parameters<typeof toNdjsonLine>[0]>): AsyncGenerator<string> {
  for (const record of records) yield toNdjsonLine(record);
}

describe('simulated data stored through POST /ingest', () => {
  const ctx = useServer({ ingestToken: INGEST_TOKEN });

  it('answers every read query in agreement with the records sent', async () => {
    const tenant = await createTenant(ctx.db);
    const world = smallWorld({
      organizationId: tenant.organizationId,
      workflows: 8,
      days: 3,
      executions: 2500,
    });
    const records = [...recordsBetween(world, Number.NEGATIVE_INFINITY, UNTIL)];
    const result = await uploadNdjson({ url: ctx.server.url, token: INGEST_TOKEN }, lines(records), {
      chunkLines: 4000,
    });
    assert.deepEqual(result.rejected, []);
    assert.equal(result.accepted, records.length);
    const data = index(records);
    const final = new Map(data.executions.map((e) => [e.uuid, e]));
    const gql = async (query: string, variables?: Record<string, unknown>) => {
      const answer = await ctx.server.gql(tenant.key, query, variables);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.errors, undefined, JSON.stringify(answer.body.errors));
      return answer.body.data;
    };

    const { workflows } = await gql(
      '{ workflows(input: {page: {size: 100}}) { count data { uuid name executionCount executionCountByStatus { success failure } hasTeeExecutions hasNonTeeExecutions } } }',
    );
    assert.equal(workflows.count, 8);
    for (const workflow of workflows.data) {
      const own = [...final.values()].filter((e) => e.workflowUUID === workflow.uuid);
      assert.equal(workflow.executionCount, own.length, workflow.name);
      assert.deepEqual(workflow.executionCountByStatus, {
        success: own.filter((e) => e.status === 'SUCCESS').length,
        failure: own.filter((e) => e.status === 'FAILURE').length,
      });
      assert.equal(
        workflow.hasTeeExecutions,
        own.some((e) => e.executedInTee),
      );
      assert.equal(
        workflow.hasNonTeeExecutions,
        own.some((e) => !e.executedInTee),
      );
    }

    const failures = [...final.values()].filter((e) => e.status === 'FAILURE');
    const { workflowExecutions } = await gql(
      '{ workflowExecutions(input: {status: [FAILURE], page: {size: 1}}) { count data { uuid classifiedStatus errors { error count } } } }',
    );
    assert.equal(workflowExecutions.count, failures.length);
    const failed = workflowExecutions.data[0];
    assert.deepEqual(failed.errors, final.get(failed.uuid)!.errors);
    assert.equal(failed.classifiedStatus, final.get(failed.uuid)!.classifiedStatus);

    const timeline = await gql(
      `query ($uuid: String!) {
        workflowExecutionEvents(input: {workflowExecutionUUID: $uuid}) { data { capabilityID status method errors { error } } }
        workflowExecutionLogs(input: {workflowExecutionUUID: $uuid}) { data { nodeID message timestamp } }
      }`,
      { uuid: failed.uuid },
    );
    const events = [...data.events.get(failed.uuid)!].sort((a, b) => +a.startedAt - +b.startedAt);
    assert.deepEqual(
      timeline.workflowExecutionEvents.data.map((e: { capabilityID: string; status: string }) => [
        e.capabilityID,
        e.status,
      ]),
      events.map((e) => [e.capabilityID, e.status]),
    );
    assert.equal(timeline.workflowExecutionEvents.data.at(-1).status, 'FAILED');
    assert.equal(timeline.workflowExecutionLogs.data.length, data.logs.get(failed.uuid)!.length);

    const from = new Date(world.start).toISOString();
    const to = new Date(UNTIL).toISOString();
    const { workflowActivity } = await gql(
      'query ($from: Time!, $to: Time!) { workflowActivity(input: {from: $from, to: $to}) { data { successCount failureCount } } }',
      { from, to },
    );
    const sum = (field: 'successCount' | 'failureCount') =>
      workflowActivity.data.reduce((total: number, row: Record<string, number>) => total + row[field]!, 0);
    assert.equal(sum('successCount'), [...final.values()].filter((e) => e.status === 'SUCCESS').length);
    assert.equal(sum('failureCount'), failures.length);
  });
});
