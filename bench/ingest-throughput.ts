/**
 * Ingestion throughput: records a second through `POST /ingest` over real HTTP, for execution
 * records and for log lines, on the embedded database (on disk) and on PostgreSQL.
 *
 *   node --import tsx bench/ingest-throughput.ts [--executions N] [--logs N] [--db pglite,postgres]
 *
 * PostgreSQL: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres); a
 * scratch database is created and dropped. The server runs as its own process, as deployed, so
 * that making the lines (this process) does not share its event loop. Each dataset is one
 * streamed request; the figure is lines / wall time from the first byte sent to the answer (every
 * batch committed and durable).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createOrganization } from '../src/admin/admin.service.js';
import { loadConfig } from '../src/config.js';
import type { Database } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { openPglite } from '../src/db/pglite.js';
import { openPostgres } from '../src/db/postgres.js';
import { ServerProcess } from './lib/server-process.js';

const { values: args } = parseArgs({
  options: {
    executions: { type: 'string', default: '100000' },
    logs: { type: 'string', default: '200000' },
    db: { type: 'string', default: 'pglite,postgres' },
  },
});
const EXECUTIONS = Number(args.executions);
const LOGS = Number(args.logs);
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TOKEN = randomBytes(16).toString('hex');

interface Target {
  db: Database;
  /** How the server process reaches the same database. */
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

async function openTarget(kind: string): Promise<Target> {
  if (kind === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), 'wfapi-bench-'));
    const db = await openPglite(dir);
    return {
      db,
      env: { WFAPI_DATA_DIR: dir },
      async cleanup() {
        await db.close().catch(() => {});
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const name = `wfapi_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`drop database if exists ${name}`);
  await admin.query(`create database ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const db = openPostgres(url.toString(), { poolSize: 2, statementTimeoutMs: 600_000 });
  return {
    db,
    env: { DATABASE_URL: url.toString() },
    async cleanup() {
      await db.close();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

function* executionLines(
  organizationId: string,
  workflows: readonly string[],
  uuids: readonly string[],
): Generator<string> {
  const start = Date.parse('2026-01-01T00:00:00Z');
  for (let i = 0; i < EXECUTIONS; i++) {
    const startedAt = start + i * 1000;
    yield JSON.stringify({
      type: 'execution',
      organizationId,
      uuid: uuids[i] ?? randomUUID(),
      id: `0x${i.toString(16).padStart(64, '0')}`,
      workflowUUID: workflows[i % workflows.length],
      status: i % 10 === 0 ? 'FAILURE' : 'SUCCESS',
      classifiedStatus: i % 10 === 0 ? 'USER_ERROR' : 'SUCCESS',
      startedAt: new Date(startedAt).toISOString(),
      finishedAt: new Date(startedAt + 800).toISOString(),
      executedInTee: i % 2 === 0,
      creditUsed: '0.125',
    });
  }
}

function* logLines(organizationId: string, executions: readonly string[]): Generator<string> {
  const start = Date.parse('2026-01-01T00:00:00Z');
  for (let i = 0; i < LOGS; i++) {
    yield JSON.stringify({
      type: 'log',
      organizationId,
      workflowExecutionUUID: executions[i % executions.length],
      nodeID: `node-${i % 4}`,
      message: `step ${i}: fetched price feed ETH/USD = ${(3000 + (i % 997) / 10).toFixed(1)} from 7 sources`,
      timestamp: new Date(start + i * 10).toISOString(),
    });
  }
}

/** Sends the lines as one streamed request; resolves with lines a second. */
async function measure(url: string, lines: Iterator<string>, expected: number): Promise<number> {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      // About 64 KB a chunk, as a file upload would arrive.
      const parts: string[] = [];
      let size = 0;
      while (size < 65_536) {
        const next = lines.next();
        if (next.done) break;
        parts.push(next.value);
        size += next.value.length + 1;
      }
      if (parts.length === 0) return controller.close();
      controller.enqueue(encoder.encode(`${parts.join('\n')}\n`));
    },
  });
  const started = performance.now();
  const response = await fetch(`${url}/ingest`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-ndjson' },
    body,
    duplex: 'half',
  } as RequestInit);
  const answer = (await response.json()) as { accepted: number; rejectedCount: number };
  const seconds = (performance.now() - started) / 1000;
  if (response.status !== 200 || answer.accepted !== expected) {
    throw new Error(`unexpected answer ${response.status}: ${JSON.stringify(answer).slice(0, 500)}`);
  }
  return expected / seconds;
}

const results: Array<{ database: string; records: string; count: number; perSecond: number }> = [];
for (const kind of args.db.split(',')) {
  const target = await openTarget(kind);
  try {
    await migrate(target.db);
    const organization = await createOrganization(target.db, { displayName: 'Bench' });
    // The embedded database has one owner at a time: the server process takes it over.
    if (kind === 'pglite') await target.db.close();
    const server = await ServerProcess.start(
      { ...target.env, WFAPI_INGEST_TOKEN: TOKEN, WFAPI_DB_POOL_SIZE: '8' },
      4703,
    );
    try {
      const workflows = Array.from({ length: 20 }, () => randomUUID());
      // The logs belong to the first thousand executions.
      const executions = Array.from({ length: Math.min(1000, EXECUTIONS) }, () => randomUUID());
      const executionsPerSecond = await measure(
        server.url,
        executionLines(organization.id, workflows, executions),
        EXECUTIONS,
      );
      results.push({
        database: kind,
        records: 'executions',
        count: EXECUTIONS,
        perSecond: executionsPerSecond,
      });
      const logsPerSecond = await measure(server.url, logLines(organization.id, executions), LOGS);
      results.push({ database: kind, records: 'log lines', count: LOGS, perSecond: logsPerSecond });
    } finally {
      await server.stop();
    }
  } finally {
    await target.cleanup();
  }
}

console.log(
  `command: node --import tsx bench/ingest-throughput.ts --executions ${EXECUTIONS} --logs ${LOGS} --db ${args.db}`,
);
console.log(
  `batch size ${loadConfig({}).limits.ingestBatchSize}, one streamed request per dataset, Node ${process.version}`,
);
for (const r of results) {
  console.log(
    `${r.database.padEnd(9)} ${r.records.padEnd(11)} ${String(r.count).padStart(8)} records  ${Math.round(
      r.perSecond,
    )
      .toString()
      .padStart(7)} records/s`,
  );
}
