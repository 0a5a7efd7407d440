#!/usr/bin/env node
// Runs the whole suite on the embedded database, then on PostgreSQL when TEST_DATABASE_URL is set.
// Usage: npm test [-- [--db=pglite|postgres] test/some.test.ts ...]
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const COUNTS_REPORTER = fileURLToPath(new URL('./test-counts.mjs', import.meta.url));

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const args = process.argv.slice(2);
/** `--db=pglite` or `--db=postgres` runs the files on that database alone. */
const onlyDb = args.find((arg) => arg.startsWith('--db='))?.slice('--db='.length);
const named = args.filter((arg) => !arg.startsWith('--db='));
const files = named.length ? named : testFiles('test').sort();
/**
 * Files that assert a latency bound (`// test: alone` in their first lines) run after the others,
 * one at a time, so that no other test file shares the machine's cores while they measure.
 */
const marked = (file, mark) =>
  new RegExp(`^// test: ${mark}\\b`, 'm').test(readFileSync(file, 'utf8').slice(0, 2000));
const isAlone = (file) => marked(file, 'alone');
/**
 * Files whose proof does not depend on the database kind (`// test: any-database`) run in one
 * phase only: the last, PostgreSQL's when the run has it, where a test's database work costs the
 * worker less than the embedded database (which runs inside the worker) does.
 */
const anyDatabase = (file) => marked(file, 'any-database');
/**
 * Workers run side by side, two per core: a file waits on a database, a server, a child process or
 * a browser for much of its time, and two workers a core finished the suite in 9.7 minutes on two
 * cores where one a core took 12. WFAPI_TEST_CONCURRENCY overrides it.
 */
const CONCURRENCY = Number(process.env.WFAPI_TEST_CONCURRENCY) || 2 * availableParallelism();
/**
 * The groups of one database's phase; `last` is whether it is the run's last phase. The pooled
 * files are shared out among the group's workers (scripts/test-worker.mjs); an alone file has a
 * process of its own and the machine to itself.
 */
const groupsFor = (last) =>
  [
    {
      files: files.filter((file) => !isAlone(file) && (last || !anyDatabase(file))),
      concurrency: CONCURRENCY,
      pooled: true,
    },
    { files: files.filter(isAlone), concurrency: 1, pooled: false },
  ].filter((group) => group.files.length > 0);
/** The longest one file may run (the slowest take about a minute on a loaded machine). */
const FILE_TIMEOUT_MS = 8 * 60_000;
/**
 * The longest a phase's worker may run (each takes about 5 minutes on two cores): it stops a
 * worker that never ends (a handle a file left open) well within CI's limit.
 */
const WORKER_TIMEOUT_MS = 20 * 60_000;
const WORKER = fileURLToPath(new URL('./test-worker.mjs', import.meta.url));
/**
 * A phase's queue puts the longest files first, so that no worker starts a long file when the
 * others are about to finish. A file's time is its seconds on that database in this checkout's
 * last run (kept out of the repository, in TIMES_CACHE); on a new clone, its seconds on all
 * databases in the run that wrote TIMES_SEED (`WFAPI_TEST_TIMES=scripts/test-seconds.json npm
 * test`); for a file newer than that, its length in bytes.
 */
const TIMES_CACHE = join('node_modules', '.cache', 'wfapi', 'test-seconds.json');
const TIMES_SEED = fileURLToPath(new URL('./test-seconds.json', import.meta.url));
const readTimes = (path) => {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return {};
  }
};
const lastTimes = readTimes(TIMES_CACHE);
const seedTimes = readTimes(TIMES_SEED);
/** A file's key in TIMES_SEED, and with its database's in TIMES_CACHE. */
const fileKey = (file) => relative(process.cwd(), file);
const timeKey = (target, file) => `${target} ${fileKey(file)}`;
const longestFirst = (target, list) => {
  const weight = (file) =>
    lastTimes[timeKey(target, file)] ?? seedTimes[fileKey(file)] ?? statSync(file).size / 2000;
  return [...list].sort((a, b) => weight(b) - weight(a));
};
const DEFAULT_PG = 'postgres://postgres@127.0.0.1:5432/postgres';

/** PostgreSQL runs when TEST_DATABASE_URL is set (then it must work) or a local server answers. */
async function postgresUrl() {
  if (process.env.TEST_DATABASE_URL) return process.env.TEST_DATABASE_URL;
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: DEFAULT_PG, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return DEFAULT_PG;
  } catch {
    console.log(
      `# no PostgreSQL at ${DEFAULT_PG} and TEST_DATABASE_URL unset: running on the embedded database only`,
    );
    return undefined;
  }
}

const pgUrl = onlyDb === 'pglite' ? undefined : await postgresUrl();
const targets = [...(onlyDb === 'postgres' ? [] : ['pglite']), ...(pgUrl ? ['postgres'] : [])];
/** Where the files and the template find PostgreSQL, when the run has it. */
const pgEnv = pgUrl ? { TEST_DATABASE_URL: pgUrl } : {};
if (onlyDb && !targets.includes(onlyDb)) {
  console.log(`# --db=${onlyDb}: not a database this run can reach (pglite, or postgres when one answers)`);
  process.exit(1);
}

/**
 * The migrated database every file of a phase starts from, made once (test/harness/template.ts):
 * migrating is most of a new embedded database's start, and files run it by the hundred.
 */
