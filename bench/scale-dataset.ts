/**
 * A large benchmark dataset made from a loaded one, in minutes instead of hours: the database of
 * `npm run bench -- --executions <from>` is copied (CREATE DATABASE ... TEMPLATE) and every
 * execution in the copy is repeated `--factor - 1` more times under new uuids, with its log lines,
 * events and error-group rows; the rollups are multiplied to match.
 *
 *   node --import tsx bench/scale-dataset.ts [--from 1000000] [--factor 10] [--to 10000000] [--logs-once | --logs-days N]
 *
 * `--logs-once` leaves the log lines as they are (the repeats have none): ten million executions
 * with their log lines repeated take about 70 GB and an hour of trigram index building, the rest
 * about 23 GB. Everything but log search then reads what a full copy would; log search reads
 * the original's lines, so it is left out of a comparison on such a copy (the dataset's recorded
 * log count says which it is). `--logs-days N` repeats the lines of the dataset's last N days only
 * (before its recorded now), the rest once: a search over the last 24 hours then reads the lines a
 * full copy would hold in its window (the log search target is stated for such a window), at a
 * fraction of the disk (with N = 2, about 4 GB more than `--logs-once` from a million).
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
 * of the copy from its raw rows with src/ingest/recount.ts (the code ingestion uses), and compares the
 * two table by table (5,000 executions times 3: every rollup row equal).
 *
 * The raw tables' keys and indexes are dropped before the bulk insert and built again after it
 * (as a restore does), then the database is vacuumed and analyzed.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openPostgres } from '../src/db/postgres.js';
import {
  errorGroups,
  executionErrorGroups,
  executionEvents,
  executionKeys,
  executionLogs,
  executions,
} from '../src/db/tables.js';
import { recountRollups } from '../src/ingest/recount.js';
import { durations } from '../src/rollups/durations.rollup.js';
import { errorGroupCounts } from '../src/rollups/error-groups.rollup.js';
import { executionCounts } from '../src/rollups/execution-counts.rollup.js';
import { type AnyRollup, MEASURE_SQL_TYPE, type MeasureKind, rollupColumns } from '../src/rollups/rollup.js';
import { onClock } from './lib/clock.js';
import { commandLine } from './lib/command-line.js';
import { withDatabase } from './lib/dataset.js';
import { BENCH_OBJECTIVES, ensureObjectives } from './lib/objectives.js';

const { values: args } = parseArgs({
  options: {
    from: { type: 'string', default: '1000000' },
    factor: { type: 'string', default: '10' },
    to: { type: 'string' },
    /** Then recount every rollup of a copy from the raw rows (src/ingest/recount.ts, which migration 0003 asks for) and compare: small datasets only. */
    verify: { type: 'boolean', default: false },
    /** Repeat every raw table but the log lines. */
    'logs-once': { type: 'boolean', default: false },
    /** Repeat the log lines of the last N days only (before the dataset's now). */
    'logs-days': { type: 'string' },
    'pg-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const factor = Number(args.factor);
if (!Number.isInteger(factor) || factor < 2) throw new Error('--factor must be an integer of at least 2');
const logsDays = args['logs-days'] === undefined ? undefined : Number(args['logs-days']);
if (logsDays !== undefined && !(logsDays > 0)) throw new Error('--logs-days must be a positive number');
if (logsDays !== undefined && args['logs-once'])
  throw new Error('--logs-once and --logs-days exclude each other');
const source = `wfapi_bench_${Number(args.from)}`;
const target = `wfapi_bench_${Number(args.to ?? Number(args.from) * factor)}`;
console.log(`# ${commandLine('node --import tsx bench/scale-dataset.ts')}`);

const urlOf = (name: string) => withDatabase(args['pg-url']!, name);

/** Runs `work` on a connection to the server's own database (`--pg-url`). */
async function onServer<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: args['pg-url'] });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
/** Makes `to` a copy of `from`, replacing any database of that name. */
const copyDatabase = (from: string, to: string) =>
  onServer(async (client) => {
    await client.query(`drop database if exists ${to}`);
    await client.query(`create database ${to} template ${from}`);
  });

