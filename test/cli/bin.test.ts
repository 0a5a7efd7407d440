import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { createTenant, workflow } from '../harness/fixtures.js';
import { COMPILED_CLI, cleanEnv, startWfapi } from '../harness/process.js';
import { useServer } from '../harness/suite.js';
import { INGEST_TOKEN, ndjson } from '../ingest/http.js';

/**
 * The other tests run the command line in their own process (test/harness/cli.ts); these start
 * the shipped entry, bin/wfapi.js over dist/, as a shell does, and prove what only a process of
 * its own shows: its streams, its environment, its standard input and its exit code.
 */
describe('bin/wfapi.js, the shipped command', () => {
  const ctx = useServer({ ingestToken: INGEST_TOKEN });
  const bin = (args: readonly string[], env: Record<string, string> = {}, stdin?: string) =>
    startWfapi(args, { cli: COMPILED_CLI, env: cleanEnv(env), timeoutMs: 60_000, stdin }).result();

  it('prints the version and exits 0', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    const result = await bin(['--version']);
    assert.deepEqual(result, { code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('answers a read command from the server its environment names, on its standard output', async () => {
    const tenant = await createTenant(ctx.db);
    const result = await bin(['whoami', '--json'], { WFAPI_URL: ctx.server.url, WFAPI_API_KEY: tenant.key });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(JSON.parse(result.stdout).organization.organizationId, tenant.organizationId);
  });

  it('reads standard input, tells rejected lines on standard error and exits 1 for them', async () => {
    const tenant = await createTenant(ctx.db);
    const result = await bin(
      ['ingest', '-'],
      { WFAPI_URL: ctx.server.url, WFAPI_INGEST_TOKEN: INGEST_TOKEN },
      ndjson([workflow(tenant.organizationId), '{broken']),
    );
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, /^stdin: 1 accepted, 1 rejected, 2 lines/);
    assert.match(result.stderr, /^line 2: invalid JSON/m);
  });
});
