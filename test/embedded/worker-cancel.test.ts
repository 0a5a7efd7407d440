import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openEmbedded } from '../../src/db/embedded/embedded-database.js';
import { openMigratedPglite, TEST_DB } from '../harness/database.js';
import { createTenant, execution, ingest, type Tenant, workflow } from '../harness/fixtures.js';
import { type ServeProcess, spawnServe } from '../ops/serve-process.js';

const LIMIT_MS = 150;
/** Lines whose words hold every trigram of SLOW_SEARCH but never the substring: each is read and rechecked. */
const DECOY_LINES = 200_000;
const SLOW_SEARCH = '{ searchExecutionLogs(input: {query: "abcdef"}) { count data { message } } }';

/** Every directory and file under `dir` (itself included) with its permission bits. */
function modes(dir: string): Array<{ path: string; directory: boolean; mode: number }> {
  const found = [{ path: dir, directory: true, mode: statSync(dir).mode & 0o777 }];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...modes(path));
    else if (entry.isFile()) found.push({ path, directory: false, mode: statSync(path).mode & 0o777 });
  }
  return found;
}

describe('the embedded database in its worker thread', { skip: TEST_DB !== 'pglite' }, () => {
  let dir: string;
  let tenant: Tenant;
  let serve: ServeProcess;
  let url: string;

  const ask = async (query: string) => {
    const started = performance.now();
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Apikey ${tenant.key}` },
      body: JSON.stringify({ query }),
    });
    const body = (await response.json()) as {
      data?: unknown;
      errors?: Array<{ message: string; extensions: { code: string } }>;
    };
    return { status: response.status, body, ms: performance.now() - started };
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wfapi-embedded-'));
    const db = await openMigratedPglite(join(dir, 'data'));
    tenant = await createTenant(db, 'Slow Org');
    const wf = workflow(tenant.organizationId);
    const ex = execution(tenant.organizationId, wf.uuid as string);
    await ingest(db, [wf, ex]);
    await db.query(
      `insert into execution_logs (organization_id, workflow_execution_uuid, line_hash, node_id, message, timestamp)
       select $1, $2, sha256(i::text::bytea), 'node', 'xabcx xbcdx xcdex xdefx ' || i, now() - interval '1 minute'
       from generate_series(1, $3::int) i`,
      [tenant.organizationId, ex.uuid, DECOY_LINES],
    );
    await db.close();
    serve = spawnServe({ WFAPI_DATA_DIR: join(dir, 'data'), WFAPI_REQUEST_TIMEOUT_MS: String(LIMIT_MS) });
    url = await serve.ready;
  });

  after(async () => {
    await serve?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the data directory private to the user: directories 0700, files 0600', () => {
    const open = modes(join(dir, 'data')).filter((entry) => entry.mode !== (entry.directory ? 0o700 : 0o600));
    assert.deepEqual(open, []);
    assert.ok(modes(join(dir, 'data')).some((entry) => entry.path.endsWith('postgresql.conf')));
  });

  it('answers a query past the time limit with the time-limit error in about the limit, and the next query normally', async () => {
    const slow = await ask(SLOW_SEARCH);
    assert.equal(slow.status, 503);
    assert.equal(slow.body.errors?.[0]?.extensions.code, 'SERVICE_UNAVAILABLE');
    assert.match(slow.body.errors?.[0]?.message ?? '', new RegExp(`time limit of ${LIMIT_MS} ms`));
    assert.ok(slow.ms < LIMIT_MS + 1_000, `the time-limit error came after ${slow.ms.toFixed(0)} ms`);
    // The cancelled statement's worker is replaced: requests wait for the new one (its start
    // takes longer than this test's short limit), then run as usual.
    const cancelledAt = performance.now();
    let normal = await ask('{ getOrganization { organizationId } }');
    while (normal.status === 503 && performance.now() - cancelledAt < 20_000) {
      normal = await ask('{ getOrganization { organizationId } }');
    }
    assert.equal(normal.status, 200, JSON.stringify(normal.body));
    assert.deepEqual(normal.body.data, { getOrganization: { organizationId: tenant.organizationId } });
    assert.doesNotMatch(serve.stderr(), /Error|uncaught/i);
  });

  it('cancels a running statement that outlasts the cancel grace and runs the statements queued behind it on a new worker', async () => {
    const db = await openEmbedded(join(dir, 'second'));
    try {
      await db.query('create table kept (x int)');
      await db.query('insert into kept values (1), (2)');
      const started = performance.now();
      const sleeping = db.abortable(AbortSignal.timeout(200)).query('select pg_sleep(60)');
      const queued = db.query<{ n: number }>('select count(*)::int as n from kept');
      await assert.rejects(sleeping, { code: '57014' });
      // The abort at 200 ms, then half a second of grace, then the worker is replaced.
      assert.ok(performance.now() - started < 3_000, 'the cancelled statement was waited for');
      assert.deepEqual(await queued, [{ n: 2 }]);
      assert.ok(performance.now() - started < 30_000, 'the queued statement waited for the sleep');
      const aborted = new AbortController();
      aborted.abort();
      await assert.rejects(db.abortable(aborted.signal).query('select 1'), { code: '57014' });
      assert.deepEqual(await db.query('select 1 as one'), [{ one: 1 }]);
    } finally {
      await db.close();
    }
  });
});
