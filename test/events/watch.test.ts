import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openTestDatabase, type TestDatabase } from '../harness/database.js';
import { createTenant, execution, ingest, workflow } from '../harness/fixtures.js';
import { cleanEnv, freePort, startWfapi } from '../harness/process.js';
import { startServer, type TestServer } from '../harness/server.js';

describe('wfapi watch', () => {
  let database: TestDatabase;
  let server: TestServer;
  let port: number;
  const serve = async () => {
    // The fixtures' executions are of January 2026: every change is live here (history.test.ts).
    server = await startServer(database.db, { port, events: { pollMs: 20, liveWindowMs: 0 } });
  };
  before(async () => {
    database = await openTestDatabase();
    port = await freePort();
    await serve();
  });
  after(async () => {
    await server?.close();
    await database?.close();
  });

  it('prints one line per change, resumes after the server restarts, and exits 0 on Ctrl-C', async () => {
    const tenant = await createTenant(database.db);
    const org = tenant.organizationId;
    const flow = workflow(org, { name: 'price-feed' });
    const other = workflow(org, { name: 'other-flow' });
    await ingest(database.db, [flow, other]);
    // From the organization's first change on (it has none yet), so that nothing depends on when the stream opens.
    const watch = startWfapi(
      ['watch', '--workflow', 'price-feed', '--status', 'SUCCESS,FAILURE', '--last-event-id', '0'],
      {
        env: cleanEnv({ WFAPI_URL: server.url, WFAPI_API_KEY: tenant.key, NO_COLOR: '1' }),
        timeoutMs: 60_000,
      },
    );
    try {
      const first = execution(org, flow.uuid as string, {
        status: 'FAILURE',
        startedAt: '2026-01-02T00:00:00Z',
        finishedAt: '2026-01-02T00:00:02Z',
        errors: [{ error: 'boom at node 3', count: 1 }],
      });
      await ingest(database.db, [first]);
      await watch.waitFor(new RegExp(`FAILURE .*${first.uuid}`), 15_000);
      assert.match(watch.stdout(), /^2026-01-02 00:00:00Z {2}FAILURE {6}price-feed/);
      assert.match(watch.stdout(), /price-feed {2}\S+ {2}2s {2}boom at node 3/);

      // A drop: the server goes away, changes are ingested meanwhile, and it comes back.
      await server.close();
      const missed = execution(org, flow.uuid as string, { status: 'SUCCESS' });
      const filtered = execution(org, other.uuid as string, { status: 'SUCCESS' });
      await ingest(database.db, [missed, filtered]);
      await watch.waitFor(/reconnecting in/, 10_000, 'stderr');
      await serve();
      await watch.waitFor(new RegExp(`SUCCESS .*${missed.uuid}`), 15_000);
      const live = execution(org, flow.uuid as string, { status: 'SUCCESS' });
      await ingest(database.db, [live]);
      await watch.waitFor(new RegExp(live.uuid as string), 10_000);
      const lines = watch.stdout().trim().split('\n');
      assert.deepEqual(
        lines.map((text) => [first, missed, live].findIndex((run) => text.includes(run.uuid as string))),
        [0, 1, 2],
        watch.stdout(),
      );
      assert.ok(!watch.stdout().includes(filtered.uuid as string));
    } finally {
      const exit = await watch.kill('SIGINT');
      assert.equal(exit.code, 0, watch.stderr());
    }
  });

  it('exits 3 when the key is refused, without retrying', async () => {
    const watch = startWfapi(['watch'], {
      env: cleanEnv({ WFAPI_URL: server.url, WFAPI_API_KEY: 'wfk_wrong' }),
      timeoutMs: 30_000,
    });
    const result = await watch.result();
    assert.equal(result.code, 3, result.stderr);
    assert.match(result.stderr, /refused the API key/);
  });
});
