/**
 * No message can hold a NATS stream: a message of 30,000 bad lines (whose report once exceeded
 * the server's 1 MB message limit) is acknowledged with its report cut under the limit, and a
 * message that fails every time goes to the dead-letter subject after a few deliveries, with its
 * reason, while the other messages (its organization's and others') are stored.
 */

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { jetstreamManager } from '@nats-io/jetstream';
import { INGEST_OBSERVERS } from '../../src/app.js';
import {
  DEAD_DELIVERIES_HEADER,
  DEAD_REASON_HEADER,
  DEAD_SEQUENCE_HEADER,
  DEAD_STREAM,
  deadSubject,
  ensureStreams,
  ingestSubject,
  MAX_REPORTED_REJECTIONS,
  rejectedSubject,
} from '../../src/ingest/nats-jetstream.js';
import { reportParts } from '../../src/ingest/nats-reports.js';
import { type IngestWorker, startIngestWorker } from '../../src/ingest/nats-worker.js';
import { openTestDatabase, type TestDatabase } from '../harness/database.js';
import { createTenant, workflow } from '../harness/fixtures.js';
import { type NatsServer, startNatsServer } from '../harness/nats-server.js';
import { type NatsClient, natsClient } from './nats-helpers.js';

const workflowsOf = async (database: TestDatabase, organizationId: string) =>
  (
    await database.db.query<{ name: string }>('select name from workflows where organization_id = $1', [
      organizationId,
    ])
  ).map((row) => row.name);

