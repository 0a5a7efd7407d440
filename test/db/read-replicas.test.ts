import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { openPostgres } from '../../src/db/postgres.js';
import { withFallback } from '../../src/db/replicas/fallback.js';
import type { DatabaseStatus } from '../../src/db/replicas/read-router.js';
import { ADMIN_TOKEN, adminGql, CREATE_ORGANIZATION } from '../admin/admin-request.js';
import { runCli } from '../harness/cli.js';
import { openTestDatabase, TEST_DB, type TestDatabase } from '../harness/database.js';
import { requireEngine } from '../harness/engines.js';
import { eventually, eventuallyRead } from '../harness/eventually.js';
import { createTenant, execution, ingest, type Tenant, workflow } from '../harness/fixtures.js';
import { startReplica, type TestReplica } from '../harness/replica.js';
import { startServer, type TestServer } from '../harness/server.js';
import { INGEST_TOKEN, postIngest } from '../ingest/http.js';

/** Small, so the lag-based skip is seen soon; large enough that a busy shared machine's lag stays below it. */
const MAX_LAG_MS = 6000;
const METRICS_TOKEN = 'replica-metrics-token';
const ONE =
  'query($input: WorkflowExecutionInput!) { workflowExecution(input: $input) { data { uuid status } } }';
const LIST = '{ workflowExecutions(input: {page: {number: 0, size: 100}}) { count data { uuid status } } }';

const until = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000) =>
  eventually(probe, `timed out waiting for ${what}`, { timeoutMs, everyMs: 100 });

describe('DATABASE_REPLICA_URLS with the embedded database', () => {
  it('is refused when loading the configuration, naming DATABASE_URL', () => {
    assert.throws(
      () => loadConfig({ DATABASE_REPLICA_URLS: 'postgres://postgres@127.0.0.1:5999/x' }),
      (error: unknown) =>
        error instanceof ConfigError && /DATABASE_REPLICA_URLS needs DATABASE_URL/.test(error.message),
    );
  });

  it('makes `wfapi serve` exit at startup with the configuration error', async () => {
    const result = await runCli(['serve'], {
      PORT: '0',
      DATABASE_REPLICA_URLS: 'postgres://postgres@127.0.0.1:5999/x',
    });
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /DATABASE_REPLICA_URLS needs DATABASE_URL/);
  });
});