const ready = await onServer((client) =>
  client.query('select 1 from pg_database where datname = $1', [source]),
);
if (ready.rowCount !== 1)
  throw new Error(`${source} is missing: run npm run bench -- --executions ${args.from} --load-only`);
let started = performance.now();
const step = (what: string) => {
  const now = performance.now();
  console.log(`${what}: ${((now - started) / 1000).toFixed(1)} s`);
  started = now;
};
await copyDatabase(source, target);
step(`copied ${source} to ${target}`);

const db = new pg.Client({ connectionString: urlOf(target) });
await db.connect();
await db.query(`set maintenance_work_mem = '1GB'`);
await db.query('set max_parallel_maintenance_workers = 2');
const [loaded] = (
  await db.query<{ facts: { now: string } | null }>('select facts from bench_dataset where id = 1')
).rows;
if (!loaded?.facts) throw new Error(`${source} was not loaded to the end: load it again`);
/** With `--logs-days`, the instant from which log lines are repeated: the last days before the dataset's now. */
const logsFrom =
  logsDays === undefined
    ? undefined
    : new Date(Date.parse(loaded.facts.now) - logsDays * 86_400_000).toISOString();
/** Which of a table's rows are repeated: with `--logs-days`, the log lines of the last days only. */
const repeatedWhere = (table: string) =>
  logsFrom !== undefined && table === executionLogs.name ? ` where timestamp >= '${logsFrom}'` : '';

/**
 * A repeat's uuid: derived from the original's, the repeat's number and the copy's name, the same
 * in every table. The name keeps a copy of a copy (a million made from 100,000, then scaled again)
 * from deriving the uuids (and execution ids, below) its source's repeats already have.
 */
const repeatUuid = (column: string) => `md5(${column}::text || '/' || k || '/${target}')::uuid`;
const repeats = `generate_series(1, ${factor - 1}) as k`;

/**
 * How a repeat's column is made from the original's, where it is not copied: the columns naming
 * an execution take the repeat's uuid, and an execution's id its own 64 hex digits.
 */
const REPEAT_OF: Readonly<Record<string, string>> = {
  uuid: repeatUuid('uuid'),
  workflow_execution_uuid: repeatUuid('workflow_execution_uuid'),
  execution_uuid: repeatUuid('execution_uuid'),
  id: `encode(sha256(convert_to(id || '/' || k || '/${target}', 'UTF8')), 'hex')`,
};

/**
 * Each raw table's rows repeated, as one INSERT ... SELECT over the table's columns (db/tables.ts)
 * but its arrival number (seq), which takes its default.
 */
const RAW_TABLES: ReadonlyArray<{ name: string; columns: ReadonlyArray<readonly [string, string]> }> = [
  executionKeys,
  executions,
  executionLogs,
  executionEvents,
  executionErrorGroups,
];
const REPEATED = RAW_TABLES.filter((t) => !(args['logs-once'] && t === executionLogs)).map((t) => {
  const names = t.columns.map(([column]) => column).filter((column) => column !== 'seq');
  return {
    table: t.name,
    columns: names.join(', '),
    select: names.map((column) => REPEAT_OF[column] ?? column).join(', '),
  };
});

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
    `insert into ${table} (${columns}) select ${select} from ${table} cross join ${repeats}${repeatedWhere(table)}`,
  );
  step(`${table}: ${inserted.rowCount} rows repeated`);
  for (const c of constraints) await db.query(`alter table ${table} add constraint ${c.name} ${c.def}`);
  // A partitioned table's definitions read `ON ONLY` (the parent alone): built on every partition.
  for (const i of indexes) await db.query(i.def.replace(' ON ONLY ', ' ON '));
  step(`${table}: ${constraints.length + indexes.length} keys and indexes built`);
}

