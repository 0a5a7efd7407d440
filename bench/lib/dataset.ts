/**
 * The benchmark dataset: a simulated organization loaded into its own PostgreSQL database once,
 * through the real ingestion path (POST /ingest of the real server), and reused by later runs.
 * Loading is timed per record kind, beside the database's own bulk load (COPY) of the same
 * rows, which is the ratio the ingestion target is stated against.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { createApiKey, createMember, createOrganization } from '../../src/admin/admin.service.js';
import { uploadNdjson } from '../../src/client/ingest-client.js';
import { copyLine } from '../../src/db/copy-text.js';
import { migrate } from '../../src/db/migrate.js';
import { maintainPartitions } from '../../src/db/partitions.js';
import { openPostgres } from '../../src/db/postgres.js';
import { columnNames } from '../../src/db/unnest-insert.js';
import { EXECUTION_COLUMNS, executionRow } from '../../src/ingest/execution-upsert.store.js';
import { LOG_COLUMNS, logRow } from '../../src/ingest/lines.store.js';
import type { IngestRecord } from '../../src/ingest/records.js';
import { createWorld, organizationProfile, recordsBetween, toNdjsonLine } from '../../src/simulate/index.js';
import type { DatasetFacts } from '../queries.js';
import type { IngestFigures } from '../report.js';
import { insightFacts } from './insight-facts.js';
import { ensureObjectives } from './objectives.js';
import { ServerProcess } from './server-process.js';

export interface DatasetInfo {
  readonly databaseUrl: string;
  readonly key: string;
  readonly facts: DatasetFacts;
  readonly counts: Record<string, number>;
  readonly ingest: IngestFigures | undefined;
}

const DAY = 86_400_000;
const SEED = 'wfapi-bench';
const END = Date.parse('2026-11-01T00:00:00Z');

/** `url` (a PostgreSQL server's) naming the database `name` instead. */
export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

type Kind = 'base' | 'log' | 'event';
const kindOf = (record: IngestRecord): Kind =>
  record.type === 'log' ? 'log' : record.type === 'event' ? 'event' : 'base';

/** COPY text of an execution or a log line: the row ingestion stores, as the database's own bulk load reads it. */
const EXECUTION_NAMES = columnNames(EXECUTION_COLUMNS);
const LOG_NAMES = columnNames(LOG_COLUMNS);

function copyRow(record: IngestRecord): string | undefined {
  if (record.type === 'execution') return copyLine(executionRow(record), EXECUTION_NAMES);
  if (record.type === 'log') return copyLine(logRow(record), LOG_NAMES);
  return undefined;
}

/** Writes the history once, untimed: NDJSON per kind for POST /ingest, COPY text for the ceiling. */
async function writeFiles(records: Iterable<IngestRecord>, dir: string, copySample: number) {
  const open = (name: string) => createWriteStream(join(dir, name));
  const out = { base: open('base.ndjson'), log: open('log.ndjson'), event: open('event.ndjson') };
  const copy = { execution: open('executions.copy'), log: open('logs.copy') };
  const copied = { execution: 0, log: 0 };
  const counts: Record<string, number> = {};
  const write = async (stream: WriteStream, text: string) => {
    if (!stream.write(text)) await once(stream, 'drain');
  };
  for (const record of records) {
    counts[record.type] = (counts[record.type] ?? 0) + 1;
    await write(out[kindOf(record)], `${toNdjsonLine(record)}\n`);
    if (
      (record.type === 'execution' || record.type === 'log') &&
      copied[record.type] < copySample * (record.type === 'log' ? 5 : 1)
    ) {
      const row = copyRow(record);
      if (row) {
        copied[record.type] += 1;
        await write(copy[record.type], row);
      }
    }
  }
  await Promise.all(
    [...Object.values(out), ...Object.values(copy)].map((s) => new Promise((resolve) => s.end(resolve))),
  );
  return counts;
}

async function* fileLines(path: string): AsyncGenerator<string> {
  for await (const line of createInterface({
    input: createReadStream(path),
    crlfDelay: Number.POSITIVE_INFINITY,
  }))
    yield line;
}

/** COPY of prepared rows into a scratch copy of the table (same indexes): the database's own bulk load. */
async function bulkLoadRate(
  databaseUrl: string,
  path: string,
  table: 'executions' | 'execution_logs',
  rows: number,
) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(
    `drop table if exists bench_copy; create table bench_copy (like ${table} including all)`,
  );
  const columns = `(${columnNames(table === 'execution_logs' ? LOG_COLUMNS : EXECUTION_COLUMNS).join(', ')})`;
  const started = performance.now();
  await pipeline(createReadStream(path), client.query(copyFrom(`copy bench_copy ${columns} from stdin`)));
  const seconds = (performance.now() - started) / 1000;
  await client.query('drop table bench_copy');
  await client.end();
  return rows / seconds;
}

