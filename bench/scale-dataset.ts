/**
 * A large benchmark dataset made from a loaded one, in minutes instead of hours: the database of
 * `npm run bench -- --executions <from>` is copied (CREATE DATABASE ... TEMPLATE) and every
 * execution in the copy is repeated `--factor - 1` more times under new uuids, with its log lines,
 * events and error-group rows; the rollups are multiplied to match.
 *
 *   node --import tsx bench/scale-dataset.ts [--from 1000000] [--factor 10] [--to 10000000]
 *
 * The copy is named as `npm run bench -- --executions <to>` names its dataset (wfapi_bench_<to>),
 * so bench/run.ts and bench/growth.ts use it as they would a loaded one.
 *
 * What it is: the same month, the same 20 workflows, each execution `factor` times at the same
 * instant with the same status, errors, duration, credits, log lines and events. Every rollup of
 * that data is the original's with its counts, sums and histogram bins multiplied by the factor
 * (minimum and maximum, error groups' patterns and first and last sightings unchanged), which is
 * what ingesting the repeats would leave; the window edges, the log search index and the index
 * scans see `factor` times the rows. What it is not: a history with `factor` times as many
 * distinct error texts or instants. Loading 10 million through POST /ingest takes hours on two
 * cores (1 million: 27 minutes); this takes tens of minutes. The live stream's change feed
 * (execution_changes) is not repeated: no read of the mix uses it.
 *
 * `--verify` proves that on a small dataset: it copies the result once more, recounts every rollup
 * of the copy from its raw rows with migration 0003 (the code ingestion uses), and compares the
 * two table by table (5,000 executions times 3: every rollup row equal).
 *
 * The raw tables' keys and indexes are dropped before the bulk insert and built again after it
 * (as a restore does), then the database is vacuumed and analyzed.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { up as recountRollups } from '../src/db/migrations/0003_recount_rollups.js';
import { openPostgres } from '../src/db/postgres.js';

const { values: args } = parseArgs({
  options: {
    from: { type: 'string', default: '1000000' },
    factor: { type: 'string', default: '10' },
    to: { type: 'string' },
    /** Then recount every rollup of a copy from the raw rows (migration 0003) and compare: small datasets only. */
    verify: { type: 'boolean', default: false },
    'pg-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const factor = Number(args.factor);
if (!Number.isInteger(factor) || factor < 2) throw new Error('--factor must be an integer of at least 2');
const source = `wfapi_bench_${Number(args.from)}`;
const target = `wfapi_bench_${Number(args.to ?? Number(args.from) * factor)}`;
console.log(`# node --import tsx bench/scale-dataset.ts ${process.argv.slice(2).join(' ')}`.trim());

const urlOf = (name: string) => {
  const url = new URL(args['pg-url']!);
  url.pathname = `/${name}`;
  return url.toString();
};

const admin = new pg.Client({ connectionString: args['pg-url'] });
await admin.connect();
const ready = await admin.query('select 1 from pg_database where datname = $1', [source]);
if (ready.rowCount !== 1)
  throw new Error(`${source} is missing: run npm run bench -- --executions ${args.from} --load-only`);
await admin.query(`drop database if exists ${target}`);
let started = performance.now();
const step = (what: string) => {
  const now = performance.now();
  console.log(`${what}: ${((now - started) / 1000).toFixed(1)} s`);
  started = now;
};
await admin.query(`create database ${target} template ${source}`);
await admin.end();
step(`copied ${source} to ${target}`);

const db = new pg.Client({ connectionString: urlOf(target) });
await db.connect();
await db.query(`set maintenance_work_mem = '1GB'`);
await db.query('set max_parallel_maintenance_workers = 2');
const [loaded] = (await db.query<{ facts: unknown }>('select facts from bench_dataset where id = 1')).rows;
if (!loaded?.facts) throw new Error(`${source} was not loaded to the end: load it again`);

