import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { uploadNdjson } from '../../src/client/ingest-client.js';
import { freePort, type WfapiProcess } from '../harness/process.js';
import { serve, serverDatabase } from './child-server.js';
import { INGEST_TOKEN } from './http.js';
import { rollupDrift } from './rollup-drift.js';

const EXECUTIONS = 15_000;
const WORKFLOWS = 5;

/** One workflow record per workflow, then executions with a log line each, as NDJSON lines. */
function* dataset(organizationId: string, workflows: readonly string[]): Generator<string> {
  for (const [w, uuid] of workflows.entries()) {
    yield JSON.stringify({
      type: 'workflow',
      organizationId,
      uuid,
      workflowId: `wf-${w}`,
      name: `flow-${w}`,
      ownerAddress: '0xabc',
      status: 'ACTIVE',
      registeredAt: '2026-01-01T00:00:00Z',
    });
  }
  const start = Date.parse('2026-01-02T00:00:00Z');
  for (let i = 0; i < EXECUTIONS; i++) {
    const uuid = `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
    const startedAt = new Date(start + i * 7_000).toISOString();
    yield JSON.stringify({
      type: 'execution',
      organizationId,
      uuid,
      id: `run-${i}`,
      workflowUUID: workflows[i % workflows.length],
      status: i % 3 === 0 ? 'FAILURE' : 'SUCCESS',
      startedAt,
      creditUsed: '0.5',
      executedInTee: i % 2 === 0,
    });
    yield JSON.stringify({
      type: 'log',
      organizationId,
      workflowExecutionUUID: uuid,
      nodeID: 'node-1',
      message: `execution ${i} done`,
      timestamp: startedAt,
    });
  }
}

async function gql(port: number, key: string, query: string) {
  const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Apikey ${key}` },
    body: JSON.stringify({ query }),
  });
  return (await response.json()).data;
}

describe('a server killed during ingestion', () => {
  it('ends with exact counts after a restart and a full re-send', { timeout: 240_000 }, async (t) => {
    const port = await freePort();
    const workflows = Array.from({ length: WORKFLOWS }, () => randomUUID());
    const database = await serverDatabase();
    const { env, tenant } = database;
    const total = WORKFLOWS + 2 * EXECUTIONS;
    let server: WfapiProcess | undefined;
    try {
      // One large streamed request; the server is killed once about 40% of it has been sent.
      server = await serve({ ...env, WFAPI_INGEST_BATCH_SIZE: '1000' }, port);
      const encoder = new TextEncoder();
      const lines = dataset(tenant.organizationId, workflows);
      let sent = 0;
      let killed = false;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = lines.next();
          if (next.done) return controller.close();
          sent++;
          if (!killed && sent >= total * 0.4) {
            killed = true;
            server!.child.kill('SIGKILL');
          }
          controller.enqueue(encoder.encode(`${next.value}\n`));
        },
      });
      const first = await fetch(`http://127.0.0.1:${port}/ingest`, {
        method: 'POST',
        headers: { authorization: `Bearer ${INGEST_TOKEN}`, 'content-type': 'application/x-ndjson' },
        body,
        duplex: 'half',
      } as RequestInit).then(
        (response) => response.status,
        (error: Error) => error,
      );
      assert.ok(first instanceof Error, `the upload should have been cut off, got ${first}`);
      await server.exited;

      server = await serve({ ...env, WFAPI_INGEST_BATCH_SIZE: '1000' }, port);
      const partial = await gql(port, tenant.key, '{ workflowExecutions(input: {}) { count } }');
      const stored = partial.workflowExecutions.count as number;
      assert.ok(stored > 0 && stored < EXECUTIONS, `killed mid-stream with ${stored} executions stored`);
      t.diagnostic(`killed with ${stored} of ${EXECUTIONS} executions stored`);

      async function* again() {
        yield* dataset(tenant.organizationId, workflows);
      }
      const result = await uploadNdjson({ url: `http://127.0.0.1:${port}`, token: INGEST_TOKEN }, again());
      assert.equal(result.accepted, total);
      assert.equal(result.rejectedCount, 0);

      const data = await gql(
        port,
        tenant.key,
        `{ workflowExecutions(input: {}) { count }
           workflows(input: {}) { count data { executionCount executionCountByStatus { success failure } creditUsed } } }`,
      );
      assert.equal(data.workflowExecutions.count, EXECUTIONS);
      assert.equal(data.workflows.count, WORKFLOWS);
      const sum = (
        pick: (w: { executionCount: number; executionCountByStatus: { failure: number } }) => number,
      ) => data.workflows.data.reduce((n: number, w: never) => n + pick(w), 0);
      assert.equal(
        sum((w) => w.executionCount),
        EXECUTIONS,
      );
      assert.equal(
        sum((w) => w.executionCountByStatus.failure),
        EXECUTIONS / 3,
      );
      // Killed again right after the answer: what was acknowledged is durable.
      await server.kill('SIGKILL');

      const db = await database.open();
      const [logs] = await db.query<{ n: number }>('select count(*)::int as n from execution_logs');
      assert.equal(logs!.n, EXECUTIONS);
      const drift = await rollupDrift(db);
      assert.equal(drift.actual, drift.expected);
    } finally {
      await server?.kill();
      await database.cleanup();
    }
  });
});