/** `port`: where the loading server listens (the benchmark's own server port plus one by default). */
export async function ensureDataset(options: {
  adminUrl: string;
  executions: number;
  port: number;
}): Promise<DatasetInfo> {
  const name = `wfapi_bench_${options.executions}`;
  const databaseUrl = withDatabase(options.adminUrl, name);
  const admin = new pg.Client({ connectionString: options.adminUrl });
  await admin.connect();
  const exists = (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  if (!exists) await admin.query(`create database ${name}`);
  await admin.end();

  const db = openPostgres(databaseUrl, { poolSize: 2, statementTimeoutMs: 600_000 });
  await migrate(db);
  await db.query(`create table if not exists bench_dataset (id int primary key, organization_id uuid, member_id uuid,
    counts jsonb, ingest jsonb, facts jsonb)`);
  const [done] = await db.query<{
    organization_id: string;
    member_id: string;
    counts: Record<string, number>;
    ingest: IngestFigures;
    facts: { now: string; workflowUuid: string; executionUuid: string; totalExecutions: number };
  }>('select * from bench_dataset where id = 1 and facts is not null');
  if (done) {
    await ensureObjectives(db, done.organization_id);
    const key = (await createApiKey(db, { memberId: done.member_id, name: 'bench' })).key;
    await db.close();
    const now = new Date(done.facts.now);
    return {
      databaseUrl,
      key,
      counts: done.counts,
      ingest: done.ingest,
      facts: { ...done.facts, now, insight: await insightFacts(databaseUrl, now) },
    };
  }

  // A fresh load: the simulated organization, a member with a key, then the history through POST /ingest.
  await db.query(
    'truncate organizations, members, api_keys, workflows, deployments, executions, execution_logs, execution_events, execution_rollups, duration_rollups, error_group_rollups, execution_error_groups, error_groups, orphan_event_executions, ingest_watermarks, bench_dataset cascade',
  );
  const days = 30;
  const plan = {
    seed: SEED,
    organizationId: organizationProfile(SEED).defaultId,
    workflows: 20,
    start: END - days * DAY,
    days,
    executions: options.executions,
  };
  const world = createWorld(plan);
  const organization = await createOrganization(db, {
    displayName: world.organization.displayName,
    id: plan.organizationId,
  });
  const member = await createMember(db, {
    organizationId: organization.id,
    emailAddress: 'bench@wfapi.example',
    displayName: 'Bench',
    deployAccess: true,
  });
  const key = (await createApiKey(db, { memberId: member.id, name: 'bench' })).key;

  const { counts, ingest } =
    options.executions > STREAM_ABOVE
      ? await streamLoad(databaseUrl, world, options.port)
      : await timedLoad(databaseUrl, world, options.executions, options.port);
  // The history's months get their partitions now, as the server's partition upkeep would give
  // them on its next start (rows older than the partitions made ahead land in DEFAULT): left to
  // a benchmarked server, that move of every row ran beside the measured queries.
  await maintainPartitions(db);
  // Vacuumed as well as analyzed: a freshly loaded partition read one execution in 2.8 ms in every
  // server of bench/postgraphile.ts, 0.24 ms once vacuumed (visibility map, statistics).
  await db.query('vacuum analyze');
  const [pick] = await db.query<{ workflow_uuid: string; n: number }>(
    'select workflow_uuid, sum(execution_count)::int as n from execution_rollups where grain = 0 group by workflow_uuid order by n desc limit 1',
  );
  const [execution] = await db.query<{ uuid: string }>(
    `select e.uuid from executions e where e.workflow_uuid = $1 and exists (select 1 from execution_logs l where l.organization_id = e.organization_id and l.workflow_execution_uuid = e.uuid)
     order by e.started_at desc limit 1`,
    [pick!.workflow_uuid],
  );
  const [total] = await db.query<{ n: number; now: Date }>(
    'select count(*)::int as n, max(started_at) as now from executions',
  );
  const facts = {
    now: total!.now,
    workflowUuid: pick!.workflow_uuid,
    executionUuid: execution!.uuid,
    totalExecutions: total!.n,
  };
  await db.query('insert into bench_dataset values (1, $1, $2, $3, $4, $5)', [
    organization.id,
    member.id,
    counts,
    ingest,
    facts,
  ]);
  await ensureObjectives(db, organization.id);
  await db.close();
  return {
    databaseUrl,
    key,
    facts: { ...facts, insight: await insightFacts(databaseUrl, facts.now) },
    counts,
    ingest,
  };
}

/**
 * The server a history is sent to, on the dataset's clock as the benchmarked one is: ingestion
 * keeps the duration rollups' one-minute rung for recent buckets only (src/rollups/grains.ts),
 * and "recent" must be the same days for the writer and the readers.
 */
const loadingServer = (databaseUrl: string, token: string, port: number) =>
  ServerProcess.start(
    { DATABASE_URL: databaseUrl, WFAPI_INGEST_TOKEN: token, WFAPI_DB_POOL_SIZE: '8' },
    port,
    { clockStart: new Date(END) },
  );

/**
 * The history written to files first (not timed), then sent through POST /ingest kind by kind
 * (timed), beside the database's own bulk load (COPY) of a sample of the same rows.
 */
async function timedLoad(
  databaseUrl: string,
  world: ReturnType<typeof createWorld>,
  executions: number,
  port: number,
): Promise<Loaded> {
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-bench-'));
  const sample = Math.min(200_000, executions);
  console.log(`writing the simulated history to ${dir} (not timed)`);
  const counts = await writeFiles(recordsBetween(world, Number.NEGATIVE_INFINITY, END), dir, sample);

  const token = randomBytes(16).toString('hex');
  const server = await loadingServer(databaseUrl, token, port);
  const timed = async (kind: Kind, of: 'execution' | 'log' | 'event') => {
    const started = performance.now();
    const result = await uploadNdjson({ url: server.url, token }, fileLines(join(dir, `${kind}.ndjson`)), {
      chunkLines: 50_000,
    });
    const seconds = (performance.now() - started) / 1000;
    if (result.rejectedCount > 0)
      throw new Error(
        `${kind}: ${result.rejectedCount} lines rejected: ${JSON.stringify(result.rejected.slice(0, 3))}`,
      );
    const rate = (counts[of] ?? 0) / seconds;
    console.log(
      `POST /ingest ${kind}: ${counts[of]} ${of} records in ${seconds.toFixed(1)} s (${rate.toFixed(0)}/s)`,
    );
    return rate;
  };
  const executionsPerSecond = await timed('base', 'execution');
  const logLinesPerSecond = await timed('log', 'log');
  await timed('event', 'event');
  await server.stop();

  const figures: IngestFigures = {
    executionsPerSecond,
    logLinesPerSecond,
    bulkLoadExecutionsPerSecond: await bulkLoadRate(
      databaseUrl,
      join(dir, 'executions.copy'),
      'executions',
      Math.min(sample, counts.execution ?? 0),
    ),
    bulkLoadLogLinesPerSecond: await bulkLoadRate(
      databaseUrl,
      join(dir, 'logs.copy'),
      'execution_logs',
      Math.min(sample * 5, counts.log ?? 0),
    ),
  };
  rmSync(dir, { recursive: true, force: true });
  return { counts, ingest: figures };
}

/**
 * Above this many executions the history is not written to files (tens of gigabytes) but sent
 * straight from the simulator in one pass, untimed: ingestion is measured on smaller datasets.
 */
const STREAM_ABOVE = 2_000_000;

async function streamLoad(
  databaseUrl: string,
  world: ReturnType<typeof createWorld>,
  port: number,
): Promise<Loaded> {
  const token = randomBytes(16).toString('hex');
  const server = await loadingServer(databaseUrl, token, port);
  let sent = 0;
  const counts: Record<string, number> = {};
  const started = performance.now();
  async function* lines() {
    for (const record of recordsBetween(world, Number.NEGATIVE_INFINITY, END)) {
      counts[record.type] = (counts[record.type] ?? 0) + 1;
      if (++sent % 1_000_000 === 0) {
        const seconds = (performance.now() - started) / 1000;
        console.log(`  ${sent / 1_000_000}M records sent in ${seconds.toFixed(0)} s`);
      }
      yield toNdjsonLine(record);
    }
  }
  console.log('streaming the simulated history through POST /ingest (not timed)');
  const result = await uploadNdjson({ url: server.url, token }, lines(), { chunkLines: 50_000 });
  await server.stop();
  if (result.rejectedCount > 0)
    throw new Error(`${result.rejectedCount} lines rejected: ${JSON.stringify(result.rejected.slice(0, 3))}`);
  return { counts, ingest: undefined };
}

interface Loaded {
  readonly counts: Record<string, number>;
  readonly ingest: IngestFigures | undefined;
}
