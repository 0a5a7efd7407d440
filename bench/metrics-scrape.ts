/**
 * The cost of a Prometheus scrape as the platform grows:
 * `node --import tsx bench/metrics-scrape.ts [--workflows 2000] [--days 90] [--postgres postgres://...]`.
 * Fills a scratch PostgreSQL database (dropped at the end) with the rollup rows of `--workflows`
 * workflows in one organization, each with two statuses and `--days` daily duration rows per
 * status (what that many days of activity leave), then times five `GET /metrics` of an
 * in-process server and prints the answer's size, its samples and its workflow label values.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { migrate } from '../src/db/migrate.js';
import { openPostgres } from '../src/db/postgres.js';
import { createTenant } from '../test/harness/fixtures.js';
import { median } from './lib/stats.js';

const { values: args } = parseArgs({
  options: {
    workflows: { type: 'string', default: '2000' },
    days: { type: 'string', default: '90' },
    postgres: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const workflows = Number(args.workflows);
const days = Number(args.days);
const name = `wfapi_bench_metrics_${process.pid}`;

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: args.postgres });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

await adminQuery(`create database ${name}`);
const url = new URL(args.postgres);
url.pathname = `/${name}`;
const db = openPostgres(url.toString(), { poolSize: 5, statementTimeoutMs: 600_000 });
try {
  await migrate(db);
  const tenant = await createTenant(db);
  await db.query(
    `insert into workflows (uuid, organization_id, workflow_id, name, owner_address, status, registered_at)
     select gen_random_uuid(), $1, 'w' || i, 'flow-' || i, '0xaa', 'ACTIVE', now() from generate_series(1, $2) i`,
    [tenant.organizationId, workflows],
  );
  await db.query(
    `insert into execution_rollups (organization_id, grain, workflow_uuid, bucket_start, status, execution_count, credit_used)
     select w.organization_id, 0, w.uuid, 'epoch', s, 100 + (random() * 1000)::int, 1.5
     from workflows w, unnest(array['SUCCESS', 'FAILURE']) s`,
  );
  await db.query(
    `insert into duration_rollups (organization_id, grain, bucket_start, workflow_uuid, capability_id, status,
                                   item_count, finished_count, duration_sum_ms, duration_bins)
     select w.organization_id, 86400, current_date - d, w.uuid, '', s, 10, 10, 20000, '[230:236]={1,0,2,0,3,0,4}'::int8[]
     from workflows w, generate_series(1, $1) d, unnest(array['SUCCESS', 'FAILURE']) s`,
    [days],
  );
  await db.query('analyze');
  const app = await buildApp(loadConfig({}, { port: 0, logLevel: 'silent', metrics: { token: 'bench' } }), {
    db,
  });
  const base = await app.listen();
  const times: number[] = [];
  let text = '';
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    const response = await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer bench' } });
    text = await response.text();
    times.push(performance.now() - started);
  }
  await app.close();
  const samples = text.split('\n').filter((line) => line && !line.startsWith('#'));
  const labels = new Set(
    samples
      .filter((line) => line.startsWith('wfapi_executions_total'))
      .map((line) => /workflow="([^"]+)"/.exec(line)?.[1]),
  );
  console.log(
    JSON.stringify({
      workflows,
      days,
      dailyDurationRows: workflows * days * 2,
      scrapeMs: times.map(Math.round),
      medianScrapeMs: Math.round(median(times)),
      bytes: text.length,
      samples: samples.length,
      workflowLabelValues: labels.size,
      lastPlatformRead: samples.find((line) => line.startsWith('wfapi_metrics_platform_read_seconds')),
    }),
  );
} finally {
  await db.close();
  await adminQuery(`drop database if exists ${name} with (force)`);
}
