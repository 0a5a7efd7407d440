#!/usr/bin/env node
// Runs the whole suite on the embedded database, then on PostgreSQL when TEST_DATABASE_URL is set.
// Usage: npm test [-- test/some.test.ts ...]
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const files = process.argv.slice(2).length ? process.argv.slice(2) : testFiles('test').sort();
const targets = ['pglite'];
if (process.env.TEST_DATABASE_URL) targets.push('postgres');
else console.log('# TEST_DATABASE_URL is not set: running on the embedded database only');

let failed = false;
for (const target of targets) {
  console.log(`\n# ===== database: ${target} =====`);
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
    { stdio: 'inherit', env: { ...process.env, WFAPI_TEST_DB: target } },
  );
  if (result.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
