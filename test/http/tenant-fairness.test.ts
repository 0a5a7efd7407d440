import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Database } from '../../src/db/database.js';
import { openEmbedded } from '../../src/db/embedded/embedded-database.js';
import { migrate } from '../../src/db/migrate.js';
import { openTestDatabase, TEST_DB, type TestDatabase } from '../harness/database.js';
import { createTenant, execution, ingest, type Tenant, workflow } from '../harness/fixtures.js';
import { timedPost as post } from '../harness/latency.js';
import { startServer, type TestServer } from '../harness/server.js';

/** Lines whose words hold every trigram of HEAVY_QUERY but never the substring: each is read and rechecked. */
const DECOY_LINES = 40_000;
const HEAVY_QUERY = 'abcdef';
/** One request as heavy as a key may send: as many log searches as the alias limit allows. */
const HEAVY = `{ ${Array.from(
  { length: 30 },
  (_, i) => `s${i}: searchExecutionLogs(input: {query: "${HEAVY_QUERY}"}) { count data { message } }`,
).join(' ')} }`;
const LIGHT = '{ workflows { count data { uuid } } }';
const PARALLEL_HEAVY = 12;
const LIGHT_READS = 15;

/** The database as the server runs it: PostgreSQL, or the embedded one in its worker thread. */
async function serverDatabase(): Promise<{ db: Database; database?: TestDatabase; close(): Promise<void> }> {
  if (TEST_DB === 'postgres') {
    const database = await openTestDatabase();
    return { db: database.db, database, close: () => database.close() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-fairness-'));
  const db = await openEmbedded(join(dir, 'data'));
  await migrate(db);
  return {
    db,
    async close() {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('one organization cannot take the database from the others', () => {
  let database: Awaited<ReturnType<typeof serverDatabase>>;
  let server: TestServer;
  let noisy: Tenant;
  let quiet: Tenant;

  before(async () => {
    database = await serverDatabase();
    const { db } = database;
    noisy = await createTenant(db, 'Noisy');
    quiet = await createTenant(db, 'Quiet');
    const wf = workflow(noisy.organizationId);
    const ex = execution(noisy.organizationId, wf.uuid as string);
    await ingest(db, [wf, ex, workflow(quiet.organizationId)]);
    await db.query(
      `insert into execution_logs (organization_id, workflow_execution_uuid, line_hash, node_id, message, timestamp)
       select $1, $2, sha256(i::text::bytea), 'node', 'xabcx xbcdx xcdex xdefx ' || i, now() - interval '1 minute'
       from generate_series(1, $3::int) i`,
      [noisy.organizationId, ex.uuid, DECOY_LINES],
    );
    server = await startServer(db);
  });

  after(async () => {
    await server?.close();
    await database?.close();
  });

  it("answers another organization's single reads, all of them and within seconds, while one key sends its heaviest requests in parallel, and /readyz stays ready", async () => {
    let heavyRunning = true;
    const heavy = Promise.all(
      Array.from({ length: PARALLEL_HEAVY }, async () => {
        const answers: number[] = [];
        while (heavyRunning) answers.push((await post(server.url, noisy.key, HEAVY)).status);
        return answers;
      }),
    );
    try {
      // Wait until the noisy key's statements are running, so the reads below meet them.
      const first = await post(server.url, quiet.key, LIGHT);
      assert.equal(first.status, 200, first.text);
      const reads: Array<{ status: number; ms: number; text: string }> = [];
      const ready: number[] = [];
      for (let i = 0; i < LIGHT_READS; i++) {
        reads.push(await post(server.url, quiet.key, LIGHT));
        if (i % 5 === 0) ready.push((await fetch(`${server.url}/readyz`)).status);
      }
      const failed = reads.filter((read) => read.status !== 200);
      assert.deepEqual(failed, [], 'every read of the quiet organization succeeds');
      const slowest = Math.max(...reads.map((read) => read.ms));
      assert.ok(slowest < 6_000, `the slowest read took ${slowest.toFixed(0)} ms`);
      assert.deepEqual(
        ready,
        ready.map(() => 200),
      );
    } finally {
      heavyRunning = false;
    }
    const statuses = (await heavy).flat();
    assert.ok(statuses.length >= PARALLEL_HEAVY, 'the heavy requests ran');
    assert.ok(
      statuses.every((status) => status === 200 || status === 503),
      `the heavy key's answers: ${[...new Set(statuses)]}`,
    );
  });

  it('cancels the statement of a request cut by its time limit (PostgreSQL: it leaves pg_stat_activity)', {
    skip: TEST_DB !== 'postgres' && 'the embedded worker cancels in test/embedded/worker-cancel.test.ts',
  }, async () => {
    // The test database's pool has a statement_timeout of 30 s: only the request's own time
    // limit can stop the statement within the bound below.
    const hurried = await startServer(database.db, { limits: { requestTimeoutMs: 500 } });
    const activeSearches = async () =>
      (
        await database.db.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
              where datname = current_database() and state = 'active' and query like '%ilike%'
                and pid <> pg_backend_pid()`,
        )
      )[0]!.n;
    try {
      // Warm the key's credentials, so that the request's only wait is its search.
      assert.equal((await post(hurried.url, quiet.key, '{ __typename }')).status, 200);
      await database.db.transaction(async (tx) => {
        await tx.query('lock table executions in access exclusive mode');
        const cut = await post(
          hurried.url,
          quiet.key,
          '{ workflowExecutions(input: { search: "blocked" }) { count } }',
        );
        assert.equal(cut.status, 503, cut.text);
        assert.match(cut.text, /time limit of 500 ms/);
        const since = performance.now();
        let running = await activeSearches();
        while (running > 0 && performance.now() - since < 5_000) running = await activeSearches();
        assert.equal(running, 0, 'the search still runs after its request was answered');
      });
    } finally {
      await hurried.close();
    }
  });
});
