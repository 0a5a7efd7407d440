// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from '../harness/cli.js';
import { createTenant } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';

describe('the CLI against a server started with WFAPI_SCHEMA=hosted and no ingest token', () => {
  const ctx = useServer({ schema: 'hosted', ingestToken: undefined });
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-hints-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('says that `wfapi errors` needs the extended schema instead of printing an unknown type', async () => {
    const tenant = await createTenant(ctx.db);
    const run = await runCli(['errors'], { WFAPI_URL: ctx.server.url, WFAPI_API_KEY: tenant.key });
    assert.equal(run.code, 2, run.stderr);
    assert.match(
      run.stderr,
      /serves the hosted schema \(WFAPI_SCHEMA=hosted\), which has no \S+; wfapi errors needs the extended schema/,
    );
    assert.doesNotMatch(run.stderr, /Unknown type/);
  });

  it('still answers a command of the hosted schema', async () => {
    const tenant = await createTenant(ctx.db, 'Hosted Org');
    const run = await runCli(['workflows', '--json'], {
      WFAPI_URL: ctx.server.url,
      WFAPI_API_KEY: tenant.key,
    });
    assert.equal(run.code, 0, run.stderr);
  });

  it('says that ingestion needs WFAPI_INGEST_TOKEN on the server, at once, without retrying the 404', async () => {
    const file = join(dir, 'one.ndjson');
    writeFileSync(file, '{}\n');
    const run = await runCli(['ingest', file], { WFAPI_URL: ctx.server.url, WFAPI_INGEST_TOKEN: 'any' });
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /no ingest endpoint .*WFAPI_INGEST_TOKEN/);
    assert.doesNotMatch(run.stderr, /retry/);
  });
});
