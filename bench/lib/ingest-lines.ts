/**
 * The ingestion benchmarks' datasets and the one way they are sent: each dataset is one streamed
 * `POST /ingest` request, about 64 KB a chunk, as a file upload would arrive; the figure is records
 * / wall time from the first byte sent to the answer (every batch committed and durable).
 *
 * The records look like production's: one execution in ten fails with an error text whose
 * numbers and addresses vary (so error grouping does real work), each execution has capability
 * events, and log lines carry varied text (so the substring index does real work).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ServerProcess } from './server-process.js';

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TOKEN = randomBytes(16).toString('hex');

/**
 * The first day of the current month (UTC): since migration 0006 the server has a partition for
 * it, so the records land where live data does, not in the DEFAULT partition.
 */
const START = (() => {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
})();
const CAPABILITIES = ['http-fetch@2.1.0', 'consensus@1.0.0', 'evm-write@1.3.0', 'price-feed@0.9.2'];

export interface IngestShape {
  organizationId: string;
  workflows: readonly string[];
  /** The executions the events and log lines belong to. */
  executions: readonly string[];
}

export function ingestShape(organizationId: string, executions: number): IngestShape {
  return {
    organizationId,
    workflows: Array.from({ length: 20 }, () => randomUUID()),
    executions: Array.from({ length: Math.min(1000, executions) }, () => randomUUID()),
  };
}

function failureText(i: number): string {
  const host = `10.${(i >> 8) & 255}.${i & 255}.${(i * 7) % 255}`;
  return i % 3 === 0
    ? `http fetch returned 502 Bad Gateway from ${host}:8443 after ${100 + (i % 900)} ms`
    : `evm write reverted: nonce ${i} too low for 0x${(i * 2654435761).toString(16).padStart(40, '0').slice(0, 40)}`;
}

export function* executionLines(shape: IngestShape, count: number): Generator<string> {
  for (let i = 0; i < count; i++) {
    const startedAt = START + i * 1000;
    const failed = i % 10 === 0;
    yield JSON.stringify({
      type: 'execution',
      organizationId: shape.organizationId,
      uuid: shape.executions[i] ?? randomUUID(),
      id: `0x${i.toString(16).padStart(64, '0')}`,
      workflowUUID: shape.workflows[i % shape.workflows.length],
      status: failed ? 'FAILURE' : 'SUCCESS',
      classifiedStatus: failed ? 'USER_ERROR' : 'SUCCESS',
      startedAt: new Date(startedAt).toISOString(),
      finishedAt: new Date(startedAt + 200 + (i % 1800)).toISOString(),
      executedInTee: i % 2 === 0,
      ...(failed ? { errors: [{ error: failureText(i), count: 1 + (i % 4) }] } : {}),
      creditUsed: '0.125',
    });
  }
}

export function* eventLines(shape: IngestShape, count: number): Generator<string> {
  for (let i = 0; i < count; i++) {
    const startedAt = START + i * 250;
    const failed = i % 25 === 0;
    yield JSON.stringify({
      type: 'event',
      organizationId: shape.organizationId,
      workflowExecutionUUID: shape.executions[i % shape.executions.length],
      capabilityID: CAPABILITIES[i % CAPABILITIES.length],
      status: failed ? 'FAILURE' : 'COMPLETED',
      method: i % 2 === 0 ? 'GET' : 'POST',
      startedAt: new Date(startedAt).toISOString(),
      finishedAt: new Date(startedAt + 20 + (i % 700)).toISOString(),
      ...(failed ? { errors: [{ error: failureText(i), count: 1 }] } : {}),
    });
  }
}

export function* logLines(shape: IngestShape, count: number): Generator<string> {
  for (let i = 0; i < count; i++) {
    yield JSON.stringify({
      type: 'log',
      organizationId: shape.organizationId,
      workflowExecutionUUID: shape.executions[i % shape.executions.length],
      nodeID: `node-${i % 4}`,
      message: `step ${i}: fetched price feed ETH/USD = ${(3000 + (i % 997) / 10).toFixed(1)} from 7 sources`,
      timestamp: new Date(START + i * 10).toISOString(),
    });
  }
}

/** Sends the lines as one streamed request; resolves with records a second. */
export async function streamIngest(
  url: string,
  token: string,
  lines: Iterator<string>,
  expected: number,
): Promise<number> {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
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
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
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

/** Where a benchmark server keeps its data: an empty embedded data directory or a scratch PostgreSQL database. */
export interface ScratchDatabase {
  /** How the server process reaches it. */
  env: Record<string, string>;
  /** The PostgreSQL database's name (none for PGlite, which runs inside the server). */
  name?: string;
  cleanup(): Promise<void>;
}

export async function scratchDatabase(kind: string, adminUrl: string): Promise<ScratchDatabase> {
  if (kind === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), 'wfapi-bench-'));
    return {
      env: { WFAPI_DATA_DIR: dir },
      async cleanup() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const name = `wfapi_bench_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString() },
    name,
    async cleanup() {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** Creates an organization through the server's own admin endpoint (so any version of it can be measured). */
export async function createOrganizationOver(url: string, adminToken: string): Promise<string> {
  const response = await fetch(`${url}/admin/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      query: 'mutation { createOrganization(input: { displayName: "Bench" }) { organizationId } }',
    }),
  });
  const body = (await response.json()) as { data?: { createOrganization: { organizationId: string } } };
  if (!body.data) throw new Error(`createOrganization failed: ${JSON.stringify(body)}`);
  return body.data.createOrganization.organizationId;
}

export interface IngestCounts {
  executions: number;
  events: number;
  logs: number;
}

export interface IngestFigure {
  records: string;
  count: number;
  perSecond: number;
}

/** Starts one server (this checkout's, or `cli` from another) on an empty database and sends the three datasets. */
export async function measureIngestion(
  kind: string,
  counts: IngestCounts,
  options: { cli?: string; port?: number } = {},
): Promise<IngestFigure[]> {
  const target = await scratchDatabase(kind, ADMIN_URL);
  try {
    const server = await ServerProcess.start(
      { ...target.env, WFAPI_INGEST_TOKEN: TOKEN, WFAPI_ADMIN_TOKEN: TOKEN, WFAPI_DB_POOL_SIZE: '8' },
      options.port ?? 4703,
      options.cli ? { cli: options.cli } : {},
    );
    try {
      const shape = ingestShape(await createOrganizationOver(server.url, TOKEN), counts.executions);
      const datasets = [
        { records: 'executions', count: counts.executions, lines: executionLines(shape, counts.executions) },
        { records: 'events', count: counts.events, lines: eventLines(shape, counts.events) },
        { records: 'log lines', count: counts.logs, lines: logLines(shape, counts.logs) },
      ];
      const figures: IngestFigure[] = [];
      for (const { records, count, lines } of datasets) {
        if (count === 0) continue;
        figures.push({ records, count, perSecond: await streamIngest(server.url, TOKEN, lines, count) });
      }
      return figures;
    } finally {
      await server.stop();
    }
  } finally {
    await target.cleanup();
  }
}
