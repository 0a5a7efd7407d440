import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { TEST_DB } from '../harness/database.js';
import { eventually } from '../harness/eventually.js';
import { createTenant, execution, ingest, workflow } from '../harness/fixtures.js';
import { startServer } from '../harness/server.js';
import { useServer } from '../harness/suite.js';
import { INGEST_TOKEN, postIngest } from '../ingest/http.js';
import { openEvents } from './sse-reader.js';

/**
 * Change ids are allocated before commit, so a transaction can commit a lower id after another
 * committed a higher one. These tests hold an ingestion open after it wrote its change (its
 * organization's freshness row is locked by another connection) while other ingestions commit.
 * The embedded database has one connection: nothing there runs concurrently.
 */
describe('GET /events under concurrent ingestions', {
  skip: TEST_DB !== 'postgres' && 'PostgreSQL only',
}, () => {
  // The fixtures' executions are of January 2026: every change is live here (history.test.ts).
  const ctx = useServer({ ingestToken: INGEST_TOKEN, events: { pollMs: 20, liveWindowMs: 0 } });

  /** Holds the organization's freshness row, the last thing an ingestion writes before it commits. */
  async function holdCommit(organizationId: string): Promise<() => Promise<void>> {
    const client = new pg.Client({ connectionString: ctx.database.url });
    await client.connect();
    await client.query('begin');
    await client.query('select 1 from ingest_watermarks where organization_id = $1 for update', [
      organizationId,
    ]);
    return async () => {
      await client.query('commit');
      await client.end();
    };
  }

  async function waitForLockWaiters(count: number): Promise<void> {
    await eventually(async () => {
      const [row] = await ctx.db.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`,
      );
      return row!.n >= count;
    }, `fewer than ${count} ingestions waiting`);
  }

  it("delivers a change committed after another organization's higher id", async () => {
    const a = await createTenant(ctx.db, 'A');
    const b = await createTenant(ctx.db, 'B');
    const flowA = workflow(a.organizationId);
    const flowB = workflow(b.organizationId);
    await ingest(ctx.db, [flowA, flowB]);
    const stream = await openEvents(ctx.server.url, a.key);
    const streamB = await openEvents(ctx.server.url, b.key);
    try {
      await stream.next((frame) => frame.comments.includes('connected'));
      await streamB.next((frame) => frame.comments.includes('connected'));
      const release = await holdCommit(a.organizationId);
      const slow = execution(a.organizationId, flowA.uuid as string);
      const pending = postIngest(ctx.server.url, [slow]);
      await waitForLockWaiters(1);
      // B's change takes a higher id and commits first.
      const fast = execution(b.organizationId, flowB.uuid as string);
      assert.equal((await postIngest(ctx.server.url, [fast])).status, 200);
      // B's stream has it: the server has read the feed past B's id before A's change commits.
      assert.equal((await streamB.nextExecution()).execution.uuid, fast.uuid);
      await release();
      assert.equal((await pending).status, 200);
      assert.equal((await stream.nextExecution()).execution.uuid, slow.uuid);
    } finally {
      stream.close();
      streamB.close();
    }
  });

  it("keeps one organization's changes in commit order, so a resume misses none", async () => {
    const a = await createTenant(ctx.db, 'A');
    const flowA = workflow(a.organizationId);
    await ingest(ctx.db, [flowA]);
    const stream = await openEvents(ctx.server.url, a.key);
    try {
      await stream.next((frame) => frame.comments.includes('connected'));
      const release = await holdCommit(a.organizationId);
      const first = execution(a.organizationId, flowA.uuid as string);
      const second = execution(a.organizationId, flowA.uuid as string);
      const pendingFirst = postIngest(ctx.server.url, [first]);
      await waitForLockWaiters(1);
      const pendingSecond = postIngest(ctx.server.url, [second]);
      await waitForLockWaiters(2);
      await release();
      await Promise.all([pendingFirst, pendingSecond]);
      const got = [await stream.nextExecution(), await stream.nextExecution()];
      assert.deepEqual(
        got.map((event) => event.execution.uuid),
        [first.uuid, second.uuid],
      );
      assert.ok(Number(got[0]!.id) < Number(got[1]!.id));
    } finally {
      stream.close();
    }
  });

  it('loses and repeats nothing across many concurrent ingestions of two organizations and a resume', async () => {
    const a = await createTenant(ctx.db, 'A');
    const b = await createTenant(ctx.db, 'B');
    const flowA = workflow(a.organizationId);
    const flowB = workflow(b.organizationId);
    await ingest(ctx.db, [flowA, flowB]);
    const whole = await openEvents(ctx.server.url, a.key);
    let part = await openEvents(ctx.server.url, a.key);
    try {
      await whole.next((frame) => frame.comments.includes('connected'));
      await part.next((frame) => frame.comments.includes('connected'));
      const runs = Array.from({ length: 30 }, () => execution(a.organizationId, flowA.uuid as string));
      const noise = Array.from({ length: 30 }, () => execution(b.organizationId, flowB.uuid as string));
      const posts = runs.flatMap((run, i) => [
        postIngest(ctx.server.url, [run]),
        postIngest(ctx.server.url, [noise[i]!]),
      ]);
      const partSeen: string[] = [];
      let lastId = '';
      for (let i = 0; i < 10; i++) {
        const event = await part.nextExecution();
        partSeen.push(event.execution.uuid);
        lastId = event.id;
      }
      part.close();
      part = await openEvents(ctx.server.url, a.key, { lastEventId: lastId });
      for (const answer of await Promise.all(posts)) assert.equal(answer.status, 200);
      const wholeSeen: string[] = [];
      for (let i = 0; i < runs.length; i++) wholeSeen.push((await whole.nextExecution()).execution.uuid);
      for (let i = 10; i < runs.length; i++) partSeen.push((await part.nextExecution()).execution.uuid);
      const expected = runs.map((run) => run.uuid as string).sort();
      assert.deepEqual([...wholeSeen].sort(), expected);
      assert.deepEqual([...partSeen].sort(), expected);
      assert.deepEqual(partSeen, wholeSeen);
    } finally {
      whole.close();
      part.close();
    }
  });
});

describe('GET /events on shutdown', () => {
  const ctx = useServer();

  it('ends open streams cleanly when the server closes', async () => {
    const server = await startServer(ctx.db);
    const tenant = await createTenant(ctx.db);
    const stream = await openEvents(server.url, tenant.key);
    await stream.next((frame) => frame.comments.includes('connected'));
    const started = Date.now();
    await server.close();
    assert.ok(Date.now() - started < 5000, 'the open stream did not hold the close for its grace period');
    await assert.rejects(
      stream.next(() => false, 2000),
      /the stream ended/,
    );
  });
});