/** A repeat's uuid: derived from the original's and the repeat's number, the same in every table. */
const repeatUuid = (column: string) => `md5(${column}::text || '/' || k)::uuid`;
const repeats = `generate_series(1, ${factor - 1}) as k`;

/** Each table's rows repeated, as one INSERT ... SELECT (columns not listed take their defaults: seq). */
const REPEATED: ReadonlyArray<{ table: string; columns: string; select: string }> = [
  {
    table: 'execution_keys',
    columns: 'uuid, organization_id, started_at',
    select: `${repeatUuid('uuid')}, organization_id, started_at`,
  },
  {
    table: 'executions',
    columns:
      'uuid, organization_id, workflow_uuid, id, status, classified_status, started_at, finished_at, credit_used, errors, executed_in_tee, updated_at',
    select: `${repeatUuid('uuid')}, organization_id, workflow_uuid, encode(sha256(convert_to(id || '/' || k, 'UTF8')), 'hex'), status, classified_status, started_at, finished_at, credit_used, errors, executed_in_tee, updated_at`,
  },
  {
    table: 'execution_logs',
    columns: 'organization_id, workflow_execution_uuid, line_hash, node_id, message, timestamp',
    select: `organization_id, ${repeatUuid('workflow_execution_uuid')}, line_hash, node_id, message, timestamp`,
  },
  {
    table: 'execution_events',
    columns:
      'organization_id, workflow_execution_uuid, line_hash, capability_id, status, method, started_at, finished_at, errors',
    select: `organization_id, ${repeatUuid('workflow_execution_uuid')}, line_hash, capability_id, status, method, started_at, finished_at, errors`,
  },
  {
    table: 'execution_error_groups',
    columns: 'organization_id, execution_uuid, fingerprint, capability_id, occurrences',
    select: `organization_id, ${repeatUuid('execution_uuid')}, fingerprint, capability_id, occurrences`,
  },
];

for (const { table, columns, select } of REPEATED) {
  // The table's keys and indexes as the database describes them, to drop now and build after.
  const constraints = (
    await db.query<{ name: string; def: string }>(
      `select conname as name, pg_get_constraintdef(oid) as def from pg_constraint
       where conrelid = $1::regclass and contype in ('p', 'u')`,
      [table],
    )
  ).rows;
  const indexes = (
    await db.query<{ name: string; def: string }>(
      `select i.relname as name, pg_get_indexdef(i.oid) as def from pg_index x join pg_class i on i.oid = x.indexrelid
       where x.indrelid = $1::regclass and not exists (select 1 from pg_constraint c where c.conindid = i.oid)`,
      [table],
    )
  ).rows;
  for (const c of constraints) await db.query(`alter table ${table} drop constraint ${c.name}`);
  for (const i of indexes) await db.query(`drop index ${i.name}`);
  const inserted = await db.query(
    `insert into ${table} (${columns}) select ${select} from ${table} cross join ${repeats}`,
  );
  step(`${table}: ${inserted.rowCount} rows repeated`);
  for (const c of constraints) await db.query(`alter table ${table} add constraint ${c.name} ${c.def}`);
  // A partitioned table's definitions read `ON ONLY` (the parent alone): built on every partition.
  for (const i of indexes) await db.query(i.def.replace(' ON ONLY ', ' ON '));
  step(`${table}: ${constraints.length + indexes.length} keys and indexes built`);
}

/** Rollup columns that add up (histogram bins add bin by bin); minimum and maximum stay. */
const MULTIPLIED: ReadonlyArray<{ table: string; set: string }> = [
  {
    table: 'execution_rollups',
    set: `execution_count = execution_count * ${factor}, tee_count = tee_count * ${factor}, credit_used = credit_used * ${factor}`,
  },
  {
    table: 'duration_rollups',
    set: `item_count = item_count * ${factor}, finished_count = finished_count * ${factor},
          duration_sum_ms = duration_sum_ms * ${factor},
          duration_bins = (select wfapi_hist_sum(b) from (select duration_bins as b from generate_series(1, ${factor})) as copies)`,
  },
  {
    table: 'error_group_rollups',
    set: `occurrences = occurrences * ${factor}, execution_count = execution_count * ${factor}`,
  },
];
for (const { table, set } of MULTIPLIED) {
  const updated = await db.query(`update ${table} set ${set}`);
  step(`${table}: ${updated.rowCount} rows multiplied by ${factor}`);
}

