import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Database } from '../../src/db/database.js';
import { openPostgres } from '../../src/db/postgres.js';
import { ADMIN_TOKEN } from '../admin/admin-request.js';
import { openTestDatabase, TEST_DB, type TestDatabase } from '../harness/database.js';
import { execution, ingest } from '../harness/fixtures.js';
import { ManualClock } from '../harness/manual-clock.js';
import { startServer, type TestServer } from '../harness/server.js';
import { INGEST_TOKEN, postIngest } from '../ingest/http.js';
import { TcpProxy } from '../ops/tcp-proxy.js';
import { deliveriesWhen, tenantWithRule } from './alerts-request.js';
import { type Receiver, startReceiver } from './receiver.js';

const OUTAGE_SKIP =
  'a database outage is staged with PostgreSQL only: the embedded PGlite runs in-process and cannot go away';
const outageSkip = TEST_DB === 'postgres' ? false : OUTAGE_SKIP;
if (outageSkip) console.log(`# skipping the delivery outage test: ${OUTAGE_SKIP}`);

/** Fast enough for a test; a claimed delivery whose mark was lost is due again after this plus 5 s. */
const TIMEOUT_MS = 500;
const ALERTS = { allowPrivate: true, pollMs: 50, retryBaseMs: 100, timeoutMs: TIMEOUT_MS } as const;

const now = () => new Date().toISOString();

interface DeliveryRow {
  id: string;
  status: string;
  attempts: number;
}

