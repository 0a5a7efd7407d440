/**
 * Ingestion through a real NATS JetStream (contract section 6): records published to
 * `wfapi.ingest.<organizationId>` are stored by the worker through the POST /ingest path, rejected
 * lines are published with their line and reason, and nothing is stored twice.
 */

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { INGEST_OBSERVERS } from '../../src/app.js';
import { publishNdjson } from '../../src/cli/commands/ingest/nats-publish.js';
import type { Database } from '../../src/db/database.js';
import { ingestSubject, rejectedSubject } from '../../src/ingest/nats-jetstream.js';
import { type IngestWorker, startIngestWorker } from '../../src/ingest/nats-worker.js';
import { ndjsonLines } from '../../src/ingest/ndjson-lines.js';
import { runCli } from '../harness/cli.js';
import { openTestDatabase, type TestDatabase } from '../harness/database.js';
import { requireEngine } from '../harness/engines.js';
import { eventually, eventuallyRead } from '../harness/eventually.js';
import {
  createTenant,
  deployment,
  event,
  execution,
  log,
  type Tenant,
  workflow,
} from '../harness/fixtures.js';
import { type NatsServer, startNatsServer } from '../harness/nats-server.js';
import { startServer, type TestServer } from '../harness/server.js';
import { buildDataset, clearPlatformData, readEverything } from './dataset.js';
import { INGEST_TOKEN, ndjson, postIngest } from './http.js';
import { type NatsClient, natsClient } from './nats-helpers.js';
import { rollupDrift } from './rollup-drift.js';

const counts = async (db: Database, organizationId: string) => {
  const count = async (table: string) =>
    (
      await db.query<{ n: number }>(`select count(*)::int as n from ${table} where organization_id = $1`, [
        organizationId,
      ])
    )[0]!.n;
  return {
    workflows: await count('workflows'),
    deployments: await count('deployments'),
    executions: await count('executions'),
    logs: await count('execution_logs'),
    events: await count('execution_events'),
  };
};

/** Lines as the publisher reads them from a file. */
async function* linesOf(records: readonly unknown[]) {
  async function* body() {
    yield new TextEncoder().encode(ndjson(records));
  }
  yield* ndjsonLines(body());
}

/** The consumer's ack wait: a message a worker took and never acknowledged is redelivered after it. */
const ACK_WAIT_MS = 5000;

