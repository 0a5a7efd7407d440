/**
 * The benchmark suite: `npm run bench -- [--executions 1000000] [--concurrency 1,4,16] [--seconds 5]`
 * (`--load-only`: load the dataset database and stop).
 * Loads (once) a simulated dataset into PostgreSQL through the ingestion path, starts the real
 * server as its own process and drives it over HTTP with the query mix, beside two ceilings
 * measured in the same run: the same SQL replayed straight through the driver, and a trivial
 * query through the whole HTTP + GraphQL stack. Writes bench/results/latest.{json,md} and
 * executions-<N>.{json,md} (only partial.{json,md} when `--only` picks some of the queries).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { captureMix, replayer } from './lib/ceiling.js';
import { closedLoop } from './lib/closed-loop.js';
import { commandLine } from './lib/command-line.js';
import { DatabaseCpu } from './lib/cpu-time.js';
import { type DatasetInfo, ensureDataset } from './lib/dataset.js';
import { GraphqlHttpClient } from './lib/http-client.js';
import { ServerProcess } from './lib/server-process.js';
import type { Summary } from './lib/stats.js';
import { benchServerEnv, warmUp } from './lib/warm-up.js';
import { FULL_MIX, type MixQuery, requestVariables, TRIVIAL } from './queries.js';
import { type ResultRow, renderMarkdown } from './report.js';

const { values: args } = parseArgs({
  options: {
    executions: { type: 'string', default: '1000000' },
    concurrency: { type: 'string', default: '1,4,16' },
    seconds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    'pg-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    port: { type: 'string', default: '4700' },
    /** Only the queries whose name matches this regular expression (the trivial one always runs). */
    only: { type: 'string' },
    /** Only load (or find) the dataset database, then exit: other benches reuse it. */
    'load-only': { type: 'boolean', default: false },
  },
});

const command = commandLine('npm run bench --');
const executions = Number(args.executions);
const levels = args.concurrency!.split(',').map(Number);
const seconds = Number(args.seconds);
const warmup = Number(args.warmup);
const only = args.only === undefined ? undefined : new RegExp(args.only, 'i');
const mix = FULL_MIX.filter((q) => !only || only.test(q.name));

console.log(`# ${command}`);
const dataset: DatasetInfo = await ensureDataset({
  adminUrl: args['pg-url']!,
  executions,
  port: Number(args.port) + 1,
});
console.log(`dataset: ${dataset.databaseUrl} (${dataset.facts.totalExecutions} executions)`);
if (args['load-only']) process.exit(0);

const server = await ServerProcess.start(benchServerEnv(dataset.databaseUrl), Number(args.port), {
  clockStart: dataset.facts.now,
});

// The ceiling: the statements each query causes, captured once in-process, replayed directly.
const statements = await captureMix(dataset.databaseUrl, dataset.key, dataset.facts, [TRIVIAL, ...mix]);

await warmUp(server.url, dataset.key, dataset.facts, [TRIVIAL, ...mix], warmup);

// CPU per request read from /proc beside each HTTP measurement: the server process, and the
// backends of the dataset's database (the replayed SQL runs only after it).
const databaseCpu = DatabaseCpu.of(dataset.databaseUrl);
const rows: ResultRow[] = [];
for (const concurrency of levels) {
  const client = new GraphqlHttpClient(server.url, dataset.key, concurrency);
  // The same session settings as the server's connections (openPostgres turns JIT off).
  const pool = new pg.Pool({
    connectionString: dataset.databaseUrl,
    max: concurrency,
    options: '-c jit=off',
  });
  const measure = async (q: MixQuery): Promise<ResultRow> => {
    const variables = requestVariables(q, dataset.facts);
    const http = () => client.post(q.query, variables());
    const sql = replayer(pool, statements.get(q.name)!);
    await closedLoop(http, { concurrency, seconds: warmup });
    const [serverBefore, databaseBefore] = [server.cpuMs, databaseCpu.read()];
    const viaHttp: Summary = await closedLoop(http, { concurrency, seconds });
    const perRequest = (ms: number) => (1000 * ms) / viaHttp.requests;
    const cpuMicros = {
      server: perRequest(server.cpuMs - serverBefore),
      database: perRequest(databaseCpu.read() - databaseBefore),
    };
    // A query that needs no SQL (the trivial one, its key's credentials cached) has no SQL ceiling.
    const noSql: Summary = { requests: 0, errors: 0, rps: Number.NaN, p50: Number.NaN, p99: Number.NaN };
    const needsSql = statements.get(q.name)!.length > 0;
    if (needsSql) await closedLoop(sql, { concurrency, seconds: warmup });
    const viaSql: Summary = needsSql ? await closedLoop(sql, { concurrency, seconds }) : noSql;
    const row: ResultRow = {
      query: q.name,
      concurrency,
      http: viaHttp,
      sql: viaSql,
      statements: statements.get(q.name)!.length,
      p99TargetMs: q.p99TargetMs,
      cpuMicros,
    };
    console.log(
      `c=${concurrency} ${q.name}: ${viaHttp.rps.toFixed(0)} req/s p50 ${viaHttp.p50.toFixed(1)} ms p99 ${viaHttp.p99.toFixed(1)} ms` +
        ` | sql ${viaSql.rps.toFixed(0)}/s | CPU µs/req server ${cpuMicros.server.toFixed(0)} PostgreSQL ${cpuMicros.database.toFixed(0)} | errors ${viaHttp.errors}`,
    );
    return row;
  };
  rows.push(await measure(TRIVIAL));
  for (const q of mix) rows.push(await measure(q));
  client.close();
  await pool.end();
}

const peakRssMb = server.peakRssMb;
await server.stop();

const result = {
  command,
  date: new Date().toISOString(),
  machine: { cpus: (await import('node:os')).cpus().length, node: process.version },
  dataset: { executions: dataset.facts.totalExecutions, ...dataset.counts },
  ingest: dataset.ingest,
  peakRssMb,
  rows,
};
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
// Every full run is kept per dataset size and as the latest.
const outputs = only ? ['partial'] : ['latest', `executions-${executions}`];
const markdown = renderMarkdown(result);
for (const output of outputs) {
  writeFileSync(new URL(`./results/${output}.json`, import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(new URL(`./results/${output}.md`, import.meta.url), markdown);
}
console.log(`\n${markdown}`);
