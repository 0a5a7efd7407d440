// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cleanEnv, ROOT } from '../harness/process.js';

const FIXTURES = join(ROOT, 'test/scripts/fixtures');

interface Run {
  readonly code: number;
  readonly stdout: string;
}

/** `npm test -- files...` as scripts/test.mjs runs it: one phase per database it finds. */
function runSuite(files: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'scripts/test.mjs'), ...files.map((file) => join(FIXTURES, file))],
      // Without NODE_TEST_CONTEXT, which tells a `node --test` that it runs inside another one; the
      // fixtures open no database, so no template is made for them.
      {
        cwd: ROOT,
        env: cleanEnv({ NODE_TEST_CONTEXT: undefined, WFAPI_TEST_TEMPLATE: 'off', ...env }),
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout }),
    );
  });
}

/** The closing line's counts, and how many databases the run covered (each runs every file). */
function closing(stdout: string) {
  const lines = stdout.trimEnd().split('\n');
  const databases = /^# databases: (.+)$/.exec(lines.at(-2) ?? '')?.[1]?.split(', ') ?? [];
  const counts = /^tests: (\d+) passed, (\d+) failed, (\d+) skipped$/.exec(lines.at(-1) ?? '');
  assert.ok(counts, `no closing line in: ${lines.slice(-5).join('\n')}`);
  assert.ok(databases.length > 0, 'no "# databases:" line before the closing line');
  const [, passed, failed, skipped] = counts.map(Number);
  return { databases: databases.length, passed, failed, skipped };
}

describe('npm test (scripts/test.mjs)', () => {
  it('counts every test of every phase in its closing line, a long failure listing and cancelled tests included, and exits non-zero', async () => {
    const run = await runSuite(['passing.fixture.ts', 'failing.fixture.ts', 'skipped.fixture.ts']);
    const { databases, ...counts } = closing(run.stdout);
    // Per database: 3 + 2 + 1 passed; 1 failed and 2 cancelled; 1 skipped test and 1 skipped suite.
    assert.deepEqual(counts, { passed: 6 * databases, failed: 3 * databases, skipped: 2 * databases });
    assert.notEqual(run.code, 0);
    // The spec reporter still prints the failure itself.
    assert.match(run.stdout, /fails with a long listing/);
  });

  it('exits zero and says so when every test passes or is skipped', async () => {
    const run = await runSuite(['passing.fixture.ts', 'skipped.fixture.ts']);
    const { databases, ...counts } = closing(run.stdout);
    assert.deepEqual(counts, { passed: 4 * databases, failed: 0, skipped: 2 * databases });
    assert.equal(run.code, 0);
  });

  it('runs a file marked `// test: any-database` once, in the last database phase only', async () => {
    const run = await runSuite(['passing.fixture.ts', 'once.fixture.ts']);
    const { databases, ...counts } = closing(run.stdout);
    assert.deepEqual(counts, { passed: 3 * databases + 1, failed: 0, skipped: 0 });
    assert.equal(run.code, 0);
    // PostgreSQL's phase when the run has it (it comes last), else the embedded database's.
    assert.deepEqual(
      [...run.stdout.matchAll(/✔ runs once, on (\w+)/g)].map((match) => match[1]),
      [databases === 2 ? 'postgres' : 'pglite'],
    );
  });

  it("runs each file's top-level hooks around its own tests only, though one worker runs several files", async () => {
    // One worker: the three files share its process, one after the other.
    const run = await runSuite(
      ['scoped-hooks.fixture.ts', 'throws.fixture.ts', 'scoped-hooks-too.fixture.ts'],
      {
        WFAPI_TEST_CONCURRENCY: '1',
      },
    );
    const { databases, ...counts } = closing(run.stdout);
    // Per database: both hook files' two tests pass (their `after` checks the hooks); the file
    // that throws as it loads is one failure and does not stop the file after it.
    assert.deepEqual(counts, { passed: 4 * databases, failed: databases, skipped: 0 });
    assert.match(run.stdout, /this fixture fails as it loads/);
    assert.notEqual(run.code, 0);
  });
});
