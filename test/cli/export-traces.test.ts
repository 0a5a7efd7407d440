import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { runCli } from '../harness/cli.js';
import { type Dataset, seedDataset } from '../harness/dataset.js';
import { createTenant, execution, ingest, type Tenant } from '../harness/fixtures.js';
import { OtlpReceiver } from '../harness/otlp-receiver.js';
import { cleanEnv, freePort, startWfapi } from '../harness/process.js';
import { useServer } from '../harness/suite.js';

const SERVER = 2;
const INTERNAL = 1;
const STATUS_UNSET = 0;
const STATUS_ERROR = 2;

const traceIdOf = (uuid: unknown) => (uuid as string).replace(/-/g, '');
const nanos = (time: unknown) => `${BigInt(Date.parse(time as string)) * 1_000_000n}`;

describe('wfapi export traces', () => {
  const ctx = useServer();
  const receiver = new OtlpReceiver();
  let dir: string;
  let tenant: Tenant;
  let data: Dataset;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wfapi-traces-'));
    await receiver.start();
  });
  afterEach(() => receiver.reset());
  after(async () => {
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  });
  const env = () => ({ WFAPI_URL: ctx.server.url, WFAPI_API_KEY: tenant.key });
  const exportTraces = async (args: string[] = []) => {
    const result = await runCli(['export', 'traces', '--endpoint', receiver.url, ...args], env());
    assert.equal(result.code, 0, result.stderr);
    return result;
  };
  const seed = async (executions: number, detailed = 0) => {
    tenant = await createTenant(ctx.db);
    data = await seedDataset(ctx.db, tenant.organizationId, { executions, detailed });
  };
  const runSpanOf = (uuid: unknown) =>
    receiver.spans.find((span) => span.traceId === traceIdOf(uuid) && span.parentSpanId === '');
  const ids = () =>
    [
      ...receiver.spans.map((span) => `${span.traceId}/${span.spanId}/${span.parentSpanId}`),
      ...receiver.logRecords.map((log) => `${log.traceId}/${log.spanId}/${log.timeUnixNano}`),
    ].sort();

  it('sends each execution as a pipeline-run span, its capability events as child task spans and its log lines as log records in its trace', async () => {
    await seed(10, 5);
    const { stderr } = await exportTraces();
    assert.match(
      stderr,
      /exported 10 executions as 25 spans and 15 log records to http:\/\/127\.0\.0\.1:\d+/,
    );
    assert.ok(receiver.requests.every((request) => request.contentType === 'application/x-protobuf'));
    assert.deepEqual([...new Set(receiver.requests.map((request) => request.path))].sort(), [
      '/v1/logs',
      '/v1/traces',
    ]);
    assert.equal(receiver.spans.length, 25);

    const ok = data.executions[0]!;
    const run = runSpanOf(ok.uuid)!;
    assert.ok(run, 'the run span of execution 0');
    assert.equal(run.name, 'RUN alpha-feed');
    assert.equal(run.kind, SERVER);
    assert.equal(run.traceId, traceIdOf(ok.uuid));
    assert.match(run.spanId, /^[0-9a-f]{16}$/);
    assert.equal(run.startTimeUnixNano, nanos(ok.startedAt));
    assert.equal(run.endTimeUnixNano, nanos(ok.finishedAt));
    assert.deepEqual(run.status, { code: STATUS_UNSET, message: '' });
    assert.equal(run.attributes['cicd.pipeline.name'], 'alpha-feed');
    assert.equal(run.attributes['cicd.pipeline.run.id'], ok.uuid);
    assert.equal(run.attributes['cicd.pipeline.result'], 'success');
    assert.equal(run.attributes['cicd.pipeline.action.name'], 'RUN');
    assert.equal(run.attributes['error.type'], undefined);
    assert.equal(run.resource['service.name'], 'wfapi');
    assert.equal(run.scope, 'wfapi');

    const tasks = receiver.spans.filter((span) => span.traceId === run.traceId && span !== run);
    assert.deepEqual(
      tasks.map((task) => task.name),
      ['cron-trigger@1.0.0', 'http-fetch@2.1.0', 'chain-write@1.0.0'],
    );
    for (const task of tasks) {
      assert.equal(task.parentSpanId, run.spanId);
      assert.equal(task.kind, INTERNAL);
      assert.equal(task.attributes['cicd.pipeline.task.name'], task.name);
      assert.notEqual(task.spanId, run.spanId);
    }
    const fetch = data.events.find(
      (e) => e.workflowExecutionUUID === ok.uuid && e.capabilityID === 'http-fetch@2.1.0',
    )!;
    const fetchSpan = tasks[1]!;
    assert.equal(fetchSpan.startTimeUnixNano, nanos(fetch.startedAt));
    assert.equal(fetchSpan.endTimeUnixNano, nanos(fetch.finishedAt));
    assert.equal(fetchSpan.attributes['cicd.pipeline.task.run.result'], 'success');
    assert.equal(fetchSpan.attributes['wfapi.capability.method'], 'GET');

    const failed = data.executions[3]!;
    assert.equal(failed.status, 'FAILURE');
    const failedRun = runSpanOf(failed.uuid)!;
    assert.equal(failedRun.attributes['cicd.pipeline.result'], 'failure');
    assert.equal(failedRun.attributes['error.type'], 'USER_ERROR');
    assert.deepEqual(failedRun.status, { code: STATUS_ERROR, message: 'http fetch returned 502' });
    assert.deepEqual(failedRun.events, [
      {
        name: 'exception',
        attributes: { 'exception.message': 'http fetch returned 502', 'wfapi.error.count': 2 },
      },
    ]);
    const failedFetch = receiver.spans.find(
      (span) => span.traceId === failedRun.traceId && span.name === 'http-fetch@2.1.0',
    )!;
    assert.equal(failedFetch.attributes['cicd.pipeline.task.run.result'], 'failure');
    assert.equal(failedFetch.attributes['error.type'], 'FAILURE');
    assert.deepEqual(failedFetch.status, { code: STATUS_ERROR, message: 'upstream 502' });

    assert.equal(receiver.logRecords.length, 15);
    const logs = receiver.logRecords.filter((log) => log.traceId === run.traceId);
    assert.deepEqual(logs.map((log) => [log.body, log.attributes['wfapi.node.id'], log.spanId]).sort(), [
      ['fetched price 1234.5', 'node-b', run.spanId],
      ['report signed', 'node-c', run.spanId],
      ['trigger fired', 'node-a', run.spanId],
    ]);
    const fired = data.logs.find(
      (l) => l.workflowExecutionUUID === ok.uuid && l.message === 'trigger fired',
    )!;
    assert.equal(logs.find((log) => log.body === 'trigger fired')!.timeUnixNano, nanos(fired.timestamp));
  });

  it('sends identical trace and span ids when the same executions are exported twice, and no log records with --no-logs', async () => {
    await seed(6, 3);
    await exportTraces();
    const first = ids();
    assert.equal(first.length, 6 + 9 + 9);
    receiver.reset();
    await exportTraces();
    assert.deepEqual(ids(), first);
    assert.equal(new Set(receiver.spans.map((span) => span.spanId)).size, receiver.spans.length);
    receiver.reset();
    await exportTraces(['--no-logs']);
    assert.equal(receiver.spans.length, 15);
    assert.deepEqual(receiver.logRecords, []);
    assert.ok(receiver.requests.every((request) => request.path === '/v1/traces'));
  });

  it('filters by --workflow, --since and --until, and with --state sends only executions not sent before', async () => {
    await seed(12);
    await exportTraces(['--workflow', 'beta-sync']);
    assert.deepEqual(
      receiver.spans.map((span) => span.attributes['cicd.pipeline.name']),
      ['beta-sync', 'beta-sync', 'beta-sync', 'beta-sync'],
    );
    receiver.reset();
    // Executions start 7 minutes apart from 00:00: 00:14, 00:21 and 00:28 are in the window.
    await exportTraces(['--since', '2026-03-01T00:14:00Z', '--until', '2026-03-01T00:28:00Z']);
    assert.deepEqual(
      receiver.spans.map((span) => span.attributes['cicd.pipeline.run.id']),
      data.executions.slice(2, 5).map((e) => e.uuid),
    );

    receiver.reset();
    const state = join(dir, 'traces.state.json');
    const first = await exportTraces(['--state', state, '--until', '2026-03-01T00:35:00Z']);
    assert.match(first.stderr, /exported 6 executions .*; state saved to/);
    const late = execution(tenant.organizationId, data.workflows[0]!.uuid as string, {
      startedAt: '2026-03-01T00:40:00Z',
    });
    await ingest(ctx.db, [late]);
    receiver.reset();
    await exportTraces(['--state', state]);
    const sent = receiver.spans.map((span) => span.attributes['cicd.pipeline.run.id']);
    assert.deepEqual(sent.sort(), [...data.executions.slice(6).map((e) => e.uuid), late.uuid].sort());
    receiver.reset();
    const again = await exportTraces(['--state', state]);
    assert.equal(receiver.spans.length, 0);
    assert.match(again.stderr, /exported 0 executions/);
  });

  it('with --follow keeps running and sends an execution ingested after it started', async () => {
    await seed(3);
    const follower = startWfapi(
      ['export', 'traces', '--endpoint', receiver.url, '--follow', '--interval', '200ms', '--lag', '0s'],
      { env: cleanEnv(env()), timeoutMs: 60_000 },
    );
    try {
      await follower.waitFor(/exported 3 executions/, 30_000, 'stderr');
      // It starts a moment ahead: with --lag 0s, a run that began before the ingestion committed
      // may already have moved its watermark past an instant just behind now.
      const startedAt = Date.now() + 3000;
      const fresh = execution(tenant.organizationId, data.workflows[1]!.uuid as string, {
        startedAt: new Date(startedAt).toISOString(),
        status: 'SUCCESS',
        finishedAt: new Date(startedAt + 100).toISOString(),
      });
      await ingest(ctx.db, [fresh]);
      await follower.waitFor(/exported 1 execution as/, 30_000, 'stderr');
      assert.ok(runSpanOf(fresh.uuid), 'the new execution was sent');
      assert.equal(receiver.spans.length, 4);
      const exit = await follower.kill('SIGTERM');
      assert.equal(exit.code, 0, follower.stderr());
    } finally {
      await follower.kill();
    }
  });

  it('retries a request the receiver answers with 503, and sends it once accepted', async () => {
    await seed(2, 2);
    receiver.refusals['/v1/traces'] = [503];
    receiver.refusals['/v1/logs'] = [429];
    const { stderr } = await exportTraces();
    assert.match(stderr, /sending spans failed \(HTTP 503\); retry 1/);
    assert.match(stderr, /sending log records failed \(HTTP 429\); retry 1/);
    assert.equal(receiver.spans.length, 2 + 6);
    assert.equal(receiver.logRecords.length, 6);
  });

  it('ends with a one-line error and a non-zero exit when the endpoint is unreachable or refuses, and saves no state', async () => {
    await seed(2);
    const state = join(dir, 'refused.state.json');
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await runCli(
      ['export', 'traces', '--endpoint', nobody, '--retries', '1', '--state', state],
      env(),
    );
    assert.equal(unreachable.code, 5);
    assert.match(
      unreachable.stderr,
      /could not send spans to the OTLP endpoint: cannot reach .*\/v1\/traces: connect ECONNREFUSED/,
    );
    assert.doesNotMatch(unreachable.stderr, /\n\s+at /);

    receiver.refusals['/v1/traces'] = [400];
    const refused = await runCli(['export', 'traces', '--endpoint', receiver.url, '--state', state], env());
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /\/v1\/traces answered HTTP 400/);
    assert.doesNotMatch(refused.stderr, /\n\s+at /);

    const notUrl = await runCli(['export', 'traces', '--endpoint', 'collector:4318'], env());
    assert.equal(notUrl.code, 2);
    assert.match(notUrl.stderr, /--endpoint: /);
    // Nothing was accepted, so the next run starts from the beginning.
    await exportTraces(['--state', state]);
    assert.equal(receiver.spans.length, 2);
  });

  it("creates the --state file's missing folders, readable only by the user, and saves the state there", async () => {
    await seed(3);
    const state = join(dir, 'var', 'lib', 'wfapi', 'traces.state.json');
    const first = await exportTraces(['--state', state]);
    assert.match(first.stderr, /exported 3 executions .*; state saved to/);
    assert.equal((await stat(join(dir, 'var', 'lib', 'wfapi'))).mode & 0o777, 0o700);
    assert.equal(JSON.parse(await readFile(state, 'utf8')).kind, 'traces');
    receiver.reset();
    await exportTraces(['--state', state]);
    assert.equal(receiver.spans.length, 0, 'the second run sends nothing new');
  });

  it('saves what was accepted when Ctrl-C stops the first --follow pass, and the next run sends only the rest', async () => {
    // Two batches of executions: the first is accepted, the second meets an outage and retries.
    await seed(150);
    const state = join(dir, 'interrupted.state.json');
    receiver.outageAfter['/v1/traces'] = 1;
    const follower = startWfapi(
      ['export', 'traces', '--endpoint', receiver.url, '--state', state, '--follow', '--retries', '50'],
      { env: cleanEnv(env()), timeoutMs: 120_000 },
    );
    try {
      await follower.waitFor(/sending spans failed \(HTTP 503\); retry 1/, 90_000, 'stderr');
      const exit = await follower.kill('SIGINT');
      assert.equal(exit.code, 0, follower.stderr());
      assert.match(
        follower.stderr(),
        /interrupted: 100 executions sent to .* before the stop; state saved to/,
      );
    } finally {
      await follower.kill();
    }
    const saved = JSON.parse(await readFile(state, 'utf8'));
    assert.equal(saved.watermark, new Date(data.executions[99]!.startedAt as string).toISOString());
    receiver.reset();
    await exportTraces(['--state', state]);
    const sent = receiver.spans.filter((span) => span.parentSpanId === '');
    assert.deepEqual(
      sent.map((span) => span.attributes['cicd.pipeline.run.id']).sort(),
      data.executions
        .slice(100)
        .map((e) => e.uuid)
        .sort(),
    );
  });
});
