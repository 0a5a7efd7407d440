import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OTHER_WORKFLOWS } from '../../src/metrics/index.js';
import { createTenant, execution, log, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { call, errorCode } from '../http/http-client.js';
import { INGEST_TOKEN, postIngest } from '../ingest/http.js';
import { find, METRICS_TOKEN, samples, scrape, total } from './scrape.js';

const FAILURE_BURST = 4;

describe('GET /metrics without WFAPI_METRICS_TOKEN', () => {
  const ctx = useServer({ ingestToken: INGEST_TOKEN });

  it('does not exist: 404 like any unknown route, with or without a token', async () => {
    for (const token of [null, METRICS_TOKEN]) {
      const answer = await scrape(ctx.server.url, token);
      assert.equal(answer.status, 404);
      assert.equal(errorCode(answer), 'NOT_FOUND');
    }
  });
});

describe('GET /metrics', () => {
  const ctx = useServer({
    ingestToken: INGEST_TOKEN,
    metrics: { token: METRICS_TOKEN, maxWorkflows: 2 },
    // A budget that does not refill within the file: the counts below are exact.
    authFailureLimit: { burst: FAILURE_BURST, perSecond: 0.001 },
  });

  it('answers the Prometheus text format with the counts of what was ingested and asked', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const before = samples((await scrape(ctx.server.url)).text);
    const flow = workflow(org, { name: 'price-feed' });
    const wf = flow.uuid as string;
    const started = '2026-01-02T00:00:00.000Z';
    const run = (status: string, finishedAt: string, creditUsed: string) =>
      execution(org, wf, { status, startedAt: started, finishedAt, creditUsed });
    const first = run('SUCCESS', '2026-01-02T00:00:00.300Z', '1.25');
    const ingested = await postIngest(ctx.server.url, [
      flow,
      first,
      run('SUCCESS', '2026-01-02T00:00:04.000Z', '2'),
      run('FAILURE', '2026-01-02T00:01:10.000Z', '0.5'),
      log(org, first.uuid as string),
      '{"type": "execution", "organizationId": "not-a-uuid"}',
      'not json',
    ]);
    assert.equal(ingested.status, 200, JSON.stringify(ingested.body));
    assert.equal(ingested.body.rejectedCount, 2);
    assert.equal((await ctx.server.gql(tenant.key, '{ workflows(input: {}) { count } }')).status, 200);
    assert.equal((await ctx.server.gql('wfk_wrong', '{ __typename }')).status, 401);

    const answer = await scrape(ctx.server.url);
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
    assert.equal(answer.headers.get('cache-control'), 'no-store');
    const after = samples(answer.text);
    const delta = (name: string, labels: Record<string, string>) =>
      total(after, name, labels) - total(before, name, labels);

    // The platform's metrics, read from the rollups.
    const series = { organization_id: org, workflow: wf };
    assert.equal(total(after, 'wfapi_executions_total', { ...series, status: 'SUCCESS' }), 2);
    assert.equal(total(after, 'wfapi_executions_total', { ...series, status: 'FAILURE' }), 1);
    assert.equal(total(after, 'wfapi_credits_used_total', series), 3.75);
    assert.equal(total(after, 'wfapi_workflow_info', { ...series, workflow_name: 'price-feed' }), 1);
    const buckets = Object.fromEntries(
      find(after, 'wfapi_execution_duration_seconds_bucket', series).map((s) => [s.labels.le, s.value]),
    );
    // 0.3 s, 4 s and 70 s: cumulative counts per upper bound.
    assert.equal(buckets['0.25'], 0);
    assert.equal(buckets['0.5'], 1);
    assert.equal(buckets['5'], 2);
    assert.equal(buckets['50'], 2);
    assert.equal(buckets['100'], 3);
    assert.equal(buckets['+Inf'], 3);
    assert.equal(total(after, 'wfapi_execution_duration_seconds_count', series), 3);
    assert.equal(total(after, 'wfapi_execution_duration_seconds_sum', series), 74.3);
    const freshness = find(after, 'wfapi_data_freshness_seconds', { organization_id: org });
    assert.equal(freshness.length, 1);
    assert.ok(freshness[0]!.value >= 0 && freshness[0]!.value < 60, String(freshness[0]!.value));
    assert.equal(total(after, 'wfapi_metrics_platform_up'), 1);

    // The server's own metrics.
    assert.equal(delta('wfapi_ingest_records_total', { type: 'workflow', result: 'accepted' }), 1);
    assert.equal(delta('wfapi_ingest_records_total', { type: 'execution', result: 'accepted' }), 3);
    assert.equal(delta('wfapi_ingest_records_total', { type: 'log', result: 'accepted' }), 1);
    assert.equal(delta('wfapi_ingest_records_total', { type: 'unparsed', result: 'rejected' }), 2);
    const ingestRoute = { method: 'POST', route: '/ingest', status: '200' };
    assert.equal(delta('wfapi_http_requests_total', ingestRoute), 1);
    assert.equal(delta('wfapi_http_requests_total', { route: '/graphql', status: '401' }), 1);
    assert.equal(delta('wfapi_auth_failures_total', { route: '/graphql' }), 1);
    const operation = { endpoint: '/graphql', root_field: 'workflows' };
    assert.equal(delta('wfapi_graphql_operation_duration_seconds_count', operation), 1);
    assert.equal(delta('wfapi_graphql_errors_total', { endpoint: '/graphql', code: 'UNAUTHENTICATED' }), 1);
    assert.ok(total(after, 'process_cpu_seconds_total') > 0);
    assert.ok(total(after, 'nodejs_heap_size_used_bytes') > 0);
    if (ctx.db.kind === 'postgres') {
      assert.equal(total(after, 'wfapi_db_pool_connections', { state: 'max' }), 5);
    }
  });

  it('keeps at most WFAPI_METRICS_MAX_WORKFLOWS workflow labels per organization, summing the rest as other', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const flows = [4, 3, 2, 1].map((runs, i) => ({ runs, record: workflow(org, { name: `flow-${i}` }) }));
    const records = flows.flatMap(({ runs, record }) => [
      record,
      ...Array.from({ length: runs }, () =>
        execution(org, record.uuid as string, { finishedAt: '2026-01-02T00:00:01Z', creditUsed: '1' }),
      ),
    ]);
    assert.equal((await postIngest(ctx.server.url, records)).status, 200);

    const all = samples((await scrape(ctx.server.url)).text);
    const labels = new Set(
      find(all, 'wfapi_executions_total', { organization_id: org }).map((s) => s.labels.workflow),
    );
    assert.deepEqual(labels, new Set([flows[0]!.record.uuid, flows[1]!.record.uuid, OTHER_WORKFLOWS]));
    const other = { organization_id: org, workflow: OTHER_WORKFLOWS };
    assert.equal(total(all, 'wfapi_executions_total', other), 3);
    assert.equal(total(all, 'wfapi_credits_used_total', other), 3);
    assert.equal(total(all, 'wfapi_execution_duration_seconds_count', other), 3);
    assert.equal(find(all, 'wfapi_workflow_info', other).length, 0);
    assert.equal(find(all, 'wfapi_workflow_info', { organization_id: org }).length, 2);
  });

  it('answers 401 to a wrong or missing token, and 429 once the address has failed too often, like the other operator endpoints', async () => {
    const statuses: number[] = [];
    for (const token of [null, 'wrong', ...Array.from({ length: FAILURE_BURST }, (_, i) => `guess-${i}`)]) {
      const answer = await scrape(ctx.server.url, token);
      statuses.push(answer.status);
      if (answer.status === 401) {
        assert.equal(errorCode(answer), 'UNAUTHENTICATED');
        assert.equal(answer.headers.get('www-authenticate'), 'Bearer');
      }
    }
    // The earlier test's wrong API key spent one failure of the shared budget.
    assert.deepEqual(statuses, [401, 401, 401, 429, 429, 429]);
    const refused = await call(`${ctx.server.url}/ingest`, {
      headers: { 'content-type': 'application/x-ndjson', authorization: 'Bearer wrong' },
      body: '',
    });
    assert.equal(refused.status, 429, 'the budget is shared with /ingest');
    const right = await scrape(ctx.server.url);
    assert.equal(right.status, 200);
    const all = samples(right.text);
    assert.equal(total(all, 'wfapi_auth_failures_total', { route: '/metrics' }), 3);
    assert.equal(total(all, 'wfapi_rate_limited_total', { route: '/metrics', policy: 'auth-failure' }), 3);
    assert.equal(total(all, 'wfapi_rate_limited_total', { route: '/ingest', policy: 'auth-failure' }), 1);
  });
});

