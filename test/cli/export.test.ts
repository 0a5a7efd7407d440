import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { INGEST_OBSERVERS } from '../../src/app.js';
import { ingestBatch } from '../../src/ingest/ingest.store.js';
import { HOUR } from '../../src/lib/time.js';
import { createWorld, MAX_EXECUTION_MS, recordsBetween } from '../../src/simulate/index.js';
import { runCli } from '../harness/cli.js';
import { type Dataset, seedDataset } from '../harness/dataset.js';
import { createTenant, execution, ingest, log, type Tenant, workflow } from '../harness/fixtures.js';
import { startServer } from '../harness/server.js';
import { useServer } from '../harness/suite.js';

type Row = Record<string, unknown>;

const ndjson = (text: string): Row[] =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));

const byKey = (key: (row: Row) => string) => (a: Row, b: Row) => key(a).localeCompare(key(b));

describe('wfapi export', () => {
  const ctx = useServer();
  let dir: string;
  let tenant: Tenant;
  let data: Dataset;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wfapi-export-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const env = () => ({ WFAPI_URL: ctx.server.url, WFAPI_API_KEY: tenant.key });
  const exportOk = async (args: string[]) => {
    const result = await runCli(['export', ...args], env());
    assert.equal(result.code, 0, result.stderr);
    return result;
  };
  const seed = async (executions: number, detailed = 0) => {
    tenant = await createTenant(ctx.db);
    data = await seedDataset(ctx.db, tenant.organizationId, { executions, detailed });
  };

  it('resumes an incremental export twice and ends equal to a full export, despite late and changed executions', async () => {
    await seed(150);
    const state = join(dir, 'executions.state.json');
    // Execution 15 starts at 01:45:00 exactly: the first run ends on that instant.
    const first = await exportOk(['executions', '--state', state, '--until', '2026-03-01T01:45:00Z']);
    const firstRows = ndjson(first.stdout);
    assert.equal(firstRows.length, 16);
    assert.match(first.stderr, /exported 16 executions started up to 2026-03-01 01:45:00Z; state saved to/);
    const saved = JSON.parse(await readFile(state, 'utf8'));
    assert.equal(saved.watermark, '2026-03-01T01:45:00.000Z');
    assert.deepEqual(saved.boundary, [data.executions[15]!.uuid]);

    // After the first run: one execution arrives late at the very instant the run ended, one
    // arrives late inside the next window, and a running one after the watermark finishes.
    const wf = data.workflows[0]!.uuid as string;
    const atBoundary = execution(tenant.organizationId, wf, { startedAt: '2026-03-01T01:45:00Z' });
    const late = execution(tenant.organizationId, wf, {
      startedAt: '2026-03-01T02:30:30Z',
      status: 'FAILURE',
    });
    const running = data.executions[19]!;
    assert.equal(running.status, 'IN_PROGRESS');
    await ingest(ctx.db, [
      atBoundary,
      late,
      { ...running, status: 'SUCCESS', finishedAt: '2026-03-01T02:14:00Z' },
    ]);

    const second = await exportOk(['executions', '--state', state, '--until', '2026-03-01T06:00:00Z']);
    const third = await exportOk(['executions', '--state', state]);
    const again = await exportOk(['executions', '--state', state]);
    assert.equal(again.stdout, '');
    assert.match(again.stderr, /exported 0 executions/);

    const incremental = [...firstRows, ...ndjson(second.stdout), ...ndjson(third.stdout)];
    const full = ndjson((await exportOk(['executions'])).stdout);
    assert.equal(full.length, 152);
    assert.equal(new Set(incremental.map((row) => row.uuid)).size, incremental.length, 'no duplicates');
    const key = byKey((row) => row.uuid as string);
    assert.deepEqual(incremental.sort(key), full.sort(key));
    assert.equal(incremental.find((row) => row.uuid === running.uuid)?.status, 'SUCCESS');
    assert.ok(incremental.some((row) => row.uuid === atBoundary.uuid));
  });

  it('resumes an export of simulated live traffic twice and ends equal to a full export, given a lag above the longest execution', async () => {
    tenant = await createTenant(ctx.db);
    const start = Date.parse('2026-06-01T00:00:00Z');
    const world = createWorld({
      seed: 'sdk-export',
      organizationId: tenant.organizationId,
      workflows: 4,
      start,
      days: 1,
      executions: 400,
    });
    const state = join(dir, 'live.state.json');
    // Each run sees the facts known at its cut and exports up to 3 minutes before it: longer
    // than any execution runs, so every execution it exports has its final state by then.
    const lagMs = 3 * 60_000;
    assert.ok(lagMs > MAX_EXECUTION_MS);
    // The first two cuts fall 1 ms after an execution starts, so that it is still running there.
    const history = [
      ...recordsBetween(world, Number.NEGATIVE_INFINITY, start + 24 * HOUR, { detail: () => 'none' }),
    ];
    const justAfterAStart = (from: number) => {
      const running = history.find(
        (r) =>
          r.type === 'execution' &&
          r.startedAt.getTime() >= from &&
          r.finishedAt !== null &&
          r.finishedAt.getTime() - r.startedAt.getTime() > 1,
      );
      assert.ok(running?.type === 'execution', `an execution starts after ${new Date(from).toISOString()}`);
      return running.startedAt.getTime() + 1;
    };
    const cuts = [justAfterAStart(start + 6 * HOUR), justAfterAStart(start + 15 * HOUR), start + 24 * HOUR];
    const incremental: Row[] = [];
    let after = Number.NEGATIVE_INFINITY;
    let runningAtCuts = 0;
    for (const cut of cuts) {
      const known = [...recordsBetween(world, after, cut, { detail: () => 'none' })];
      runningAtCuts += known.filter((r) => r.type === 'execution' && r.status === 'IN_PROGRESS').length;
      const result = await ingestBatch(
        ctx.db,
        known.map((record, i) => ({ line: i + 1, record })),
        { observers: INGEST_OBSERVERS },
      );
      assert.deepEqual(result.rejected, []);
      after = cut;
      const run = await exportOk([
        'executions',
        '--state',
        state,
        '--until',
        new Date(cut - lagMs).toISOString(),
      ]);
      incremental.push(...ndjson(run.stdout));
    }
    assert.ok(runningAtCuts > 0, 'some executions were still running when a run started');
    const full = ndjson(
      (await exportOk(['executions', '--until', new Date(cuts[2]! - lagMs).toISOString()])).stdout,
    );
    assert.ok(full.length > 300, `${full.length} executions`);
    assert.equal(new Set(incremental.map((row) => row.uuid)).size, incremental.length, 'no duplicates');
    const key = byKey((row) => row.uuid as string);
    assert.deepEqual(incremental.sort(key), full.sort(key));
    assert.ok(full.every((row) => row.status !== 'IN_PROGRESS'));
  });

  it('exports in startedAt order, oldest first, with every field and exact credits', async () => {
    await seed(12);
    const rows = ndjson((await exportOk(['executions', '--status', 'success,failure'])).stdout);
    assert.deepEqual(
      rows.map((row) => row.uuid),
      data.executions.filter((e) => e.status !== 'IN_PROGRESS').map((e) => e.uuid),
    );
    assert.equal(rows[3]!.creditUsed, data.executions[3]!.creditUsed);
    assert.deepEqual(rows[3]!.errors, [{ error: 'http fetch returned 502', count: 2 }]);
  });

  it('continues a log export where it ended and matches the full export of logs', async () => {
    await seed(20, 20);
    const state = join(dir, 'logs.state.json');
    const first = await exportOk(['logs', '--state', state, '--until', '2026-03-01T01:00:00Z']);
    const second = await exportOk(['logs', '--state', state]);
    const full = ndjson((await exportOk(['logs'])).stdout);
    assert.equal(full.length, 60);
    const incremental = [...ndjson(first.stdout), ...ndjson(second.stdout)];
    assert.deepEqual(incremental, full);
    assert.deepEqual(Object.keys(full[0]!), ['workflowExecutionUUID', 'nodeID', 'message', 'timestamp']);
    assert.match(first.stderr, /exported 27 log lines of 9 executions/);
  });

  it('writes events as CSV with a header and quoted cells, and as one JSON array', async () => {
    await seed(5, 5);
    const csv = (await exportOk(['events', '--format', 'csv', '--workflow', 'alpha-feed'])).stdout;
    const lines = csv.split('\r\n');
    assert.equal(lines[0], 'workflowExecutionUUID,capabilityID,status,method,startedAt,finishedAt,errors');
    assert.equal(lines.length, 2 * 3 + 2);
    assert.ok(
      lines.includes(
        `${data.executions[3]!.uuid},http-fetch@2.1.0,FAILURE,GET,2026-03-01T00:21:00.250Z,2026-03-01T00:21:03.200Z,"[{""error"":""upstream 502"",""count"":2}]"`,
      ),
    );
    const json = JSON.parse((await exportOk(['events', '--format', 'json'])).stdout);
    assert.equal(json.length, 15);
    const empty = await exportOk(['executions', '--format', 'json', '--since', '2027-01-01']);
    assert.deepEqual(JSON.parse(empty.stdout), []);
  });

  it('refuses a state file of another kind, of other filters, or not a state file, with exit 2', async () => {
    await seed(3);
    const state = join(dir, 'kind.state.json');
    await exportOk(['executions', '--state', state]);
    const kind = await runCli(['export', 'logs', '--state', state], env());
    assert.equal(kind.code, 2);
    assert.match(kind.stderr, /records an export of executions, not logs/);
    const filters = await runCli(['export', 'executions', '--status', 'FAILURE', '--state', state], env());
    assert.equal(filters.code, 2);
    assert.match(filters.stderr, /other --workflow or --status filters/);
    const garbage = join(dir, 'garbage.json');
    await writeFile(garbage, '{"hello": 1}');
    const notState = await runCli(['export', 'executions', '--state', garbage], env());
    assert.equal(notState.code, 2);
    assert.match(notState.stderr, /not a wfapi export state file/);
    const unknownKind = await runCli(['export', 'deployments'], env());
    assert.equal(unknownKind.code, 2);
  });
  it('exports every log line of an execution that workflowExecutionLogs refuses as past the byte budget, in order', async () => {
    tenant = await createTenant(ctx.db);
    const wf = workflow(tenant.organizationId);
    const ex = execution(tenant.organizationId, wf.uuid as string);
    const uuid = ex.uuid as string;
    await ingest(ctx.db, [wf, ex]);
    for (let start = 0; start < 40; start += 10) {
      await ingest(
        ctx.db,
        Array.from({ length: 10 }, (_, j) =>
          log(tenant.organizationId, uuid, {
            message: `line ${start + j} ${'z'.repeat(1_000)}`,
            timestamp: new Date(Date.parse('2026-01-02T00:00:00Z') + ((start + j) % 7) * 1000).toISOString(),
          }),
        ),
      );
    }
    const logs = `{ workflowExecutionLogs(input: { workflowExecutionUUID: "${uuid}" }) { data { nodeID message timestamp } } }`;
    const whole = (await ctx.server.gql(tenant.key, logs)).body.data.workflowExecutionLogs.data as Row[];
    assert.equal(whole.length, 40);
    const small = await startServer(ctx.db, { limits: { maxAnswerBytes: 20_000 } });
    try {
      const refused = await small.gql(tenant.key, logs);
      assert.equal(refused.body.errors?.[0]?.extensions.code, 'BAD_USER_INPUT');
      assert.match(refused.body.errors[0].message, /`wfapi export logs`/);
      const result = await runCli(['export', 'logs'], { WFAPI_URL: small.url, WFAPI_API_KEY: tenant.key });
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(
        ndjson(result.stdout),
        whole.map((line) => ({ workflowExecutionUUID: uuid, ...line })),
      );
      assert.match(result.stderr, /exported 40 log lines of 1 execution/);
    } finally {
      await small.close();
    }
  });
});
