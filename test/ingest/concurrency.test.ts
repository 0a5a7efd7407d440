import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { openPostgres } from '../../src/db/postgres.js';
import { openTestDatabase, TEST_DB } from '../harness/database.js';
import { createTenant, execution, workflow } from '../harness/fixtures.js';
import { startServer } from '../harness/server.js';
import { useServer } from '../harness/suite.js';
import { buildDataset, clearPlatformData, readEverything, seeded } from './dataset.js';
import { INGEST_TOKEN, postIngest } from './http.js';
import { rollupDrift } from './rollup-drift.js';

describe('concurrent ingestion', () => {
  // A pool of 4 leaves 2 connections to batch writes; the harness pool itself has 5.
  const ctx = useServer({ ingestToken: INGEST_TOKEN, dbPoolSize: 4, limits: { ingestBatchSize: 5 } });

  it('ends with exact counts when concurrent producers send overlapping batches', async () => {
    const a = await createTenant(ctx.db, 'Acme');
    const b = await createTenant(ctx.db, 'Globex');
    const shape = { workflows: 3, executionsPerWorkflow: 6, logsPerExecution: 2, eventsPerExecution: 1 };
    const datasets = [buildDataset(a.organizationId, shape, 7), buildDataset(b.organizationId, shape, 8)];
    const random = seeded(42);
    // Six producers per organization, each sending an overlapping, shuffled two-thirds of the records.
    const bodies = datasets.flatMap((dataset) =>
      Array.from({ length: 6 }, (_, k) => {
        const n = dataset.records.length;
        const part = Array.from(
          { length: Math.ceil((2 * n) / 3) },
          (_, i) => dataset.records[(k * 7 + i) % n]!,
        );
        return part
          .map((record) => ({ record, r: random() }))
          .sort((x, y) => x.r - y.r)
          .map(({ record }) => record);
      }),
    );
    const [answers, reads] = await Promise.all([
      Promise.all(bodies.map((body) => postIngest(ctx.server.url, body))),
      // Reads go on while the producers write.
      Promise.all(
        Array.from({ length: 5 }, () => ctx.server.gql(a.key, '{ workflowExecutions(input: {}) { count } }')),
      ),
    ]);
    for (const read of reads) assert.equal(read.status, 200, JSON.stringify(read.body));
    for (const [i, answer] of answers.entries()) {
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body.rejected, []);
      assert.equal(answer.body.accepted, bodies[i]!.length);
    }
    const drift = await rollupDrift(ctx.db);
    assert.equal(drift.actual, drift.expected);
    const concurrent = await Promise.all([
      readEverything(ctx.server, a.key, datasets[0]!),
      readEverything(ctx.server, b.key, datasets[1]!),
    ]);

    await clearPlatformData(ctx.db);
    for (const dataset of datasets) {
      const answer = await postIngest(ctx.server.url, dataset.records);
      assert.equal(answer.body.accepted, dataset.records.length);
    }
    const sequential = await Promise.all([
      readEverything(ctx.server, a.key, datasets[0]!),
      readEverything(ctx.server, b.key, datasets[1]!),
    ]);
    assert.deepEqual(concurrent, sequential);
    const counts = await ctx.db.query<{ n: number }>('select count(*)::int as n from executions');
    assert.equal(counts[0]!.n, 2 * 3 * 6);
  });

  it('skips, and counts nowhere, a new execution whose uuid another organization stores meanwhile', {
    skip: TEST_DB !== 'postgres' && 'needs a second connection; the embedded database has one',
  }, async () => {
    const a = await createTenant(ctx.db, 'Acme');
    const b = await createTenant(ctx.db, 'Globex');
    const wfA = workflow(a.organizationId);
    const wfB = workflow(b.organizationId);
    assert.equal((await postIngest(ctx.server.url, [wfA, wfB])).status, 200);
    const uuid = randomUUID();
    // Globex's claim and row are written but not committed while Acme's batch claims the same uuid.
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => {
      commit = resolve;
    });
    let written!: () => void;
    const claimed = new Promise<void>((resolve) => {
      written = resolve;
    });
    const other = ctx.db.transaction(async (tx) => {
      await tx.query(
        'insert into execution_keys (uuid, organization_id, started_at) values ($1, $2, now())',
        [uuid, b.organizationId],
      );
      await tx.query(
        `insert into executions (uuid, organization_id, workflow_uuid, id, status, started_at)
           values ($1, $2, $3, 'globex', 'SUCCESS', now())`,
        [uuid, b.organizationId, wfB.uuid],
      );
      written();
      await committed;
    });
    // Acme's batch is sent only once Globex's rows are written, so Globex always claims first.
    await Promise.race([claimed, other]);
    const sent = postIngest(ctx.server.url, [
      execution(a.organizationId, wfA.uuid as string, { uuid, id: 'acme', creditUsed: '5' }),
    ]);
    for (let waited = 0; ; waited += 20) {
      const [blocked] = await ctx.db.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and (query ilike 'copy execution_keys%' or query ilike 'insert into execution_keys%')`,
      );
      if (blocked!.n > 0) break;
      assert.ok(waited < 10_000, "Acme's claim never waited for Globex's");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    commit();
    await other;
    const answer = await sent;
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const rows = await ctx.db.query<{ organization_id: string; id: string }>(
      'select organization_id, id from executions where uuid = $1',
      [uuid],
    );
    assert.deepEqual(rows, [{ organization_id: b.organizationId, id: 'globex' }]);
    const [counted] = await ctx.db.query<{ n: number }>(
      `select (select count(*) from execution_rollups where organization_id = $1 and execution_count <> 0)::int
              + (select count(*) from duration_rollups where organization_id = $1 and item_count <> 0)::int as n`,
      [a.organizationId],
    );
    assert.equal(counted!.n, 0);
    const read = await ctx.server.gql(a.key, '{ workflowExecutions(input: {}) { count data { uuid } } }');
    assert.deepEqual(read.body.data.workflowExecutions, { count: 0, data: [] });
  });

  it('answers 503 when the database fails mid-stream, saying which lines are stored', async () => {
    const database = await openTestDatabase();
    // The server gets a database handle of its own, so the test can take it away and still look.
    const serverDb =
      TEST_DB === 'postgres'
        ? openPostgres(database.url!, { poolSize: 2, statementTimeoutMs: 30_000 })
        : database.db;
    const server = await startServer(serverDb, { ingestToken: INGEST_TOKEN, limits: { ingestBatchSize: 5 } });
    let release: (() => void) | undefined;
    try {
      const tenant = await createTenant(database.db);
      const lines = Array.from({ length: 20 }, () => `${JSON.stringify(workflow(tenant.organizationId))}\n`);
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const encoder = new TextEncoder();
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (sent === 7) await gate;
          if (sent === lines.length) return controller.close();
          controller.enqueue(encoder.encode(lines[sent++]!));
        },
      });
      const answer = fetch(`${server.url}/ingest`, {
        method: 'POST',
        headers: { authorization: `Bearer ${INGEST_TOKEN}`, 'content-type': 'application/x-ndjson' },
        body,
        duplex: 'half',
      } as RequestInit);
      // Once the first batch of 5 is committed, the database goes away.
      for (let i = 0; i < 200; i++) {
        const [row] = await database.db.query<{ n: number }>('select count(*)::int as n from workflows');
        if (row!.n >= 5) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await serverDb.close();
      release!();
      const response = await answer;
      assert.equal(response.status, 503);
      const result = await response.json();
      assert.equal(result.errors[0].extensions.code, 'SERVICE_UNAVAILABLE');
      assert.equal(result.accepted, 5);
      assert.equal(result.committedThroughLine, 5);
      assert.match(
        result.errors[0].message,
        /the lines through 5 are stored, and re-sending everything is safe/,
      );
      if (TEST_DB === 'postgres') {
        const [row] = await database.db.query<{ n: number }>('select count(*)::int as n from workflows');
        assert.equal(row!.n, 5);
      }
    } finally {
      release?.();
      await server.close();
      await database.close();
    }
  });
});
