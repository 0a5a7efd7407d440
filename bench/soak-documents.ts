/**
 * Memory under distinct documents:
 * `node --import tsx bench/soak-documents.ts [--seconds 60] [--concurrency 8] [--postgres postgres://...]`.
 * Starts the compiled `wfapi serve` as its own process on a scratch PostgreSQL database (with --postgres; it is
 * dropped at the end) or a fresh embedded one (whose WASM heap alone is about 400 MB), then sends documents that
 * are all different, in three shapes taken in turn: small ones with inline values, 25 aliased
 * selections (large compiled code) and 99 kB ones (a long inline string). Prints the server's
 * RSS every 5 seconds; the target is under 300 MB whatever the mix.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { migrate } from '../src/db/migrate.js';
import { openPglite } from '../src/db/pglite.js';
import { openPostgres } from '../src/db/postgres.js';
import { createTenant } from '../test/harness/fixtures.js';
import { ServerProcess } from './lib/server-process.js';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    concurrency: { type: 'string', default: '8' },
    postgres: { type: 'string' },
  },
});
const seconds = Number(args.seconds);
const concurrency = Number(args.concurrency);

const SHAPES = [
  (i: number) =>
    `{ workflows(input: { search: "w${i}", page: { size: ${1 + (i % 50)} } }) { count data { uuid name } } }`,
  (i: number) =>
    `{ ${Array.from({ length: 25 }, (_, j) => `a${j}: workflows(input: { search: "s${i}" }) { data { uuid name executedAt } }`).join(' ')} }`,
  (i: number) => `{ workflows(input: { search: "${i}${'x'.repeat(98_000)}" }) { count } }`,
];

const dir = mkdtempSync(join(tmpdir(), 'wfapi-soak-'));
const scratch = `wfapi_soak_${process.pid}`;
const admin = async (sql: string) => {
  const client = new pg.Client({ connectionString: args.postgres });
  await client.connect();
  await client.query(sql);
  await client.end();
};
let databaseEnv: Record<string, string>;
if (args.postgres) {
  await admin(`create database ${scratch}`);
  const url = new URL(args.postgres);
  url.pathname = `/${scratch}`;
  databaseEnv = { DATABASE_URL: url.toString() };
} else databaseEnv = { WFAPI_DATA_DIR: dir };
const db = args.postgres
  ? openPostgres(databaseEnv.DATABASE_URL!, { poolSize: 2, statementTimeoutMs: 30_000 })
  : await openPglite(dir);
await migrate(db);
const tenant = await createTenant(db, 'Soak');
await db.close();

// The compiled server, as deployed (through tsx it would carry the compiler: about 80 MB more).
const server = await ServerProcess.start(
  {
    ...databaseEnv,
    // One key sends everything: the rate limit is not what is measured.
    WFAPI_RATE_LIMIT_BURST: '1000000',
    WFAPI_RATE_LIMIT_PER_SECOND: '1000000',
  },
  4706,
);
const url = server.url;
const rssMb = () => server.rssMb;

let sent = 0;
let failed = 0;
const until = Date.now() + seconds * 1000;
const started = Date.now();
let peak = rssMb();
console.log(`t=0s rss=${peak.toFixed(0)} MB`);
const report = setInterval(() => {
  const rss = rssMb();
  peak = Math.max(peak, rss);
  console.log(`t=${Math.round((Date.now() - started) / 1000)}s rss=${rss.toFixed(0)} MB documents=${sent}`);
}, 5000);
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (Date.now() < until) {
      const i = sent++;
      const response = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Apikey ${tenant.key}` },
        body: JSON.stringify({ query: SHAPES[i % SHAPES.length]!(i) }),
      });
      await response.arrayBuffer();
      if (response.status !== 200) failed += 1;
    }
  }),
);
clearInterval(report);
console.log(
  `done: ${sent} distinct documents in ${seconds}s, ${failed} not 200, peak rss ${peak.toFixed(0)} MB`,
);
await server.stop();
rmSync(dir, { recursive: true, force: true });
if (args.postgres) await admin(`drop database if exists ${scratch} with (force)`);
