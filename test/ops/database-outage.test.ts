import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Database, genericPlan } from '../../src/db/database.js';
import { openPostgres } from '../../src/db/postgres.js';
import { isDatabaseUnavailable } from '../../src/errors.js';
import { openTestDatabase, TEST_DB, type TestDatabase } from '../harness/database.js';
import { eventually } from '../harness/eventually.js';
import { createTenant, type Tenant } from '../harness/fixtures.js';
import { type ServeProcess, spawnServe } from './serve-process.js';
import { TcpProxy } from './tcp-proxy.js';

const SKIP_REASON =
  'database outages are staged with PostgreSQL only: the embedded PGlite runs in-process and cannot go away';
const skip = TEST_DB === 'postgres' ? false : SKIP_REASON;
if (skip) console.log(`# skipping database outage tests: ${SKIP_REASON}`);

const QUERY = '{ getOrganization { displayName } workflows(input: {}) { count } }';

/** The same connection string, reaching PostgreSQL through the proxy. */
function viaProxy(url: string, proxy: TcpProxy): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(proxy.port);
  return parsed.toString();
}

function proxyFor(url: string): TcpProxy {
  const parsed = new URL(url);
  return new TcpProxy(parsed.hostname, Number(parsed.port || 5432));
}

describe('a PostgreSQL outage', { skip }, () => {
  let database: TestDatabase;
  let tenant: Tenant;
  before(async () => {
    database = await openTestDatabase();
    tenant = await createTenant(database.db, 'Outage Org');
  });
  after(async () => {
    await database?.close();
  });

  async function gql(url: string) {
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Apikey ${tenant.key}` },
      body: JSON.stringify({ query: QUERY }),
      // A hang fails the test instead of stalling it.
      signal: AbortSignal.timeout(10_000),
    });
    return { status: response.status, body: await response.json() };
  }

  describe('seen by a running server', () => {
    let proxy: TcpProxy;
    let serve: ServeProcess;
    let url: string;
    before(async () => {
      proxy = proxyFor(database.url!);
      await proxy.start();
      serve = spawnServe({ DATABASE_URL: viaProxy(database.url!, proxy) });
      url = await serve.ready;
    });
    after(async () => {
      await serve?.kill();
      await proxy?.stop();
    });

    it('answers 503 SERVICE_UNAVAILABLE while the database is unreachable, and 200 again once it is back, without a restart', async () => {
      const before = await gql(url);
      assert.equal(before.status, 200);
      assert.equal(before.body.data.getOrganization.displayName, 'Outage Org');

      await proxy.stop();
      // Concurrent and sequential requests: pooled connections die, new ones are refused.
      const concurrent = await Promise.all(Array.from({ length: 6 }, () => gql(url)));
      const sequential = [await gql(url), await gql(url)];
      for (const response of [...concurrent, ...sequential]) {
        assert.equal(response.status, 503);
        assert.equal(response.body.errors[0].extensions.code, 'SERVICE_UNAVAILABLE');
        assert.doesNotMatch(JSON.stringify(response.body), /ECONN|terminated|pool|select /i);
      }
      const ready = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(10_000) });
      assert.equal(ready.status, 503);
      assert.equal((await ready.json()).errors[0].extensions.code, 'SERVICE_UNAVAILABLE');
      assert.equal((await fetch(`${url}/healthz`)).status, 200);

      await proxy.start();
      const after = await eventually(
        async () => {
          const answer = await gql(url);
          return answer.status === 200 ? answer : undefined;
        },
        'still refused 15 s after the database came back',
        { everyMs: 50 },
      );
      assert.equal(after.body.data.getOrganization.displayName, 'Outage Org');
      assert.equal((await fetch(`${url}/readyz`)).status, 200);

      assert.equal(serve.child.exitCode, null, 'the server process ended');
      assert.doesNotMatch(serve.stdout(), /"statusCode":500/);
      assert.doesNotMatch(serve.stderr(), /Error|Uncaught/);
    });
  });

  describe('seen by a running server whose pooled connections go silently dead', () => {
    let proxy: TcpProxy;
    let serve: ServeProcess;
    let url: string;
    before(async () => {
      proxy = proxyFor(database.url!);
      await proxy.start();
      serve = spawnServe({
        DATABASE_URL: viaProxy(database.url!, proxy),
        WFAPI_DB_POOL_SIZE: '3',
        WFAPI_REQUEST_TIMEOUT_MS: '1000',
      });
      url = await serve.ready;
    });
    after(async () => {
      await serve?.kill();
      await proxy?.stop();
    });

    it('answers 503 during a network partition and recovers by itself although its old connections never answer', async () => {
      // Fill the pool with connections that the partition will leave half-open.
      for (const response of await Promise.all(Array.from({ length: 3 }, () => gql(url)))) {
        assert.equal(response.status, 200);
      }
      proxy.silence();
      for (const response of await Promise.all(Array.from({ length: 6 }, () => gql(url)))) {
        assert.equal(response.status, 503);
        assert.equal(response.body.errors[0].extensions.code, 'SERVICE_UNAVAILABLE');
      }

      proxy.resume();
      await eventually(
        async () => (await gql(url)).status === 200,
        'still failing 20 s after the partition ended',
        {
          timeoutMs: 20_000,
          everyMs: 50,
        },
      );
      assert.equal(serve.child.exitCode, null, 'the server process ended');
      assert.doesNotMatch(serve.stdout(), /"statusCode":500/);
    });
  });

  /** A pool of `poolSize` reaching the test database through a proxy of its own; both closed after `use`. */
  async function throughProxy(poolSize: number, use: (db: Database, proxy: TcpProxy) => Promise<void>) {
    const proxy = proxyFor(database.url!);
    await proxy.start();
    const db = openPostgres(viaProxy(database.url!, proxy), { poolSize, statementTimeoutMs: 10_000 });
    try {
      await use(db, proxy);
    } finally {
      await db.close();
      await proxy.stop();
    }
  }

  it('fails a transaction whose connection is cut as database-unavailable instead of crashing the process', () =>
    throughProxy(2, async (db, proxy) => {
      const cut = db.transaction(async (tx) => {
        await tx.query('select 1');
        await proxy.stop();
        await tx.query('select 2');
      });
      await assert.rejects(cut, (error) => isDatabaseUnavailable(error));
      await proxy.start();
      assert.deepEqual(await db.query('select 3 as three'), [{ three: 3 }]);
    }));
  it('fails a query whose new connection is cut while it turns JIT off as database-unavailable instead of crashing the process', () =>
    throughProxy(1, async (db, proxy) => {
      // A connection is set up (SessionClient) before the pool watches it for errors.
      proxy.cutOn('set jit = off');
      await assert.rejects(db.query('select 1'), (error) => isDatabaseUnavailable(error));
      proxy.cutOn(undefined);
      assert.deepEqual(await db.query('select 3 as three'), [{ three: 3 }]);
    }));
  it('fails a transaction whose connection is cut while it sets up its session as database-unavailable instead of crashing the process', () =>
    throughProxy(1, async (db, proxy) => {
      // The one connection now plans generically, so a transaction first resets its plan mode.
      assert.deepEqual(await db.query(genericPlan('select $1::int as one'), [1]), [{ one: 1 }]);
      proxy.cutOn('reset plan_cache_mode');
      const cut = db.transaction((tx) => tx.query('select 2'));
      await assert.rejects(cut, (error) => isDatabaseUnavailable(error));
      proxy.cutOn(undefined);
      assert.deepEqual(await db.query('select 3 as three'), [{ three: 3 }]);
    }));
});