const natsServer = await requireEngine('nats-server');
describe('ingestion through NATS JetStream', natsServer, () => {
  let nats: NatsServer;
  let database: TestDatabase;
  let server: TestServer;
  let client: NatsClient;
  let worker: IngestWorker;
  const workerOptions = () => ({
    db: database.db,
    natsUrl: nats.url,
    batchMessages: 4,
    ackWaitMs: ACK_WAIT_MS,
    batchSize: 5000,
    observers: INGEST_OBSERVERS,
  });

  before(async () => {
    nats = await startNatsServer();
    database = await openTestDatabase();
    server = await startServer(database.db, { ingestToken: INGEST_TOKEN });
    worker = await startIngestWorker(workerOptions());
    client = await natsClient(nats.url);
  });

  after(async () => {
    await worker?.stop();
    await client?.close();
    await server?.close();
    await database?.close();
    await nats?.stop();
  });

  it('stores a dataset published in messages exactly as POST /ingest does, as /graphql shows', async () => {
    const tenant = await createTenant(database.db, 'Graph');
    const dataset = buildDataset(
      tenant.organizationId,
      { workflows: 3, executionsPerWorkflow: 8, logsPerExecution: 3, eventsPerExecution: 3 },
      7,
    );
    const posted = await postIngest(server.url, dataset.records);
    assert.equal(posted.status, 200);
    assert.equal(posted.body.rejectedCount, 0);
    const expected = await readEverything(server, tenant.key, dataset);
    await clearPlatformData(database.db);

    // Published twice, cut differently: the second copy is a redelivery of every record.
    const target = { natsUrl: nats.url, organizationId: tenant.organizationId };
    const first = await publishNdjson({ ...target, chunkLines: 17 }, linesOf(dataset.records));
    const second = await publishNdjson({ ...target, chunkLines: 40 }, linesOf(dataset.records));
    assert.equal(first.published, dataset.records.length);
    assert.equal(second.duplicates, 0, 'cut differently, the messages are new to JetStream');
    await client.drained();
    assert.deepEqual(await readEverything(server, tenant.key, dataset), expected);
    const drift = await rollupDrift(database.db);
    assert.equal(drift.actual, drift.expected);
  });

  it('publishes rejected lines with their line numbers and the reasons POST /ingest gives', async () => {
    const tenant = await createTenant(database.db, 'Rejects');
    const org = tenant.organizationId;
    const flow = workflow(org);
    const lines = [
      flow,
      '{"type": "workflow", not json',
      { ...execution(org, flow.uuid as string), status: 'NOT_A_STATUS' },
      { type: 'mystery', organizationId: org },
      '',
      execution(org, flow.uuid as string),
      log(org, randomUUID(), { timestamp: 'yesterday' }),
    ];
    const posted = await postIngest(server.url, lines);
    assert.equal(posted.status, 200);
    assert.equal(posted.body.rejectedCount, 4);

    // Three lines a message: the line numbers count over the whole file, across messages.
    const result = await publishNdjson(
      { natsUrl: nats.url, organizationId: org, chunkLines: 3 },
      linesOf(lines),
    );
    assert.equal(result.messages, 3);
    await client.drained();
    const reports = await client.rejections(rejectedSubject(org));
    assert.deepEqual(
      reports.flatMap((report) => report.rejected),
      posted.body.rejected,
    );
    for (const report of reports) {
      assert.equal(report.subject, ingestSubject(org));
      assert.equal(report.rejectedCount, report.rejected.length);
      assert.match(report.msgId ?? '', /^[0-9a-f]{64}$/);
    }
  });

  it("rejects records of another organization than the subject's", async () => {
    const tenant = await createTenant(database.db, 'Subject');
    const other = await createTenant(database.db, 'Other');
    const flow = workflow(other.organizationId);
    await client.publish(ingestSubject(tenant.organizationId), [workflow(tenant.organizationId), flow]);
    await client.drained();
    const [report] = await client.rejections(rejectedSubject(tenant.organizationId));
    assert.deepEqual(report?.rejected, [
      {
        line: 2,
        error: `organizationId ${other.organizationId} is not ${tenant.organizationId}, the organization these records are sent for`,
      },
    ]);
    assert.equal((await counts(database.db, other.organizationId)).workflows, 0);
    assert.equal((await counts(database.db, tenant.organizationId)).workflows, 1);
  });

  it('acknowledges a message for an unknown organization once its lines are reported rejected', async () => {
    const unknown = randomUUID();
    await client.publish(ingestSubject(unknown), [workflow(unknown), workflow(unknown)]);
    await client.publish(ingestSubject('not-an-organization'), [workflow(unknown)]);
    const { redelivered } = await client.drained();
    assert.equal(redelivered, 0, 'no message is delivered again: no poison loop');
    const [report] = await client.rejections(rejectedSubject(unknown));
    assert.deepEqual(report?.rejected, [
      { line: 1, error: `unknown organizationId ${unknown}` },
      { line: 2, error: `unknown organizationId ${unknown}` },
    ]);
    const [bad] = await client.rejections(rejectedSubject('not-an-organization'));
    assert.match(bad?.rejected[0]?.error ?? '', /is not not-an-organization/);
  });

  it('stores every record type once when the same message is delivered again', async () => {
    const tenant = await createTenant(database.db, 'Twice');
    const org = tenant.organizationId;
    const flow = workflow(org);
    const run = execution(org, flow.uuid as string, {
      status: 'FAILURE',
      finishedAt: '2026-01-02T00:00:03Z',
    });
    const records = [
      flow,
      deployment(org, flow.uuid as string),
      run,
      log(org, run.uuid as string, { message: 'one' }),
      log(org, run.uuid as string, { message: 'two' }),
      event(org, run.uuid as string, { finishedAt: '2026-01-02T00:00:01Z' }),
      event(org, run.uuid as string, { capabilityID: 'http@1.0.0', status: 'FAILED' }),
    ];
    // Different message ids, so JetStream delivers both copies: what a crash after commit and
    // before the acknowledgement amounts to.
    await client.publish(ingestSubject(org), records, { msgID: randomUUID() });
    await client.drained();
    const once = await counts(database.db, org);
    await client.publish(ingestSubject(org), records, { msgID: randomUUID() });
    await client.publish(ingestSubject(org), [...records].reverse(), { msgID: randomUUID() });
    await client.drained();
    assert.deepEqual(once, { workflows: 1, deployments: 1, executions: 1, logs: 2, events: 2 });
    assert.deepEqual(await counts(database.db, org), once);
    const answer = await server.gql(
      tenant.key,
      '{ workflows(input: {}) { data { executionCountByStatus { failure } } } }',
    );
    assert.deepEqual(answer.body.data.workflows.data, [{ executionCountByStatus: { failure: 1 } }]);
    const drift = await rollupDrift(database.db);
    assert.equal(drift.actual, drift.expected);
  });

  it('shares the stream between two workers, each message stored by one of them', async () => {
    const tenant = await createTenant(database.db, 'Pair');
    const org = tenant.organizationId;
    const second = await startIngestWorker(workerOptions());
    try {
      const before = [worker.stats.messages, second.stats.messages] as const;
      const flow = workflow(org);
      await client.publish(ingestSubject(org), [flow]);
      const MESSAGES = 40;
      for (let m = 0; m < MESSAGES; m++) {
        const runs = Array.from({ length: 50 }, (_, i) =>
          execution(org, flow.uuid as string, {
            startedAt: `2026-01-02T00:${String(i).padStart(2, '0')}:00Z`,
          }),
        );
        await client.publish(
          ingestSubject(org),
          runs.flatMap((run) => [run, log(org, run.uuid as string)]),
        );
      }
      await client.drained();
      const taken = [worker.stats.messages - before[0], second.stats.messages - before[1]];
      assert.equal(taken[0]! + taken[1]!, MESSAGES + 1);
      assert.ok(taken[0]! > 0 && taken[1]! > 0, `both workers took messages: ${taken}`);
      assert.deepEqual(await counts(database.db, org), {
        workflows: 1,
        deployments: 0,
        executions: MESSAGES * 50,
        logs: MESSAGES * 50,
        events: 0,
      });
    } finally {
      await second.stop();
    }
  });

  it('a stopped worker stores and acknowledges the batch in hand and leaves the rest in the stream', async () => {
    const tenant = await createTenant(database.db, 'Stop');
    const org = tenant.organizationId;
    await worker.stop();
    const flow = workflow(org);
    const MESSAGES = 20;
    for (let m = 0; m < MESSAGES; m++) {
      const runs = Array.from({ length: 50 }, () => execution(org, flow.uuid as string));
      await client.publish(ingestSubject(org), m === 0 ? [flow, ...runs] : runs);
    }
    const stopping = await startIngestWorker(workerOptions());
    try {
      await eventually(() => stopping.stats.messages > 0, 'the worker took a message');
      await stopping.stop();
      // The worker flushed its acknowledgements before it closed; the server applies them apart
      // from this client's request, so the state is read until it shows them, within less than
      // the ack wait (after which a message dropped in hand would leave the count at 0 as well).
      const state = await eventuallyRead(
        () => client.consumerState(),
        (read) => read.unacknowledged === 0,
        'nothing is left in hand to wait for its ack wait',
        { timeoutMs: ACK_WAIT_MS / 2 },
      );
      assert.ok(state.pending > 0, 'stopped before the end of the stream');
      assert.equal((await counts(database.db, org)).executions, stopping.stats.messages * 50);
    } finally {
      await stopping.stop();
      worker = await startIngestWorker(workerOptions());
    }
    await client.drained();
    assert.equal((await counts(database.db, org)).executions, MESSAGES * 50);
  });

  it('`wfapi ingest FILE --nats` publishes a file end to end, reports the lines the worker rejected, and a re-run is deduplicated by JetStream', async () => {
    const tenant: Tenant = await createTenant(database.db, 'Cli');
    const org = tenant.organizationId;
    const flow = workflow(org);
    const runs = Array.from({ length: 30 }, () => execution(org, flow.uuid as string));
    const dir = mkdtempSync(join(tmpdir(), 'wfapi-nats-cli-'));
    try {
      const file = join(dir, 'records.ndjson');
      writeFileSync(file, ndjson([flow, ...runs, '{broken']));
      const args = ['ingest', file, '--nats', nats.url, '--organization', org, '--chunk-lines', '10'];
      const first = await runCli(args);
      // The worker's reasons reach the command: it waits for the worker to report its messages.
      assert.equal(first.code, 1, first.stderr);
      assert.match(
        first.stdout,
        new RegExp(`32 lines published to wfapi\\.ingest\\.${org} in 4 messages, 1 rejected`),
      );
      assert.match(first.stderr, /^line 32: invalid JSON/m);
      await client.drained();
      const answer = await server.gql(tenant.key, '{ workflowExecutions(input: {}) { count } }');
      assert.equal(answer.body.data.workflowExecutions.count, 30);
      const [report] = await client.rejections(rejectedSubject(org));
      assert.equal(report?.rejected[0]?.line, 32);
      assert.match(report?.rejected[0]?.error ?? '', /^invalid JSON/);

      const again = await runCli([...args, '--json']);
      assert.equal(again.code, 1, again.stderr);
      const summary = JSON.parse(again.stdout);
      assert.equal(summary.duplicates, 4);
      assert.equal(summary.published, 32);
      // The messages were already held, and reported: the first run's reports are found again.
      assert.equal(summary.worker.rejectedCount, 1);
      assert.equal(summary.worker.rejected[0].line, 32);
      assert.equal(summary.worker.unprocessed, 0);

      const noWait = await runCli([...args, '--wait', '0']);
      assert.equal(noWait.code, 0, noWait.stderr);
      assert.match(noWait.stdout, /0 rejected, .*the worker reports rejected lines on wfapi\.rejected\./);
      await client.drained();
      assert.equal((await counts(database.db, org)).executions, 30);

      const usage = await runCli(['ingest', file, '--nats', nats.url]);
      assert.equal(usage.code, 2);
      assert.match(usage.stderr, /--nats needs --organization/);

      const unreachable = await runCli([
        'ingest',
        file,
        '--nats',
        'nats://127.0.0.1:1',
        '--organization',
        org,
      ]);
      assert.equal(unreachable.code, 5, unreachable.stderr);
      assert.match(unreachable.stderr, /cannot reach NATS at nats:\/\/127\.0\.0\.1:1/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
