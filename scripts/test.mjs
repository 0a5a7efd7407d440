#!/usr/bin/env node
// Runs the whole suite on the embedded database, then on PostgreSQL when TEST_DATABASE_URL is set.
// Usage: npm test [-- test/some.test.ts ...]
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const COUNTS_REPORTER = fileURLToPath(new URL('./test-counts.mjs', import.meta.url));

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const files = process.argv.slice(2).length ? process.argv.slice(2) : testFiles('test').sort();
/**
 * Files that assert a latency bound (`// test: alone` in their first lines) run after the others,
 * one at a time, so that no other test file shares the machine's cores while they measure.
 */
const isAlone = (file) => /^\/\/ test: alone\b/m.test(readFileSync(file, 'utf8').slice(0, 2000));
const groups = [
  { files: files.filter((file) => !isAlone(file)), concurrency: 2 },
  { files: files.filter(isAlone), concurrency: 1 },
].filter((group) => group.files.length > 0);
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

const targets = ['pglite'];
const pgUrl = await postgresUrl();
if (pgUrl) targets.push('postgres');

/** The counting reporter's file for one phase: written by scripts/test-counts.mjs, read once the phase ends. */
const countsDir = mkdtempSync(join(tmpdir(), 'wfapi-test-counts-'));
process.on('exit', () => rmSync(countsDir, { recursive: true, force: true }));
let phase = 0;

/**
 * Runs a group of files on one database, the spec reporter's output echoed to stdout; resolves
 * with the exit code and the pass/fail/skip counts of every test the phase ran.
 */
function runOn(target, { files, concurrency }) {
  phase += 1;
  const countsFile = join(countsDir, `phase-${phase}.json`);
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--test',
        `--test-concurrency=${concurrency}`,
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        `--test-reporter=${COUNTS_REPORTER}`,
        `--test-reporter-destination=${countsFile}`,
        ...files,
      ],
      {
        stdio: ['ignore', 'inherit', 'inherit'],
        env: { ...process.env, WFAPI_TEST_DB: target, ...(pgUrl ? { TEST_DATABASE_URL: pgUrl } : {}) },
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
      resolve({ code, pass: counts.passed, fail: counts.failed, skipped: counts.skipped });
    });
  });
}

const totals = { pass: 0, fail: 0, skipped: 0 };
let failed = false;
for (const target of targets) {
  console.log(`\n# ===== database: ${target} =====`);
  for (const group of groups) {
    const result = await runOn(target, group);
    totals.pass += result.pass;
    totals.fail += result.fail;
    totals.skipped += result.skipped;
    if (result.code !== 0 || result.fail > 0 || result.pass === 0) failed = true;
  }
}
console.log(`\n# databases: ${targets.join(', ')}`);
console.log(`tests: ${totals.pass} passed, ${totals.fail} failed, ${totals.skipped} skipped`);
process.exit(failed ? 1 : 0);
