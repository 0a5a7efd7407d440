/**
 * The read mix on partitioned tables (this checkout) against the same data unpartitioned (the
 * version before migration 0006), side by side in one run: the dataset is loaded once by this
 * checkout, copied, and the copy's three raw tables are rebuilt as plain tables with the keys and
 * indexes they had before 0006; a server of each version then answers the mix in alternation,
 * query by query, for `--rounds` rounds (the side that goes first alternates); each figure is the
 * median over the rounds. Ingestion before and after is bench/ingest-compare.ts --ref 59d52aa.
 *
 *   node --import tsx bench/partitions.ts [--executions 150000] [--ref 59d52aa] [--concurrency 4]
 *                                         [--seconds 2] [--rounds 3] [--port 4760]
 *
 * Writes bench/results/partitions.{json,md}.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { closedLoop } from './lib/closed-loop.js';
import { commandLine } from './lib/command-line.js';
import { ensureDataset } from './lib/dataset.js';
import { GraphqlHttpClient } from './lib/http-client.js';
import { buildRef } from './lib/ref-build.js';
import { ServerProcess } from './lib/server-process.js';
import { medianSummary, type Summary } from './lib/stats.js';
import { benchServerEnv, warmUp } from './lib/warm-up.js';
import { FULL_MIX, TRIVIAL } from './queries.js';

const { values: args } = parseArgs({
  options: {
    executions: { type: 'string', default: '150000' },
    ref: { type: 'string', default: '59d52aa' },
    concurrency: { type: 'string', default: '4' },
    seconds: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    'pg-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    port: { type: 'string', default: '4760' },
  },
});
const command = commandLine('node --import tsx bench/partitions.ts');
const seconds = Number(args.seconds);
const rounds = Number(args.rounds);
const port = Number(args.port);
console.log(`# ${command}`);

/** The raw tables as they were before 0006: plain tables, their keys and indexes. */
const FLAT: ReadonlyArray<{ table: string; key: string; indexes: readonly string[] }> = [
  {
    table: 'executions',
    key: 'uuid',
    indexes: [
      'create index executions_org_started on executions (organization_id, started_at desc, uuid desc)',
      'create index executions_org_workflow_started on executions (organization_id, workflow_uuid, started_at desc, uuid desc)',
      'create index executions_org_status_started on executions (organization_id, status, started_at desc, uuid desc)',
    ],
  },
  {
    table: 'execution_logs',
    key: 'organization_id, workflow_execution_uuid, line_hash',
    indexes: [
      'create index execution_logs_message_trgm on execution_logs using gin (message gin_trgm_ops)',
      'create index execution_logs_org_timestamp on execution_logs (organization_id, timestamp)',
    ],
  },
  {
    table: 'execution_events',
    key: 'organization_id, workflow_execution_uuid, line_hash',
    indexes: ['create index execution_events_org_started on execution_events (organization_id, started_at)'],
  },
];

const dataset = await ensureDataset({
  adminUrl: args['pg-url']!,
  executions: Number(args.executions),
  port: port + 1,
});
const flatName = `${new URL(dataset.databaseUrl).pathname.slice(1)}_flat`;
const flatUrl = new URL(dataset.databaseUrl);
flatUrl.pathname = `/${flatName}`;
const admin = new pg.Client({ connectionString: args['pg-url'] });
await admin.connect();
await admin.query(`drop database if exists ${flatName}`);
await admin.query(`create database ${flatName} template ${new URL(dataset.databaseUrl).pathname.slice(1)}`);
await admin.end();
const flat = new pg.Client({ connectionString: flatUrl.toString() });
await flat.connect();
for (const { table, key, indexes } of FLAT) {
  await flat.query(`create table ${table}_flat (like ${table})`);
  await flat.query(`insert into ${table}_flat select * from ${table}`);
  await flat.query(`drop table ${table}`);
  await flat.query(`alter table ${table}_flat rename to ${table}`);
  await flat.query(`alter table ${table} add primary key (${key})`);
  for (const index of indexes) await flat.query(index);
}
await flat.query('vacuum analyze');
await flat.end();

const sides = [
  {
    name: `unpartitioned (${args.ref})`,
    server: await ServerProcess.start(benchServerEnv(flatUrl.toString()), port + 2, {
      cli: buildRef(args.ref!),
    }),
  },
  {
    name: 'partitioned (this checkout)',
    server: await ServerProcess.start(benchServerEnv(dataset.databaseUrl), port + 4),
  },
];
for (const side of sides)
  await warmUp(side.server.url, dataset.key, dataset.facts, [TRIVIAL, ...FULL_MIX], 1);

const rows: Array<{ query: string; before: Summary; after: Summary; ratio: number }> = [];
const concurrency = Number(args.concurrency);
const clients = sides.map((side) => new GraphqlHttpClient(side.server.url, dataset.key, concurrency));
for (const q of [TRIVIAL, ...FULL_MIX]) {
  const runs: Summary[][] = [[], []];
  const variables = q.variables(dataset.facts);
  const once = (i: number, length: number) =>
    closedLoop(() => clients[i]!.post(q.query, variables), { concurrency, seconds: length });
  for (let i = 0; i < 2; i++) await once(i, 1);
  for (let round = 0; round < rounds; round++) {
    for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) runs[i]!.push(await once(i, seconds));
  }
  const before = medianSummary(runs[0]!);
  const after = medianSummary(runs[1]!);
  rows.push({ query: q.name, before, after, ratio: after.rps / before.rps });
  console.log(`${q.name}: ${before.rps.toFixed(0)} -> ${after.rps.toFixed(0)} req/s`);
}
for (const client of clients) client.close();
for (const side of sides) await side.server.stop();

const f1 = (n: number) => n.toFixed(1);
const markdown = [
  `Measured ${new Date().toISOString()}: ${dataset.facts.totalExecutions.toLocaleString('en-US')} executions, ` +
    `${concurrency} connections, median of ${rounds} alternating rounds of ${seconds} s. Command: \`${command}\`.`,
  '',
  `| query | req/s unpartitioned | req/s partitioned | ratio | p50 ms before | p50 ms after | p99 ms before | p99 ms after | errors |`,
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map(
    (r) =>
      `| ${r.query} | ${r.before.rps.toFixed(0)} | ${r.after.rps.toFixed(0)} | ${r.ratio.toFixed(2)} | ${f1(r.before.p50)} | ${f1(r.after.p50)}` +
      ` | ${f1(r.before.p99)} | ${f1(r.after.p99)} | ${r.before.errors + r.after.errors} |`,
  ),
  '',
].join('\n');
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(
  new URL('./results/partitions.json', import.meta.url),
  `${JSON.stringify({ command, date: new Date().toISOString(), concurrency, rounds, seconds, rows }, null, 2)}\n`,
);
writeFileSync(new URL('./results/partitions.md', import.meta.url), markdown);
console.log(`\n${markdown}`);