const [total] = (await db.query<{ n: number }>('select count(*)::int as n from executions')).rows;
const multipliedKinds = ['execution', 'log', 'event'];
await db.query(
  `update bench_dataset set
     facts = jsonb_set(facts, '{totalExecutions}', to_jsonb($1::int)),
     counts = (select jsonb_object_agg(key, case when key = any($2::text[]) then value::numeric * $3 else value::numeric end)
               from jsonb_each_text(counts)),
     ingest = null
   where id = 1`,
  [total!.n, multipliedKinds, factor],
);
const [invalid] = (
  await db.query<{ n: number }>('select count(*)::int as n from pg_index where not indisvalid')
).rows;
if (invalid!.n > 0) throw new Error(`${invalid!.n} indexes were left invalid`);
await db.query('vacuum analyze');
step(`vacuumed and analyzed; ${total!.n} executions`);
await db.end();

if (args.verify) {
  const recounted = `${target}_recounted`;
  const again = new pg.Client({ connectionString: args['pg-url'] });
  await again.connect();
  await again.query(`drop database if exists ${recounted}`);
  await again.query(`create database ${recounted} template ${target}`);
  await again.end();
  const copy = openPostgres(urlOf(recounted), { poolSize: 1, statementTimeoutMs: 3_600_000 });
  await copy.transaction((tx) => recountRollups(tx));
  await copy.close();
  /** Each table's rows as text, numbers without trailing zeros and empty histogram bins as 0. */
  const digest = (table: string, columns: string) =>
    `select count(*)::int as n, md5(string_agg(row, ';' order by row)) as digest from (
       select concat_ws('|', ${columns}) as row from ${table}) rows`;
  const bins = `array_lower(duration_bins, 1), array(select coalesce(b, 0) from unnest(duration_bins) b)::text`;
  const TABLES: ReadonlyArray<[string, string]> = [
    [
      'execution_rollups',
      'organization_id, grain, workflow_uuid, bucket_start, status, execution_count, tee_count, trim_scale(credit_used)',
    ],
    [
      'duration_rollups',
      `organization_id, grain, bucket_start, workflow_uuid, capability_id, status, item_count, finished_count, duration_sum_ms, duration_min_ms, duration_max_ms, ${bins}`,
    ],
    [
      'error_group_rollups',
      'organization_id, grain, bucket_start, workflow_uuid, fingerprint, capability_id, occurrences, execution_count',
    ],
    ['execution_error_groups', 'organization_id, execution_uuid, fingerprint, capability_id, occurrences'],
    ['error_groups', 'organization_id, fingerprint, pattern, sample_message, first_seen_at, last_seen_at'],
  ];
  const digests = async (name: string) => {
    const client = new pg.Client({ connectionString: urlOf(name) });
    await client.connect();
    const found = new Map<string, string>();
    for (const [table, columns] of TABLES) {
      const [row] = (await client.query<{ n: number; digest: string }>(digest(table, columns))).rows;
      found.set(table, `${row!.n} rows, ${row!.digest}`);
    }
    await client.end();
    return found;
  };
  const [scaled, recount] = [await digests(target), await digests(recounted)];
  let equal = true;
  for (const [table] of TABLES) {
    const same = scaled.get(table) === recount.get(table);
    equal &&= same;
    console.log(
      `${table}: ${scaled.get(table)}; recounted ${same ? 'equal' : `DIFFERENT: ${recount.get(table)}`}`,
    );
  }
  const drop = new pg.Client({ connectionString: args['pg-url'] });
  await drop.connect();
  await drop.query(`drop database ${recounted}`);
  await drop.end();
  if (!equal) process.exit(1);
}