const replication = TEST_DB === 'postgres' ? await requireEngine('replication') : { skip: true };
describe('read replicas (a real streaming replica of the test PostgreSQL)', replication, () => {
  let database: TestDatabase;
  let replica: TestReplica;
  let server: TestServer;
  let tenant: Tenant;
  let workflowUuid: string;
  let name: string;

  const readyz = async (): Promise<{ status: string; databases: DatabaseStatus[] }> =>
    (await fetch(`${server.url}/readyz`)).json() as never;
  const replicaStatus = async () => (await readyz()).databases[1]!;
  const inUse = () =>
    eventuallyRead(replicaStatus, (status) => status.inUse, 'the replica in use', {
      timeoutMs: 30_000,
      everyMs: 100,
    });
  /** Index and sequential scans of executions (its partitions) on the replica (its cumulative statistics). */
  const replicaScans = async () => {
    const [row] = await replica.query<{ scans: number }>(
      name,
      `select coalesce(sum(seq_scan + coalesce(idx_scan, 0)), 0)::int as scans
       from pg_stat_user_tables
       where relid in (select inhrelid from pg_inherits where inhparent = 'executions'::regclass)`,
    );
    return row!.scans;
  };
  /**
   * Waits until the replica's statistics count `scans`. A backend publishes its statistics when a
   * transaction ends at least a second after its last report (else only after ten idle seconds),
   * so reads go on meanwhile; they can only add to the count.
   */
  const countedOnReplica = (scans: number) =>
    until(
      'the replica to count the reads',
      async () => {
        await server.gql(tenant.key, LIST);
        return (await replicaScans()) >= scans ? true : undefined;
      },
      20_000,
    );
  const watermark = async () => {
    const [row] = await database.db.query<{ data_as_of: Date }>(
      'select data_as_of from ingest_watermarks where organization_id = $1',
      [tenant.organizationId],
    );
    return row!.data_as_of;
  };
  const one = (uuid: string) => server.gql(tenant.key, ONE, { input: { uuid } });

  before(async () => {
    database = await openTestDatabase();
    name = new URL(database.url!).pathname.slice(1);
    tenant = await createTenant(database.db);
    const flow = workflow(tenant.organizationId);
    workflowUuid = flow.uuid as string;
    await ingest(database.db, [
      flow,
      ...Array.from({ length: 20 }, () => execution(tenant.organizationId, workflowUuid)),
    ]);
    replica = await startReplica();
    server = await startServer(database.db, {
      databaseUrl: database.url,
      databaseReplicaUrls: [replica.url(name)],
      replicaMaxLagMs: MAX_LAG_MS,
      authCacheMs: 0,
      ingestToken: INGEST_TOKEN,
      adminToken: ADMIN_TOKEN,
      metrics: { token: METRICS_TOKEN },
      // The load below must meet the replica's death, not the key's rate limit.
      rateLimit: { burst: 1_000_000, perSecond: 1_000_000 },
    });
    await inUse();
  });
  after(async () => {
    await server?.close();
    await replica?.close();
    await database?.close();
  });

  it('reports the primary and the replica in /readyz: up, lag in ms, in use', async () => {
    const body = await readyz();
    assert.equal(body.status, 'ready');
    const [primary, standby] = body.databases;
    assert.deepEqual(
      { role: primary!.role, up: primary!.up, inUse: primary!.inUse, servesReads: primary!.servesReads },
      { role: 'primary', up: true, inUse: true, servesReads: false },
    );
    assert.equal(standby!.role, 'replica');
    assert.equal(standby!.address, `127.0.0.1:${replica.port}/${name}`);
    assert.equal(standby!.up, true);
    assert.equal(standby!.inUse, true);
    assert.ok(typeof standby!.lagMs === 'number' && standby!.lagMs <= MAX_LAG_MS, `lag ${standby!.lagMs}`);
  });

  it('exposes each replica lag and use in /metrics', async () => {
    const response = await fetch(`${server.url}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    assert.equal(response.status, 200);
    const text = await response.text();
    const label = `replica="127.0.0.1:${replica.port}/${name}"`;
    assert.match(text, new RegExp(`^wfapi_db_replica_in_use\\{${label}\\} 1$`, 'm'));
    const lag = new RegExp(`^wfapi_db_replica_lag_seconds\\{${label}\\} (\\S+)$`, 'm').exec(text);
    assert.ok(lag && Number(lag[1]) <= MAX_LAG_MS / 1000, text);
  });

  it('answers /graphql reads from the replica, seen in the replica statistics', async () => {
    const before = await replicaScans();
    for (let i = 0; i < 20; i++) {
      const answer = await server.gql(tenant.key, LIST);
      assert.equal(answer.status, 200);
      assert.equal(answer.body.data.workflowExecutions.count, 20);
    }
    await countedOnReplica(before + 20);
  });

  it('sends ingestion and administration to the primary (a standby would refuse the writes)', async () => {
    const added = execution(tenant.organizationId, workflowUuid);
    const ingested = await postIngest(server.url, [added]);
    assert.equal(ingested.status, 200, JSON.stringify(ingested.body));
    const created = await adminGql(server.url, CREATE_ORGANIZATION, { input: { displayName: 'Elsewhere' } });
    assert.equal(created.status, 200);
    assert.equal(created.body.errors, undefined);
    // And the replica serves what was written once it has replayed it.
    await until('the replica to replay the ingestion', async () =>
      (await one(added.uuid as string)).body.data.workflowExecution.data ? true : undefined,
    );
  });

  it('reports dataAsOf from the replica behind the primary while replay is paused, then skips the replica once it lags past WFAPI_REPLICA_MAX_LAG_MS', async () => {
    await inUse();
    await replica.query(name, 'select pg_wal_replay_pause()');
    try {
      const added = execution(tenant.organizationId, workflowUuid);
      assert.equal((await postIngest(server.url, [added])).status, 200);
      const primaryMark = await watermark();

      const paused = await one(added.uuid as string);
      assert.equal(paused.status, 200);
      assert.equal(
        paused.body.data.workflowExecution.data,
        null,
        'the replica has not replayed the new execution',
      );
      const asOf = new Date(paused.body.extensions.dataAsOf);
      assert.ok(
        asOf < primaryMark,
        `dataAsOf ${asOf.toISOString()} is before the primary's ${primaryMark.toISOString()}`,
      );

      const skipped = await until(
        'the replica skipped as lagging',
        async () => {
          const status = await replicaStatus();
          return status.skipped === 'lagging' ? status : undefined;
        },
        MAX_LAG_MS + 10_000,
      );
      assert.equal(skipped.inUse, false);
      assert.ok(skipped.lagMs! > MAX_LAG_MS);
      assert.equal((await readyz()).databases[0]!.servesReads, true);

      const fromPrimary = await one(added.uuid as string);
      assert.equal(fromPrimary.status, 200);
      assert.equal(fromPrimary.body.data.workflowExecution.data.uuid, added.uuid);
      assert.equal(fromPrimary.body.extensions.dataAsOf, primaryMark.toISOString());
    } finally {
      await replica.query(name, 'select pg_wal_replay_resume()');
    }
    await inUse();
  });

  it('answers every read while the replica dies mid-load, a query running on it included (from the primary), and reads from it again once it restarts', async () => {
    const answers: Array<{ status: number; errors: unknown }> = [];
    let loading = true;
    const load = async () => {
      while (loading) {
        const answer = await server.gql(tenant.key, LIST);
        answers.push({ status: answer.status, errors: answer.body?.errors });
      }
    };
    const workers = Array.from({ length: 4 }, load);
    // And one query certain to be running on the replica when it dies: answered by the primary.
    const standby = openPostgres(replica.url(name), { poolSize: 1, statementTimeoutMs: 30_000 });
    const lost: unknown[] = [];
    const routed = withFallback(standby, database.db, (error) => lost.push(error));
    await routed.query('select 1');
    const running = routed.query<{ standby: boolean }>(
      'select pg_is_in_recovery() as standby from pg_sleep(2)',
    );
    await until('the query running on the replica', async () => {
      const [row] = await replica.query<{ n: number }>(
        name,
        `select count(*)::int as n from pg_stat_activity
          where state = 'active' and query like '%pg_is_in_recovery() as standby from pg_sleep%' and pid <> pg_backend_pid()`,
      );
      return row && row.n > 0 ? true : undefined;
    });
    await replica.stop();
    assert.deepEqual(await running, [{ standby: false }]);
    assert.equal(lost.length, 1);
    // The load goes on past the replica's death: twenty more answers, all from the primary.
    const answeredAtDeath = answers.length;
    await until('twenty answers after the replica died', async () =>
      answers.length >= answeredAtDeath + 20 ? true : undefined,
    );
    loading = false;
    await Promise.all(workers);
    assert.ok(answers.length > 20, `${answers.length} answers`);
    assert.deepEqual(
      answers.filter((answer) => answer.status !== 200 || answer.errors !== undefined),
      [],
    );
    const down = await replicaStatus();
    assert.deepEqual(
      { up: down.up, inUse: down.inUse, skipped: down.skipped },
      { up: false, inUse: false, skipped: 'unreachable' },
    );
    assert.equal((await server.gql(tenant.key, LIST)).status, 200);

    await replica.start();
    await replica.caughtUp();
    await inUse();
    // The request that lost its replica goes on on the primary, never back to an older state;
    // a new request reads from the replica again.
    assert.deepEqual(await routed.query('select pg_is_in_recovery() as standby'), [{ standby: false }]);
    const next = withFallback(standby, database.db, (error) => lost.push(error));
    assert.deepEqual(await next.query('select pg_is_in_recovery() as standby'), [{ standby: true }]);
    assert.equal(lost.length, 1);
    await standby.close();
    const before = await replicaScans();
    for (let i = 0; i < 10; i++) assert.equal((await server.gql(tenant.key, LIST)).status, 200);
    await countedOnReplica(before + 10);
  });

  it('serves reads from the primary when a replica is unreachable from startup, reporting it skipped', async () => {
    const unreachable = await startServer(database.db, {
      databaseUrl: database.url,
      databaseReplicaUrls: [`postgres://postgres@127.0.0.1:1/${name}`],
      replicaMaxLagMs: MAX_LAG_MS,
    });
    try {
      const answer = await unreachable.gql(tenant.key, LIST);
      assert.equal(answer.status, 200);
      assert.equal(answer.body.errors, undefined);
      const status = (
        (await (await fetch(`${unreachable.url}/readyz`)).json()) as { databases: DatabaseStatus[] }
      ).databases[1]!;
      assert.deepEqual(
        { up: status.up, inUse: status.inUse, skipped: status.skipped },
        { up: false, inUse: false, skipped: 'unreachable' },
      );
    } finally {
      await unreachable.close();
    }
  });
});