/** A rollup measure of the repeated data: sums multiplied, histograms added bin by bin, minimum and maximum kept. */
const MULTIPLY: Readonly<Record<MeasureKind, ((column: string) => string) | undefined>> = {
  count: (column) => `${column} * ${factor}`,
  decimal: (column) => `${column} * ${factor}`,
  histogram: (column) =>
    `(select wfapi_hist_sum(b) from (select ${column} as b from generate_series(1, ${factor})) as copies)`,
  min: undefined,
  max: undefined,
};
const ROLLUPS: readonly AnyRollup[] = [executionCounts, durations, errorGroupCounts];
const MULTIPLIED = ROLLUPS.map((rollup) => ({
  table: rollup.table,
  set: rollup.measureNames
    .flatMap((name) => {
      const multiplied = MULTIPLY[rollup.measures[name]!]?.(name);
      return multiplied === undefined ? [] : [`${name} = ${multiplied}`];
    })
    .join(', '),
}));
for (const { table, set } of MULTIPLIED) {
  const updated = await db.query(`update ${table} set ${set}`);
  step(`${table}: ${updated.rowCount} rows multiplied by ${factor}`);
}

const [total] = (await db.query<{ n: number }>('select count(*)::int as n from executions')).rows;
const multipliedKinds =
  args['logs-once'] || logsDays !== undefined ? ['execution', 'event'] : ['execution', 'log', 'event'];
await db.query(
  `update bench_dataset set
     facts = jsonb_set(facts, '{totalExecutions}', to_jsonb($1::int)),
     counts = (select jsonb_object_agg(key, case when key = any($2::text[]) then value::numeric * $3 else value::numeric end)
               from jsonb_each_text(counts)),
     ingest = null
   where id = 1`,
  [total!.n, multipliedKinds, factor],
);
if (logsDays !== undefined) {
  // The lines as stored: the last days' repeated, the rest once.
  await db.query(
    `update bench_dataset set counts = jsonb_set(counts, '{log}', to_jsonb((select count(*) from execution_logs)))
     where id = 1`,
  );
}
const [invalid] = (
  await db.query<{ n: number }>('select count(*)::int as n from pg_index where not indisvalid')
).rows;
if (invalid!.n > 0) throw new Error(`${invalid!.n} indexes were left invalid`);
await db.query('vacuum analyze');
step(`vacuumed and analyzed; ${total!.n} executions`);
await db.end();
// The original's service level objectives came along with the copy; the missing ones are made.
const copied = openPostgres(urlOf(target), { poolSize: 1, statementTimeoutMs: 60_000 });
const [organization] = await copied.query<{ organization_id: string }>(
  'select organization_id from bench_dataset where id = 1',
);
const made = await ensureObjectives(copied, organization!.organization_id);
await copied.close();
step(`${BENCH_OBJECTIVES} service level objectives (${made} made)`);

if (args.verify) {
  const recounted = `${target}_recounted`;
  await copyDatabase(target, recounted);
  const copy = openPostgres(urlOf(recounted), { poolSize: 1, statementTimeoutMs: 3_600_000 });
  // The recount runs on the clock the dataset was loaded on, its end (lib/dataset-clock.mjs), as
  // ingestion did: which buckets keep their one-minute duration rows depends on "now".
  const [end] = await copy.query<{ ms: number }>(
    'select (extract(epoch from max(started_at)) * 1000)::float8 as ms from executions',
  );
  await onClock(end!.ms, () => copy.transaction((tx) => recountRollups(tx)));
  await copy.close();
  /** A column as compared: decimals without trailing zeros, histograms with empty bins as 0. */
  const compared = ([column, type]: readonly [string, string]) =>
    type === MEASURE_SQL_TYPE.decimal
      ? `trim_scale(${column})`
      : type === MEASURE_SQL_TYPE.histogram
        ? `array_lower(${column}, 1), array(select coalesce(b, 0) from unnest(${column}) b)::text`
        : column;
  /** Every rollup, and the error-group tables the recount rebuilds too, with their columns as compared. */
  const TABLES = [
    ...ROLLUPS.map((rollup) => [rollup.table, rollupColumns(rollup)] as const),
    ...[executionErrorGroups, errorGroups].map((t) => [t.name, t.columns] as const),
  ].map(([table, columns]) => [table, columns.map(compared).join(', ')] as const);
  /** A table's rows as text, in order, digested. */
  const digest = (table: string, columns: string) =>
    `select count(*)::int as n, md5(string_agg(row, ';' order by row)) as digest from (
       select concat_ws('|', ${columns}) as row from ${table}) rows`;
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
  await onServer((client) => client.query(`drop database ${recounted}`));
  if (!equal) process.exit(1);
}
