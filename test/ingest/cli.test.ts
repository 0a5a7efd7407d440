import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from '../harness/cli.js';
import { createTenant, workflow } from '../harness/fixtures.js';
import { freePort, startWfapi } from '../harness/process.js';
import { startServer } from '../harness/server.js';
import { useServer } from '../harness/suite.js';
import { INGEST_TOKEN, ndjson } from './http.js';

function wfapi(args: readonly string[], options: { stdin?: string; env?: Record<string, string> } = {}) {
  return runCli(args, options.env, options.stdin);
}

describe('wfapi ingest', () => {
  const ctx = useServer({ ingestToken: INGEST_TOKEN });
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-ingest-cli-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const count = async () =>
    (await ctx.db.query<{ n: number }>('select count(*)::int as n from workflows'))[0]!.n;

  it('streams a file to the server, prints a summary and exits 0', async () => {
    const tenant = await createTenant(ctx.db);
    const file = join(dir, 'good.ndjson');
    writeFileSync(file, ndjson(Array.from({ length: 12 }, () => workflow(tenant.organizationId))));
    const run = await wfapi([
      'ingest',
      file,
      '--url',
      ctx.server.url,
      '--token',
      INGEST_TOKEN,
      '--chunk-lines',
      '5',
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /good\.ndjson: 12 accepted, 0 rejected, 12 lines in [\d.]+ s \(\d+ lines\/s\)/);
    assert.equal(await count(), 12);
  });

  it('reads standard input given -, taking the URL and token from the environment', async () => {
    const tenant = await createTenant(ctx.db);
    const run = await wfapi(['ingest', '-', '--json'], {
      stdin: ndjson([workflow(tenant.organizationId), workflow(tenant.organizationId)]),
      env: { WFAPI_URL: ctx.server.url, WFAPI_INGEST_TOKEN: INGEST_TOKEN },
    });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(result.accepted, 2);
    assert.equal(result.lines, 2);
    assert.equal(await count(), 2);
  });

  it('exits 1 and prints the first rejections when lines are rejected, storing the valid ones', async () => {
    const tenant = await createTenant(ctx.db);
    const file = join(dir, 'mixed.ndjson');
    const huge = JSON.stringify(workflow(tenant.organizationId, { name: 'n'.repeat(1_100_000) }));
    writeFileSync(
      file,
      ndjson([workflow(tenant.organizationId), '{broken', huge, workflow(tenant.organizationId)]),
    );
    const run = await wfapi(['ingest', file, '--url', ctx.server.url, '--token', INGEST_TOKEN]);
    assert.equal(run.code, 1);
    assert.match(run.stdout, /2 accepted, 2 rejected, 4 lines/);
    assert.match(run.stderr, /^line 2: invalid JSON/m);
    assert.match(run.stderr, /^line 3: line is longer than 1048576 bytes$/m);
    assert.equal(await count(), 2);
  });

  it('exits 3 with a one-line reason when the server refuses the token, and 2 without a token', async () => {
    const refused = await wfapi(['ingest', '-', '--url', ctx.server.url, '--token', 'wrong'], {
      stdin: '{}\n',
    });
    assert.equal(refused.code, 3, 'the exit code of a refused key or token');
    assert.match(
      refused.stderr,
      /^wfapi: the server refused the upload: 401 Invalid or missing ingest token/,
    );
    const missing = await wfapi(['ingest', '-', '--url', ctx.server.url], { stdin: '{}\n' });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /an ingest token is required/);
  });

  it('retries until a server comes back, then finishes the upload', async () => {
    const tenant = await createTenant(ctx.db);
    const port = await freePort();
    const file = join(dir, 'later.ndjson');
    writeFileSync(file, ndjson(Array.from({ length: 3 }, () => workflow(tenant.organizationId))));
    // The server starts only once the command has failed to reach it and said it will retry.
    const running = startWfapi(
      ['ingest', file, '--url', `http://127.0.0.1:${port}`, '--token', INGEST_TOKEN],
      {
        stdin: '',
        timeoutMs: 60_000,
      },
    );
    await running.waitFor(/retry 1 in/, undefined, 'stderr');
    const late = await startServer(ctx.db, { ingestToken: INGEST_TOKEN, port });
    try {
      const run = await running.result();
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stderr, /retry 1 in [\d.]+ s: cannot reach/);
      assert.match(run.stdout, /3 accepted, 0 rejected/);
      assert.equal(await count(), 3);
    } finally {
      await late.close();
    }
  });
});