function template(verb, target, location) {
  const args = ['--import', 'tsx', 'scripts/test-template.ts', verb, target, ...(location ? [location] : [])];
  return execFileSync(process.execPath, args, {
    env: { ...process.env, ...pgEnv },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

/** The counting reporter's file for one phase: written by scripts/test-counts.mjs, read once the phase ends. */
const countsDir = mkdtempSync(join(tmpdir(), 'wfapi-test-counts-'));
process.on('exit', () => rmSync(countsDir, { recursive: true, force: true }));
let phase = 0;

/**
 * Runs a group of files on one database, the spec reporter's output echoed to stdout; resolves
 * with the exit code and the pass/fail/skip counts of every test the phase ran. A pooled group
 * runs as `concurrency` workers that share a queue of its files.
 */
function runOn(target, template, { files, concurrency, pooled }) {
  phase += 1;
  const countsFile = join(countsDir, `phase-${phase}.json`);
  let entries = files;
  let queueEnv = {};
  if (pooled) {
    const queue = join(countsDir, `queue-${phase}`);
    mkdirSync(queue);
    const ordered = longestFirst(target, files);
    writeFileSync(
      join(queue, 'files.json'),
      JSON.stringify({ files: ordered, fileTimeoutMs: FILE_TIMEOUT_MS }),
    );
    // node --test runs each path once: every worker is a file of its own that loads the one worker.
    entries = Array.from({ length: Math.min(concurrency, files.length) }, (_, i) => {
      const entry = join(queue, `worker-${i + 1}.mjs`);
      writeFileSync(entry, `import ${JSON.stringify(pathToFileURL(WORKER).href)};\n`);
      return entry;
    });
    queueEnv = { WFAPI_TEST_QUEUE: queue };
  }
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--test',
        `--test-concurrency=${concurrency}`,
        // Node 20 times out a whole file (here a worker) with this: one that hangs fails after the
        // timeout instead of holding the run until CI's own limit ends it without a report.
        `--test-timeout=${pooled ? WORKER_TIMEOUT_MS : FILE_TIMEOUT_MS}`,
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        `--test-reporter=${COUNTS_REPORTER}`,
        `--test-reporter-destination=${countsFile}`,
        ...entries,
      ],
      {
        stdio: ['ignore', 'inherit', 'inherit'],
        env: {
          ...process.env,
          WFAPI_TEST_DB: target,
          WFAPI_TEST_TEMPLATE: template,
          WFAPI_TEST_CLI: 'compiled',
          ...pgEnv,
          ...queueEnv,
        },
      },
    );
    child.on('close', (code) => {
      let counts;
      try {
        counts = JSON.parse(readFileSync(countsFile, 'utf8'));
      } catch {
        // The runner died before its reporters finished: the phase is a failure whose tests are unknown.
        console.log(`# the test runner ended (code ${code}) without reporting its counts`);
        counts = { passed: 0, failed: 1, skipped: 0 };
      }
      resolve({
        code,
        pass: counts.passed,
        fail: counts.failed,
        skipped: counts.skipped,
        files: counts.files ?? {},
      });
    });
  });
}

/**
 * The tests start the CLI as a child process where they need one (servers, signals, the shipped
 * bin; the other commands run in the test's process): WFAPI_TEST_CLI=compiled, since from dist/
 * it starts in half the CPU time it takes through tsx. bin.test.ts runs dist/ in any case. dist/
 * is rebuilt first when it was not built from the sources as they are now.
 */
try {
  execFileSync(process.execPath, ['scripts/build-stamp.mjs', 'fresh'], { stdio: 'ignore' });
} catch {
  console.log('# building dist/ (the tests run the compiled CLI)');
  execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
}

const totals = { pass: 0, fail: 0, skipped: 0 };
/** Per file, its seconds on each database: the slowest are listed at the end. */
const fileSeconds = new Map();
const started = Date.now();
let failed = false;
for (const target of targets) {
  console.log(`\n# ===== database: ${target} =====`);
  // WFAPI_TEST_TEMPLATE=off: every file migrates its own database (no file of the run opens one).
  const location = process.env.WFAPI_TEST_TEMPLATE === 'off' ? '' : template('make', target);
  for (const group of groupsFor(target === targets.at(-1))) {
    const groupStarted = Date.now();
    const result = await runOn(target, location, group);
    console.log(
      `# ${target}: ${group.files.length} files in ${((Date.now() - groupStarted) / 60000).toFixed(1)} minutes`,
    );
    for (const [file, ms] of Object.entries(result.files)) {
      fileSeconds.set(file, (fileSeconds.get(file) ?? 0) + ms / 1000);
      lastTimes[timeKey(target, file)] = +(ms / 1000).toFixed(1);
    }
    totals.pass += result.pass;
    totals.fail += result.fail;
    totals.skipped += result.skipped;
    if (result.code !== 0 || result.fail > 0 || result.pass === 0) failed = true;
  }
  if (location) template('drop', target, location);
}
// WFAPI_TEST_TIMES=<file>: every file's seconds (all databases) as JSON, to find where the suite's time goes.
if (process.env.WFAPI_TEST_TIMES) {
  const times = Object.fromEntries([...fileSeconds].map(([file, s]) => [fileKey(file), +s.toFixed(1)]));
  writeFileSync(process.env.WFAPI_TEST_TIMES, `${JSON.stringify(times, null, 2)}\n`);
}
mkdirSync(dirname(TIMES_CACHE), { recursive: true });
writeFileSync(TIMES_CACHE, `${JSON.stringify(lastTimes, null, 1)}\n`);
const slowest = [...fileSeconds].sort((a, b) => b[1] - a[1]).slice(0, 12);
console.log('\n# slowest files (seconds, all databases):');
for (const [file, seconds] of slowest) console.log(`#   ${seconds.toFixed(1).padStart(6)}  ${fileKey(file)}`);
console.log(`\n# databases: ${targets.join(', ')}; ${((Date.now() - started) / 60000).toFixed(1)} minutes`);
console.log(`tests: ${totals.pass} passed, ${totals.fail} failed, ${totals.skipped} skipped`);
process.exit(failed ? 1 : 0);
