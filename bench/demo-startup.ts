/**
 * A new user's first minute: `wfapi demo` on an empty data directory, measured from its banner
 * while the older days load in the background.
 *
 *   node --import tsx bench/demo-startup.ts [--runs 3] [--probe-ms 50]
 *
 * Each run starts the compiled demo on a fresh directory and, from the moment its banner is
 * printed, sends the banner's own query once (the first answer) and then keeps two probes going
 * until the background load reports that it is complete: `/healthz` every `probe-ms`, and the
 * banner's query every 200 ms. Prints, per run and as the median of the runs, how long the
 * banner took to come, the first answer's latency, the healthz and query latency percentiles
 * during the load, how long the load took and the data directory's size (and its pg_wal) then; writes bench/results/demo-startup.{json,md}.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BANNER_QUERY } from '../src/cli/commands/demo/banner.js';
import { COMPILED_CLI, freePort, ROOT, startWfapi } from '../test/harness/process.js';
import { median, percentile } from './lib/stats.js';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    'probe-ms': { type: 'string', default: '50' },
  },
});
const runs = Number(args.runs);
const probeMs = Number(args['probe-ms']);
const command = `node --import tsx bench/demo-startup.ts --runs ${runs} --probe-ms ${probeMs}`;
/** A probe that has not answered after this long is recorded at this latency. */
const PROBE_TIMEOUT_MS = 300_000;

interface Run {
  readonly bannerSeconds: number;
  readonly firstAnswerMs: number;
  readonly healthz: { count: number; p50: number; p99: number; max: number };
  readonly query: { count: number; p50: number; p99: number; max: number };
  readonly loadSeconds: number;
  readonly dataMB: number;
  readonly walMB: number;
  readonly refused: Record<string, number>;
}

/** Megabytes of the files under `path`. */
function sizeMB(path: string): number {
  let bytes = 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const child = join(dir, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) bytes += statSync(child).size;
    }
  };
  walk(path);
  return bytes / 1024 / 1024;
}

/** Answers other than 200 during a run (a 503 when a request waited past its timeout), by status. */
let refused: Record<string, number> = {};

/** Latency of one request in ms (PROBE_TIMEOUT_MS when it never answers); a refusal is counted. */
async function timed(url: string, init?: RequestInit): Promise<number> {
  const started = performance.now();
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    await response.arrayBuffer();
    if (!response.ok) refused[response.status] = (refused[response.status] ?? 0) + 1;
  } catch (error) {
    if ((error as Error).name !== 'TimeoutError') throw error;
  }
  return performance.now() - started;
}

function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? Number.NaN,
  };
}

async function probeLoop(probe: () => Promise<number>, everyMs: number, done: () => boolean) {
  const samples: number[] = [];
  while (!done()) {
    const started = performance.now();
    samples.push(await probe());
    const rest = everyMs - (performance.now() - started);
    if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
  }
  return samples;
}

async function oneRun(): Promise<Run> {
  refused = {};
  const dataDir = mkdtempSync(join(tmpdir(), 'wfapi-demo-startup-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const demo = startWfapi(['demo', '--port', String(port)], {
    cli: COMPILED_CLI,
    env: { ...process.env, WFAPI_DATA_DIR: dataDir, WFAPI_LOG_LEVEL: 'warn' },
  });
  let bannerAt = 0;
  let completeAt = 0;
  const started = performance.now();
  demo.waitFor(/demo history complete/, undefined, 'output').then(
    () => {
      completeAt = performance.now();
    },
    () => undefined,
  );
  try {
    const banner = await demo.waitFor(/API key\s+(wfk_\S+)/, undefined, 'output').catch(() => {
      throw new Error(`the demo exited before its banner:\n${demo.output()}`);
    });
    bannerAt = performance.now();
    const key = banner[1]!;
    const request = {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Apikey ${key}` },
      body: JSON.stringify({ query: BANNER_QUERY }),
    };
    const done = () => completeAt > 0 || demo.child.exitCode !== null;
    const [firstAnswerMs, healthz, query] = await Promise.all([
      timed(`${url}/graphql`, request),
      probeLoop(() => timed(`${url}/healthz`), probeMs, done),
      probeLoop(() => timed(`${url}/graphql`, request), 200, done),
    ]);
    // The size once the load is done and the server stopped (its last statements written).
    await demo.kill('SIGTERM');
    return {
      bannerSeconds: (bannerAt - started) / 1000,
      firstAnswerMs,
      healthz: summary(healthz),
      query: summary(query),
      loadSeconds: ((completeAt || performance.now()) - (bannerAt || started)) / 1000,
      dataMB: sizeMB(dataDir),
      walMB: sizeMB(join(dataDir, 'pg_wal')),
      refused,
    };
  } finally {
    await demo.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
if (build.status !== 0) throw new Error(`npm run build failed with ${build.status}`);
console.log(`# ${command}`);
const results: Run[] = [];
const f = (n: number) => n.toFixed(1);
for (let i = 0; i < runs; i++) {
  const run = await oneRun();
  results.push(run);
  console.log(
    `run ${i + 1}: banner after ${f(run.bannerSeconds)} s; first answer ${f(run.firstAnswerMs)} ms; healthz p50 ${f(run.healthz.p50)} p99 ${f(run.healthz.p99)} max ${f(run.healthz.max)} ms (${run.healthz.count}); ` +
      `query p50 ${f(run.query.p50)} p99 ${f(run.query.p99)} max ${f(run.query.max)} ms (${run.query.count}); load ${f(run.loadSeconds)} s after the banner; data ${f(run.dataMB)} MB (pg_wal ${f(run.walMB)} MB); refused ${JSON.stringify(run.refused)}`,
  );
}
const med = (pick: (run: Run) => number) => median(results.map(pick));
const row = {
  bannerSeconds: med((r) => r.bannerSeconds),
  firstAnswerMs: med((r) => r.firstAnswerMs),
  healthzP50: med((r) => r.healthz.p50),
  healthzP99: med((r) => r.healthz.p99),
  healthzMax: med((r) => r.healthz.max),
  queryP50: med((r) => r.query.p50),
  queryP99: med((r) => r.query.p99),
  queryMax: med((r) => r.query.max),
  loadSeconds: med((r) => r.loadSeconds),
  dataMB: med((r) => r.dataMB),
  walMB: med((r) => r.walMB),
};
const markdown = [
  `Measured ${new Date().toISOString()}: \`npm start\`'s demo on an empty data directory, from its banner until the background load completes; median of ${runs} runs. Command: \`${command}\`.`,
  '',
  '| banner s | first answer ms | healthz p50 / p99 / max ms | query p50 / p99 / max ms | load after banner s | data MB (pg_wal) |',
  '|---:|---:|---:|---:|---:|---:|',
  `| ${f(row.bannerSeconds)} | ${f(row.firstAnswerMs)} | ${f(row.healthzP50)} / ${f(row.healthzP99)} / ${f(row.healthzMax)} | ${f(row.queryP50)} / ${f(row.queryP99)} / ${f(row.queryMax)} | ${f(row.loadSeconds)} | ${f(row.dataMB)} (${f(row.walMB)}) |`,
  '',
].join('\n');
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(
  new URL('./results/demo-startup.json', import.meta.url),
  `${JSON.stringify({ command, date: new Date().toISOString(), runs: results, median: row }, null, 2)}\n`,
);
writeFileSync(new URL('./results/demo-startup.md', import.meta.url), markdown);
console.log(`\n${markdown}`);
