/**
 * `wfapi ingest-worker` as a real process against a real nats-server: SIGKILLed in the middle of
 * a stream of about 100,000 records and restarted, it loses and duplicates nothing; SIGTERM
 * ends it with exit code 0 (nats.test.ts shows a stop mid-stream acknowledging the batch in hand).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { publishNdjson } from '../../src/cli/commands/ingest/nats-publish.js';
import { INGEST_CONSUMER, INGEST_STREAM } from '../../src/ingest/nats-jetstream.js';
import { ndjsonLines } from '../../src/ingest/ndjson-lines.js';
import { requireEngine } from '../harness/engines.js';
import { type NatsServer, startNatsServer } from '../harness/nats-server.js';
import { cleanEnv, startWfapi, type WfapiProcess } from '../harness/process.js';
import { type ServerDatabase, serverDatabase } from './child-server.js';
import { buildDataset } from './dataset.js';
import { ndjson } from './http.js';

type Raw = Record<string, unknown>;

/** What the records must leave stored: distinct executions, log lines and events (by content, as stored). */
function expectedCounts(records: readonly Raw[]) {
  const distinct = (type: string, key: (r: Raw) => unknown[]) =>
    new Set(records.filter((r) => r.type === type).map((r) => JSON.stringify(key(r)))).size;
  return {
    executions: distinct('execution', (r) => [r.uuid]),
    logs: distinct('log', (r) => [r.workflowExecutionUUID, r.nodeID, r.timestamp, r.message]),
    events: distinct('event', (r) => [
      r.workflowExecutionUUID,
      r.capabilityID,
      r.status,
      r.method,
      r.startedAt,
      r.finishedAt,
      r.errors,
    ]),
  };
}

const natsServer = await requireEngine('nats-server');
describe('an ingest worker process killed in the middle of a stream', natsServer, () => {
  let nats: NatsServer;
  let database: ServerDatabase;

  before(async () => {
    nats = await startNatsServer();
    database = await serverDatabase();
  });

  after(async () => {
    await database?.cleanup();
    await nats?.stop();
  });

  const startWorker = async (): Promise<WfapiProcess> => {
    const worker = startWfapi(['ingest-worker'], {
      env: cleanEnv({
        ...database.env,
        WFAPI_NATS_URL: nats.url,
        // A killed worker's batch is redelivered after the ack wait: short here, to keep the test short.
        WFAPI_NATS_ACK_WAIT_MS: '3000',
        WFAPI_NATS_BATCH_MESSAGES: '10',
      }),
      timeoutMs: 180_000,
    });
    await worker.waitFor(/consuming WFAPI_INGEST/, 30_000, 'stderr');
    return worker;
  };

  it('leaves 0 records lost and 0 duplicated after a SIGKILL and a restart', {
    timeout: 240_000,
  }, async (t) => {
    const org = database.tenant.organizationId;
    const dataset = buildDataset(
      org,
      { workflows: 10, executionsPerWorkflow: 1100, logsPerExecution: 5, eventsPerExecution: 3 },
      11,
    );
    const records = dataset.records;
    assert.ok(records.length >= 100_000, `${records.length} records`);
    const expected = expectedCounts(records);

    const nc = await connect({ servers: nats.url });
    const jsm = await jetstreamManager(nc);
    /** Stream messages acknowledged so far (every one before the floor is). */
    const acked = async () => (await jsm.consumers.info(INGEST_STREAM, INGEST_CONSUMER)).ack_floor.stream_seq;
    const untilAcked = async (atLeast: number, worker: WfapiProcess) => {
      while ((await acked()) < atLeast) {
        assert.equal(worker.child.exitCode, null, `the worker exited: ${worker.stderr()}`);
        await sleep(20);
      }
    };
    let worker: WfapiProcess | undefined;
    const t0 = Date.now();
    const phase = (name: string) => t.diagnostic(`${name} at ${Date.now() - t0} ms`);
    try {
      worker = await startWorker();
      async function* body() {
        yield new TextEncoder().encode(ndjson(records));
      }
      const published = await publishNdjson(
        { natsUrl: nats.url, organizationId: org, chunkLines: 1000 },
        ndjsonLines(body()),
      );
      assert.equal(published.published, records.length);
      phase('published');
      const messages = published.messages;

      await untilAcked(Math.floor(messages * 0.3), worker);
      phase('killing');
      await worker.kill('SIGKILL');
      const atKill = await acked();
      assert.ok(
        atKill > 0 && atKill < messages,
        `killed with ${atKill} of ${messages} messages acknowledged`,
      );
      t.diagnostic(`SIGKILLed with ${atKill} of ${messages} messages acknowledged`);

      worker = await startWorker();
      await untilAcked(messages, worker);
      phase('done');
      // SIGTERM: the batch in hand (none is left here) is acknowledged, and the process exits 0.
      worker.child.kill('SIGTERM');
      assert.equal((await worker.exited).code, 0, worker.stderr());
      assert.match(worker.stderr(), /wfapi ingest-worker stopped: \d+ messages/);
      const final = await jsm.consumers.info(INGEST_STREAM, INGEST_CONSUMER);
      assert.equal(final.num_pending + final.num_ack_pending, 0);
    } finally {
      await worker?.kill();
      await nc.close();
    }

    const db = await database.open();
    const count = async (table: string) =>
      (await db.query<{ n: number }>(`select count(*)::int as n from ${table}`))[0]!.n;
    assert.deepEqual(
      {
        executions: await count('executions'),
        logs: await count('execution_logs'),
        events: await count('execution_events'),
      },
      expected,
    );
    assert.equal(await count('workflows'), dataset.workflows.length);
    assert.equal(await count('deployments'), dataset.deployments.length);
    // The daily rollups count each execution once (nats.test.ts checks every rollup on redeliveries).
    const [totals] = await db.query<Record<string, string>>(
      `select (select sum(execution_count)::text from execution_rollups where grain = 86400) as rolled,
              (select count(*)::text from executions) as counted,
              (select sum(execution_count)::text from execution_rollups where grain = 86400 and status = 'FAILURE') as rolled_failures,
              (select count(*)::text from executions where status = 'FAILURE') as failures`,
    );
    assert.equal(totals!.rolled, totals!.counted);
    assert.equal(totals!.rolled_failures, totals!.failures);
    phase('counted');
  });
});
