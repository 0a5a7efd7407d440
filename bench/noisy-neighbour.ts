/**
 * Whether one key can take the database from the others (issue 44): another organization's
 * single-read p99 on an idle server, against the same reads while one key sends the heaviest
 * requests it is allowed in parallel, measured side by side in one run on one server, with their
 * ratio (target: within 2x). A third arm runs the loaded case with the per-organization bound
 * lifted (WFAPI_DB_CONCURRENCY_PER_ORG=500), which is what the server did before it.
 *
 *   node --import tsx bench/noisy-neighbour.ts [--db postgres|pglite] [--reads 200] [--parallel 12] [--decoys 40000]
 *
 * The dataset is built here: two organizations, the noisy one with one execution of `decoys` log
 * lines whose words hold every trigram of the heavy search's text but never the text itself, so
 * the search reads and rechecks each of them. The heavy request is 30 such searches (the alias
 * limit), with count and data; the single read is `workflows { count data { uuid } }` of the
 * quiet organization, sent one after the other. The server runs in this process (buildApp, as
 * the tests do), over PostgreSQL (BENCH_DATABASE_URL, a scratch database) or the embedded
 * database in its worker thread.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { Database } from '../src/db/database.js';
import { openEmbedded } from '../src/db/embedded/embedded-database.js';
import { migrate } from '../src/db/migrate.js';
import { openPostgres } from '../src/db/postgres.js';
import { createTenant, execution, ingest, type Tenant, workflow } from '../test/harness/fixtures.js';
import { timedPost as post } from '../test/harness/latency.js';
import { startServer } from '../test/harness/server.js';
import { percentile } from './lib/stats.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'postgres' },
    reads: { type: 'string', default: '200' },
    parallel: { type: 'string', default: '12' },
    decoys: { type: 'string', default: '40000' },
  },
});
const READS = Number(args.reads);
const PARALLEL = Number(args.parallel);
const DECOYS = Number(args.decoys);
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const HEAVY = `{ ${Array.from(
  { length: 30 },
  (_, i) => `s${i}: searchExecutionLogs(input: {query: "abcdef"}) { count data { message } }`,
).join(' ')} }`;
const LIGHT = '{ workflows { count data { uuid } } }';

async function openScratch(kind: string): Promise<{ db: Database; cleanup(): Promise<void> }> {
  if (kind === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), 'wfapi-noisy-'));
    const db = await openEmbedded(join(dir, 'data'));
    return {
      db,
      async cleanup() {
        await db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const name = `wfapi_noisy_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  // The server's own pool, as `wfapi serve` opens it by default.
  const db = openPostgres(url.toString(), { poolSize: 10, statementTimeoutMs: 10_000 });
  return {
    db,
    async cleanup() {
      await db.close();
      const drop = new pg.Client({ connectionString: ADMIN_URL });
      await drop.connect();
      await drop.query(`drop database if exists ${name} with (force)`);
      await drop.end();
    },
  };
}

interface Arm {
  readonly arm: string;
  readonly reads: number;
  readonly failed: number;
  readonly p50: number;
  readonly p99: number;
  readonly heavyAnswered: number;
  /** Of them, answered otherwise than 200 (503 at their time limit). */
  readonly heavyRefused: number;
}

/** READS single reads of `quiet`, one after the other, while `noisy` (if given) sends heavy requests. */
async function measure(url: string, quiet: Tenant, noisy: Tenant | undefined, arm: string): Promise<Arm> {
  let running = noisy !== undefined;
  let heavyAnswered = 0;
  let heavyRefused = 0;
  const heavy = Promise.all(
    Array.from({ length: noisy ? PARALLEL : 0 }, async () => {
      while (running) {
        const answer = await post(url, noisy!.key, HEAVY);
        heavyAnswered++;
        if (answer.status !== 200) heavyRefused++;
      }
    }),
  );
  const latencies: number[] = [];
  let failed = 0;
  try {
    for (let i = 0; i < READS; i++) {
      const read = await post(url, quiet.key, LIGHT);
      if (read.status === 200) latencies.push(read.ms);
      else {
        failed++;
        if (failed === 1) console.error(`first failed read: ${read.status} ${read.text.slice(0, 200)}`);
      }
    }
  } finally {
    running = false;
  }
  await heavy;
  latencies.sort((a, b) => a - b);
  return {
    arm,
    reads: READS,
    failed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    heavyAnswered,
    heavyRefused,
  };
}

async function main(): Promise<void> {
  const scratch = await openScratch(args.db!);
  try {
    const { db } = scratch;
    await migrate(db);
    const noisy = await createTenant(db, 'Noisy');
    const quiet = await createTenant(db, 'Quiet');
    const wf = workflow(noisy.organizationId);
    const ex = execution(noisy.organizationId, wf.uuid as string);
    await ingest(db, [
      wf,
      ex,
      ...Array.from({ length: 20 }, (_, i) => workflow(quiet.organizationId, { name: `flow-${i}` })),
    ]);
    await db.query(
      `insert into execution_logs (organization_id, workflow_execution_uuid, line_hash, node_id, message, timestamp)
       select $1, $2, sha256(i::text::bytea), 'node', 'xabcx xbcdx xcdex xdefx ' || i, now() - interval '1 minute'
       from generate_series(1, $3::int) i`,
      [noisy.organizationId, ex.uuid, DECOYS],
    );
    const arms: Arm[] = [];
    for (const [arm, perOrg, loaded] of [
      ['idle', undefined, false],
      ['one key sending its heaviest requests', undefined, true],
      ['the same, per-organization bound lifted', 500, true],
    ] as const) {
      const server = await startServer(
        db,
        perOrg ? { limits: { dbConcurrencyPerOrganization: perOrg } } : {},
      );
      try {
        for (let i = 0; i < 20; i++) await post(server.url, quiet.key, LIGHT);
        if (!loaded) {
          const one = HEAVY.replace(/ s1: .*/, ' }');
          const times: number[] = [];
          for (let i = 0; i < 5; i++) times.push((await post(server.url, noisy.key, one)).ms);
          console.log(
            `one heavy search alone (median of 5): ${percentile(
              times.sort((a, b) => a - b),
              50,
            ).toFixed(0)} ms`,
          );
        }
        arms.push(await measure(server.url, quiet, loaded ? noisy : undefined, arm));
      } finally {
        await server.close();
      }
    }
    const idle = arms[0]!.p99;
    console.log(
      `noisy neighbour, ${args.db}: ${READS} single reads per arm, ${PARALLEL} heavy requests in parallel, ${DECOYS} decoy lines`,
    );
    console.log(
      '| arm | reads failed | p50 ms | p99 ms | p99 / idle p99 | heavy requests answered (of them 503) |',
    );
    console.log('|---|---|---|---|---|---|');
    for (const arm of arms) {
      console.log(
        `| ${arm.arm} | ${arm.failed} of ${arm.reads} | ${arm.p50.toFixed(1)} | ${arm.p99.toFixed(1)} | ${(arm.p99 / idle).toFixed(2)}x | ${arm.heavyAnswered} (${arm.heavyRefused}) |`,
      );
    }
  } finally {
    await scratch.cleanup();
  }
}

await main();