describe('GET /metrics while the database is slow', () => {
  const ctx = useServer({
    ingestToken: INGEST_TOKEN,
    metrics: { token: METRICS_TOKEN, platformTimeoutMs: 300 },
  });

  it('answers within WFAPI_METRICS_TIMEOUT_MS with the last platform values read, then fresh ones again', async () => {
    const tenant = await createTenant(ctx.db);
    const flow = workflow(tenant.organizationId);
    const series = { organization_id: tenant.organizationId, workflow: flow.uuid as string };
    assert.equal(
      (await postIngest(ctx.server.url, [flow, execution(tenant.organizationId, series.workflow)])).status,
      200,
    );
    const fresh = samples((await scrape(ctx.server.url)).text);
    assert.equal(total(fresh, 'wfapi_metrics_platform_up'), 1);
    assert.equal(total(fresh, 'wfapi_executions_total', series), 1);

    // A transaction holding the rollups keeps the platform read waiting until it ends.
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked = () => {};
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holder = ctx.db.transaction(async (tx) => {
      await tx.query('lock table execution_rollups in access exclusive mode');
      locked();
      await released;
    });
    await isLocked;
    try {
      const started = performance.now();
      const slow = await scrape(ctx.server.url);
      const elapsed = performance.now() - started;
      assert.equal(slow.status, 200);
      assert.ok(elapsed < 2000, `answered after ${Math.round(elapsed)} ms`);
      const last = samples(slow.text);
      assert.equal(total(last, 'wfapi_metrics_platform_up'), 0);
      assert.equal(total(last, 'wfapi_executions_total', series), 1, 'the last values read');
      assert.ok(total(last, 'process_cpu_seconds_total') > 0, 'the server metrics as always');
    } finally {
      release();
      await holder;
    }
    let up = 0;
    for (let i = 0; i < 20 && up !== 1; i++)
      up = total(samples((await scrape(ctx.server.url)).text), 'wfapi_metrics_platform_up');
    assert.equal(up, 1);
  });
});
