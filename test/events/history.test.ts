import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTenant, execution, ingest, workflow } from '../harness/fixtures.js';
import { cleanEnv, startWfapi } from '../harness/process.js';
import { useServer } from '../harness/suite.js';
import { openEvents } from './sse-reader.js';

const DAY = 24 * 3600 * 1000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

/**
 * Issue 38, item 3: loading past weeks (the demo's background load, any bulk import) is history,
 * not news. With the default window (WFAPI_SSE_LIVE_WINDOW_MS, 24 hours) a change whose execution
 * finished, or started when unfinished, more than that before ingestion recorded it is sent only
 * to streams that ask for history.
 */
describe('GET /events and history', () => {
  const ctx = useServer({ events: { pollMs: 20 } });

  it('leaves an execution that started weeks ago out of a default stream and sends a current one; history=true sends both', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const flow = workflow(org);
    await ingest(ctx.db, [flow]);
    const live = await openEvents(ctx.server.url, tenant.key);
    const all = await openEvents(ctx.server.url, tenant.key, { query: 'history=true' });
    try {
      for (const stream of [live, all]) await stream.next((frame) => frame.comments.includes('connected'));
      const old = execution(org, flow.uuid as string, {
        status: 'FAILURE',
        startedAt: ago(21 * DAY),
        finishedAt: ago(21 * DAY - 3000),
      });
      const current = execution(org, flow.uuid as string, { status: 'FAILURE', startedAt: ago(5000) });
      await ingest(ctx.db, [old]);
      await ingest(ctx.db, [current]);
      // The feed is ordered: had the old one been sent, it would have come first.
      assert.equal((await live.nextExecution(15_000)).execution.uuid, current.uuid);
      assert.equal((await all.nextExecution(15_000)).execution.uuid, old.uuid);
      assert.equal((await all.nextExecution(15_000)).execution.uuid, current.uuid);
    } finally {
      live.close();
      all.close();
    }
  });

  it('sends an execution that started days ago when it finishes now', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const flow = workflow(org);
    await ingest(ctx.db, [flow]);
    const stream = await openEvents(ctx.server.url, tenant.key);
    try {
      await stream.next((frame) => frame.comments.includes('connected'));
      const long = execution(org, flow.uuid as string, { startedAt: ago(3 * DAY), finishedAt: ago(1000) });
      await ingest(ctx.db, [long]);
      assert.equal((await stream.nextExecution(15_000)).execution.uuid, long.uuid);
    } finally {
      stream.close();
    }
  });

  it('resumes after Last-Event-ID with the live changes made meanwhile, in order, none repeated, history left out', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const flow = workflow(org);
    await ingest(ctx.db, [flow]);
    const first = execution(org, flow.uuid as string, { status: 'IN_PROGRESS', startedAt: ago(10_000) });
    const stream = await openEvents(ctx.server.url, tenant.key);
    await stream.next((frame) => frame.comments.includes('connected'));
    await ingest(ctx.db, [first]);
    const seen = await stream.nextExecution(15_000);
    assert.equal(seen.execution.uuid, first.uuid);
    stream.close();

    const backfill = Array.from({ length: 5 }, (_, i) =>
      execution(org, flow.uuid as string, { startedAt: ago((30 - i) * DAY) }),
    );
    const second = execution(org, flow.uuid as string, { startedAt: ago(5000) });
    await ingest(ctx.db, backfill.slice(0, 3));
    await ingest(ctx.db, [second]);
    await ingest(ctx.db, [...backfill.slice(3), { ...first, status: 'SUCCESS', finishedAt: ago(1000) }]);
    const resumed = await openEvents(ctx.server.url, tenant.key, { lastEventId: seen.id });
    try {
      const got = [await resumed.nextExecution(15_000), await resumed.nextExecution(15_000)];
      const sentinel = execution(org, flow.uuid as string, { startedAt: ago(1000) });
      await ingest(ctx.db, [sentinel]);
      got.push(await resumed.nextExecution(15_000));
      assert.deepEqual(
        got.map((event) => event.execution.uuid),
        [second.uuid, first.uuid, sentinel.uuid],
      );
      assert.equal(got[1]!.execution.status, 'SUCCESS');
      const ids = got.map((event) => Number(event.id));
      assert.ok(ids[0]! > Number(seen.id));
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
      );
    } finally {
      resumed.close();
    }
  });

  it('wfapi watch prints live changes only, and the history too with --history', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const flow = workflow(org, { name: 'nightly' });
    await ingest(ctx.db, [flow]);
    const env = cleanEnv({ WFAPI_URL: ctx.server.url, WFAPI_API_KEY: tenant.key, NO_COLOR: '1' });
    // From the organization's first change on, so that nothing depends on when the stream opens.
    const watches = [
      startWfapi(['watch', '--last-event-id', '0'], { env, timeoutMs: 60_000 }),
      startWfapi(['watch', '--last-event-id', '0', '--history'], { env, timeoutMs: 60_000 }),
    ];
    try {
      const old = execution(org, flow.uuid as string, {
        startedAt: ago(14 * DAY),
        finishedAt: ago(14 * DAY),
      });
      const current = execution(org, flow.uuid as string, { startedAt: ago(2000), finishedAt: ago(1000) });
      await ingest(ctx.db, [old]);
      await ingest(ctx.db, [current]);
      for (const watch of watches) await watch.waitFor(new RegExp(current.uuid as string), 30_000);
      const [liveOnly, withHistory] = watches.map((watch) => watch.stdout().trim().split('\n'));
      assert.equal(liveOnly!.length, 1, liveOnly!.join('\n'));
      assert.match(withHistory![0]!, new RegExp(old.uuid as string));
      assert.match(withHistory![1]!, new RegExp(current.uuid as string));
    } finally {
      for (const watch of watches) {
        const exit = await watch.kill('SIGINT');
        assert.equal(exit.code, 0, watch.stderr());
      }
    }
  });
});