describe('an accepted delivery', () => {
  let database: TestDatabase;
  let receiver: Receiver;
  before(async () => {
    database = await openTestDatabase();
    receiver = await startReceiver();
  });
  afterEach(async () => {
    receiver.received.length = 0;
    receiver.answers = [];
    receiver.beforeAnswer = undefined;
    await database.reset();
  });
  after(async () => {
    await receiver?.close();
    await database?.close();
  });

  /** A tenant with one workflow and an EXECUTION_FAILED webhook rule posting to the receiver. */
  async function setup(server: TestServer) {
    const { tenant, workflowUuid, secret } = await tenantWithRule(database.db, server.url, () => ({
      name: 'failures',
      condition: 'EXECUTION_FAILED',
      target: 'WEBHOOK',
      url: receiver.url,
    }));
    receiver.secret = secret ?? undefined;
    return { organizationId: tenant.organizationId, workflowUuid };
  }

  describe('whose outbox write fails', () => {
    let server: TestServer;
    before(async () => {
      server = await startServer(database.db, {
        adminToken: ADMIN_TOKEN,
        ingestToken: INGEST_TOKEN,
        alerts: ALERTS,
      });
    });
    after(async () => {
      await server?.close();
    });

    it('fails its whole ingestion batch, so the client re-sends it and data never commits without its deliveries', async () => {
      const { organizationId, workflowUuid } = await setup(server);
      // The outbox insert fails as on a full disk (SQLSTATE 53100), after the batch's data was written.
      await database.db.query(`create function wfapi_test_full_disk() returns trigger language plpgsql as $$
        begin raise exception 'could not extend file: No space left on device' using errcode = '53100'; end $$`);
      await database.db.query(`create trigger wfapi_test_full_disk before insert on webhook_deliveries
        for each statement execute function wfapi_test_full_disk()`);
      const failed = execution(organizationId, workflowUuid, { status: 'FAILURE', startedAt: now() });
      const refused = await postIngest(server.url, [failed]);
      // A full disk is the database out of resources, not a bug: 503, retry later, never a bare 500.
      assert.equal(refused.status, 503, JSON.stringify(refused.body));
      assert.equal(
        refused.body.errors[0].extensions.code,
        'SERVICE_UNAVAILABLE',
        JSON.stringify(refused.body),
      );
      assert.deepEqual(
        await database.db.query('select uuid from executions where uuid = $1', [failed.uuid]),
        [],
        'the execution committed without its delivery',
      );

      await database.db.query('drop trigger wfapi_test_full_disk on webhook_deliveries');
      await database.db.query('drop function wfapi_test_full_disk()');
      const accepted = await postIngest(server.url, [failed]);
      assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
      assert.equal(accepted.body.accepted, 1);
      const [request] = await receiver.waitFor(1);
      assert.equal(request!.json.data.execution.uuid, failed.uuid);
      assert.equal(request!.verified, true);
      await deliveriesWhen(server.url, organizationId, (d) => d.length === 1 && d[0].status === 'DELIVERED');
    });

    it('keeps its webhook-id when a crash takes back its batch after it was sent and the client re-sends the batch', async () => {
      const { organizationId, workflowUuid } = await setup(server);
      const failed = execution(organizationId, workflowUuid, { status: 'FAILURE', startedAt: now() });
      assert.equal((await postIngest(server.url, [failed])).status, 200);
      const [first] = await receiver.waitFor(1);
      await deliveriesWhen(server.url, organizationId, (d) => d[0]?.status === 'DELIVERED');
      // What a crash loses of a commit not yet flushed (ingestion commits without waiting for
      // the disk, and answers once it is flushed): the batch's execution and its delivery.
      await database.db.query('delete from webhook_deliveries');
      await database.db.query('delete from executions where uuid = $1', [failed.uuid]);
      await database.db.query('delete from execution_keys where uuid = $1', [failed.uuid]);
      assert.equal((await postIngest(server.url, [failed])).status, 200);
      const [, second] = await receiver.waitFor(2);
      assert.equal(second!.headers['webhook-id'], first!.headers['webhook-id']);
      assert.equal(second!.json.data.execution.uuid, failed.uuid);
    });
  });

  describe('sent while PostgreSQL goes away', { skip: outageSkip }, () => {
    // The outbox's due times and leases follow this clock, ahead of the database's (what that deems
    // due is due): the lease runs out when the test says.
    const clock = new ManualClock(Date.now() + 60_000);
    let proxy: TcpProxy;
    let proxied: Database;
    let server: TestServer;
    before(async () => {
      const target = new URL(database.url!);
      proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
      await proxy.start();
      const viaProxy = new URL(database.url!);
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(proxy.port);
      // The server (and its delivery worker) reaches the database through the proxy; the test does not.
      proxied = openPostgres(viaProxy.toString(), { poolSize: 3, statementTimeoutMs: 5000 });
      server = await startServer(proxied, { adminToken: ADMIN_TOKEN, alerts: ALERTS }, { now: clock.read });
    });
    after(async () => {
      await server?.close();
      await proxied?.close();
      await proxy?.stop();
    });

    it('is sent again with the same webhook-id once the database is back, when the database went away before its sent mark was written', async () => {
      const { organizationId, workflowUuid } = await setup(server);
      // The receiver has the request; before it answers 200, the server loses its database.
      receiver.beforeAnswer = async () => {
        receiver.beforeAnswer = undefined;
        await proxy.stop();
      };
      await ingest(database.db, [
        execution(organizationId, workflowUuid, { status: 'FAILURE', startedAt: now() }),
      ]);
      const [first] = await receiver.waitFor(1);
      // Kept, short: the worker's write of the outcome fails at once (the proxy refuses connections),
      // and nothing outside the server announces that it has; it must have failed before the
      // database comes back.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const during = await database.db.query<DeliveryRow>(
        'select id, status, attempts from webhook_deliveries',
      );
      assert.deepEqual(
        during,
        [{ id: first!.headers['webhook-id'], status: 'PENDING', attempts: 0 }],
        'the outbox row is kept, not marked sent',
      );

      await proxy.start();
      // Due again once its lease (the attempt's time limit plus 5 s) runs out.
      clock.advance(TIMEOUT_MS + 5000);
      const [, second] = await receiver.waitFor(2);
      assert.equal(second!.headers['webhook-id'], first!.headers['webhook-id']);
      assert.equal(second!.verified, true);
      assert.equal(second!.body, first!.body);
      const [delivered] = await deliveriesWhen(
        server.url,
        organizationId,
        (d) => d[0]?.status === 'DELIVERED',
      );
      assert.equal(delivered.id, first!.headers['webhook-id']);
      assert.equal(delivered.attempts, 1, 'the attempt whose mark was lost is not counted');
      // Delivered is final: the outbox sends it no more.
      assert.equal(receiver.received.length, 2, 'sent more than once after the database came back');
    });
  });
});
