/**
 * A real Prometheus (Debian's `prometheus` package, installed by .ci/run) scrapes a test server's
 * /metrics with the bearer token, and PromQL through its HTTP API reads back what was ingested.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openTestDatabase, type TestDatabase } from '../harness/database.js';
import { enginePath, requireEngine } from '../harness/engines.js';
import { eventually } from '../harness/eventually.js';
import { createTenant, execution, workflow } from '../harness/fixtures.js';
import { freePort } from '../harness/process.js';
import { startServer, type TestServer } from '../harness/server.js';
import { INGEST_TOKEN, postIngest } from '../ingest/http.js';
import { METRICS_TOKEN } from './scrape.js';

const METRICS_DOC = readFileSync(new URL('../../docs/metrics.md', import.meta.url), 'utf8');
/** The fenced blocks of one language in docs/metrics.md. */
const readmeBlocks = (language: string) => {
  const section = METRICS_DOC;
  return [...section.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\``, 'gm'))].map(
    (m) => m[1]!,
  );
};

/** docs/metrics.md's scrape job as written, pointed at the test server and scraping every second. */
function prometheusConfig(target: string, tokenFile: string): string {
  const job = readmeBlocks('yaml')[0] ?? '';
  assert.ok(job.includes('job_name: wfapi'), 'docs/metrics.md shows a scrape job');
  const edited = job
    .replace(/scrape_interval: \S+/, 'scrape_interval: 1s')
    .replace(/credentials_file: \S+/, `credentials_file: ${tokenFile}`)
    .replace(/targets: \[[^\]]*\]/, `targets: ['${target}']`);
  assert.notEqual(edited, job);
  return edited;
}

interface PromVector {
  metric: Record<string, string>;
  value: [number, string];
}

const needsPrometheus = await requireEngine('prometheus');
describe('a real Prometheus scraping /metrics', needsPrometheus, () => {
  let database: TestDatabase;
  let server: TestServer;
  let prometheus: ChildProcess;
  let prometheusUrl: string;
  let dir: string;
  let output = '';

  before(async () => {
    database = await openTestDatabase();
    server = await startServer(database.db, { ingestToken: INGEST_TOKEN, metrics: { token: METRICS_TOKEN } });
    dir = mkdtempSync(join(tmpdir(), 'wfapi-prometheus-'));
    const tokenFile = join(dir, 'wfapi-token');
    writeFileSync(tokenFile, METRICS_TOKEN, { mode: 0o600 });
    writeFileSync(join(dir, 'prometheus.yml'), prometheusConfig(new URL(server.url).host, tokenFile));
    const port = await freePort();
    prometheusUrl = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      enginePath('prometheus'),
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
    };
    prometheus.stdout!.on('data', keep);
    prometheus.stderr!.on('data', keep);
    await eventually(
      async () => {
        assert.ok(prometheus.exitCode === null, `prometheus exited: ${output}`);
        return fetch(`${prometheusUrl}/-/ready`).then(
          (response) => response.ok,
          () => false,
        );
      },
      () => `prometheus not ready: ${output}`,
      { timeoutMs: 30_000, everyMs: 50 },
    );
  });

  after(async () => {
    if (prometheus && prometheus.exitCode === null) {
      const exit = once(prometheus, 'exit');
      prometheus.kill('SIGTERM');
      await exit;
    }
    await server?.close();
    await database?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Runs an instant PromQL query until `accept` takes its result (a scrape every second brings it),
   * for at most 30 s.
   */
  async function queryUntil(query: string, accept: (result: PromVector[]) => boolean): Promise<PromVector[]> {
    let last: unknown;
    try {
      return await eventually(
        async () => {
          const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(query)}`);
          const body = (await response.json()) as { status: string; data?: { result: PromVector[] } };
          last = body;
          return body.status === 'success' && accept(body.data!.result) ? body.data!.result : undefined;
        },
        query,
        { timeoutMs: 30_000, everyMs: 50 },
      );
    } catch {
      const targets = await fetch(`${prometheusUrl}/api/v1/targets`).then((r) => r.json());
      assert.fail(`${query}: last answer ${JSON.stringify(last)}; targets ${JSON.stringify(targets)}`);
    }
  }

  it('answers PromQL with the execution counts the test ingested, scraped with the bearer token', async () => {
    const tenant = await createTenant(database.db);
    const org = tenant.organizationId;
    const flow = workflow(org, { name: 'price-feed' });
    const runs = (status: string, n: number) =>
      Array.from({ length: n }, () =>
        execution(org, flow.uuid as string, { status, finishedAt: '2026-01-02T00:00:02Z' }),
      );
    const answer = await postIngest(server.url, [flow, ...runs('SUCCESS', 3), ...runs('FAILURE', 2)]);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));

    const byStatus = await queryUntil(
      `sum by (status) (wfapi_executions_total{organization_id="${org}"})`,
      (result) => result.length === 2,
    );
    assert.deepEqual(
      Object.fromEntries(byStatus.map((sample) => [sample.metric.status, Number(sample.value[1])])),
      { SUCCESS: 3, FAILURE: 2 },
    );
    const durations = await queryUntil(
      `sum(wfapi_execution_duration_seconds_count{organization_id="${org}", workflow="${flow.uuid}"})`,
      (result) => result.length === 1,
    );
    assert.equal(Number(durations[0]!.value[1]), 5);
    // Names join on the workflow label, as a dashboard would.
    const named = await queryUntil(
      `sum by (workflow_name) (wfapi_executions_total{organization_id="${org}"} * on (organization_id, workflow) group_left (workflow_name) wfapi_workflow_info)`,
      (result) => result.length === 1,
    );
    assert.deepEqual(named[0]!.metric, { workflow_name: 'price-feed' });
    assert.equal(Number(named[0]!.value[1]), 5);
    const up = await queryUntil('up{job="wfapi"}', (result) => result.length === 1);
    assert.equal(up[0]!.value[1], '1');
  });

  it('runs the example queries of docs/metrics.md', async () => {
    const queries = readmeBlocks('promql').flatMap((block) =>
      block
        .split(/^#.*$/m)
        .map((query) => query.trim())
        .filter(Boolean),
    );
    assert.ok(queries.length >= 2);
    for (const query of queries) {
      const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(query)}`);
      const body = (await response.json()) as { status: string; error?: string };
      assert.equal(body.status, 'success', `${query}: ${body.error}`);
    }
  });
});