describe('poison messages on NATS', () => {
  let nats: NatsServer;
  let database: TestDatabase;
  let client: NatsClient;
  let worker: IngestWorker | undefined;
  const logged: string[] = [];
  const startWorker = async () => {
    worker = await startIngestWorker({
      db: database.db,
      natsUrl: nats.url,
      batchMessages: 10,
      ackWaitMs: 30_000,
      batchSize: 5000,
      observers: INGEST_OBSERVERS,
      maxDeliveries: 3,
      log: (line) => logged.push(line),
    });
  };

  before(async () => {
    nats = await startNatsServer();
    database = await openTestDatabase();
    client = await natsClient(nats.url);
    await ensureStreams(await jetstreamManager(client.nc));
    // A statement that fails for one record whatever is tried: what a bug in the storing code or a
    // record the database cannot hold does to a message, every delivery.
    await database.db.query(
      `create function wfapi_test_poison() returns trigger language plpgsql as $$
       begin
         if new.name = 'poison-pill' then raise exception 'poison pill refused by the test trigger'; end if;
         return new;
       end $$`,
    );
    await database.db.query(
      `create trigger wfapi_test_poison before insert or update on workflows
       for each row execute function wfapi_test_poison()`,
    );
  });

  after(async () => {
    await worker?.stop();
    await client?.close();
    await database?.close();
    await nats?.stop();
  });

  it('acknowledges a message of 30,000 bad lines at once and reports them in messages under the limit', async () => {
    const tenant = await createTenant(database.db, 'Flood');
    const org = tenant.organizationId;
    const bad = Array.from({ length: 30_000 }, () => '{}');
    const body = [workflow(org, { name: 'kept' }), ...bad];
    await client.publish(ingestSubject(org), body);
    if (!worker) await startWorker();
    const { redelivered } = await client.drained();
    assert.equal(redelivered, 0, 'delivered once: acknowledged on its first delivery');
    assert.deepEqual(await workflowsOf(database, org), ['kept']);
    const reports = await client.rejections(rejectedSubject(org));
    assert.ok(reports.length >= 1);
    const limit = client.nc.info!.max_payload;
    for (const report of reports) {
      assert.ok(new TextEncoder().encode(JSON.stringify(report)).length < limit);
      assert.equal(report.rejectedCount, 30_000);
      assert.equal(report.parts, reports.length);
    }
    const listed = reports.flatMap((report) => report.rejected);
    assert.equal(listed.length, MAX_REPORTED_REJECTIONS);
    assert.deepEqual(listed[0], { line: 2, error: 'type is required' });
    assert.equal(listed.at(-1)!.line, MAX_REPORTED_REJECTIONS + 1);
  });

  it('moves a message that fails on every delivery to the dead-letter subject with its reason, and stores the others meanwhile', async () => {
    await worker?.stop();
    worker = undefined;
    const poisoned = await createTenant(database.db, 'Poisoned');
    const bystander = await createTenant(database.db, 'Bystander');
    const org = poisoned.organizationId;
    await client.publish(ingestSubject(org), [workflow(org, { name: 'poison-pill' })], { msgID: 'poison' });
    await client.publish(ingestSubject(org), [workflow(org, { name: 'next' })]);
    await client.publish(ingestSubject(bystander.organizationId), [
      workflow(bystander.organizationId, { name: 'other' }),
    ]);
    const logFrom = logged.length;
    await startWorker();

    // The others are stored while the poison is still being retried: nothing waits behind it.
    for (;;) {
      const stored = [
        ...(await workflowsOf(database, org)),
        ...(await workflowsOf(database, bystander.organizationId)),
      ];
      if (stored.length === 2) break;
      await sleep(20);
    }
    assert.equal(worker!.stats.deadLettered, 0, 'stored before the poison went to the dead-letter subject');

    await client.drained();
    assert.deepEqual(await workflowsOf(database, org), ['next']);
    assert.equal(worker!.stats.deadLettered, 1);

    const jsm = await jetstreamManager(client.nc);
    const dead = await jsm.streams.getMessage(DEAD_STREAM, { last_by_subj: deadSubject(org) });
    assert.ok(dead);
    assert.match(dead.string(), /poison-pill/);
    assert.match(dead.header.get(DEAD_REASON_HEADER), /poison pill refused by the test trigger/);
    // At least the third: a delivery the server sent into a pull the client had just given up on
    // (a late timer on a loaded machine) comes back after the ack wait, one delivery later.
    const deliveries = Number(dead.header.get(DEAD_DELIVERIES_HEADER));
    assert.ok(deliveries >= 3, `moved on delivery ${deliveries}`);
    assert.match(dead.header.get(DEAD_SEQUENCE_HEADER), /^\d+$/);
    assert.equal(dead.header.get('Nats-Msg-Id'), `WFAPI_INGEST-${dead.header.get(DEAD_SEQUENCE_HEADER)}`);

    const reports = await client.rejections(rejectedSubject(org));
    const report = reports.find((r) => r.deadLetter);
    assert.equal(report?.deadLetter?.subject, deadSubject(org));
    assert.match(report?.deadLetter?.reason ?? '', /poison pill refused by the test trigger/);
    assert.equal(report?.deadLetter?.deliveries, deliveries);

    const lines = logged.slice(logFrom).join('\n');
    assert.match(
      lines,
      /delivery [12] of 3\) failed, redelivered in \d+ ms: poison pill refused by the test trigger/,
    );
    assert.match(lines, /moved to wfapi\.dead\.[0-9a-f-]+: poison pill refused by the test trigger/);
  });

  it('cuts a report into parts under the limit, listing every rejection in order', () => {
    const rejected = Array.from({ length: 50 }, (_, i) => ({
      line: i + 1,
      error: `reason ${'x'.repeat(200)} ${i}`,
    }));
    const base = { subject: 'wfapi.ingest.o', sequence: 7, msgId: null, rejectedCount: 50 };
    const parts = reportParts(base, rejected, 2048);
    assert.ok(parts.length > 5);
    for (const part of parts) {
      assert.ok(new TextEncoder().encode(JSON.stringify(part)).length <= 2048);
      assert.equal(part.parts, parts.length);
    }
    assert.deepEqual(
      parts.flatMap((part) => part.rejected),
      rejected,
    );
    assert.deepEqual(
      parts.map((part) => part.part),
      parts.map((_, i) => i + 1),
    );
    assert.deepEqual(reportParts(base, [], 2048), [{ ...base, rejected: [], part: 1, parts: 1 }]);
  });
});
