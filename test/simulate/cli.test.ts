import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseRecord } from '../../src/ingest/records.js';
import { runCli } from '../harness/cli.js';
import { cleanEnv, startWfapi } from '../harness/process.js';
import { useServer } from '../harness/suite.js';

const ADMIN_TOKEN = 'simulate-test-admin-token';
const INGEST_TOKEN = 'simulate-test-ingest-token';
const SMALL = ['--workflows', '5', '--days', '2', '--executions', '1500', '--until', '2026-03-01T00:00:00Z'];

describe('wfapi simulate', () => {
  const ctx = useServer({ adminToken: ADMIN_TOKEN, ingestToken: INGEST_TOKEN });
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-simulate-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the same NDJSON bytes to standard output and to --out for the same seed, and other bytes for another', async () => {
    const file = join(dir, 'out.ndjson');
    const [first, second, other, written] = await Promise.all([
      runCli(['simulate', ...SMALL, '--seed', 'alpha']),
      runCli(['simulate', ...SMALL, '--seed', 'alpha']),
      runCli(['simulate', ...SMALL, '--seed', 'beta']),
      runCli(['simulate', ...SMALL, '--seed', 'alpha', '--out', file]),
    ]);
    for (const run of [first, second, other, written]) assert.equal(run.code, 0, run.stderr);
    assert.ok(first.stdout.length > 100_000);
    assert.equal(second.stdout, first.stdout);
    assert.notEqual(other.stdout, first.stdout);
    assert.equal(written.stdout, '');
    assert.equal(readFileSync(file, 'utf8'), first.stdout);
    const lines = first.stdout.trimEnd().split('\n');
    for (const line of lines) parseRecord(JSON.parse(line));
    const executions = lines.filter((line) => line.startsWith('{"type":"execution"')).length;
    assert.equal(executions, 1500, '--executions is the exact number of executions');
    assert.match(
      first.stderr,
      new RegExp(
        `simulated ${lines.length.toLocaleString('en-US')} records \\(.*${executions.toLocaleString('en-US')} executions`,
      ),
    );
  });

  it('ends with a one-line usage error and exit code 2 for bad flags', async () => {
    for (const args of [
      ['--executions', '-5'],
      ['--days', 'many'],
      ['--detail', 'everything'],
      ['--until', 'yesterday'],
      ['--organization-id', 'acme'],
      ['--org', 'acme'],
      ['--org', '11111111-2222-4333-8444-555555555555', '--create-org'],
      ['--create-org'],
      ['--to', 'http://127.0.0.1:1'],
      ['--to', 'ftp://example.com', '--token', 't', '--admin-token', 'a'],
    ]) {
      const run = await runCli(['simulate', ...args]);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
      assert.match(run.stderr, /^wfapi: /);
      assert.equal(run.stdout, '');
    }
  });

  it('sends the records to a server with --to, creating the organization, member and key with --admin-token', async () => {
    const run = await runCli(['simulate', ...SMALL, '--to', ctx.server.url], {
      WFAPI_INGEST_TOKEN: INGEST_TOKEN,
      WFAPI_ADMIN_TOKEN: ADMIN_TOKEN,
    });
    assert.equal(run.code, 0, run.stderr);
    const key = /API key\s+(wfk_\w+)/.exec(run.stdout)?.[1];
    assert.ok(key, run.stdout);
    const accepted = Number(/the server accepted ([\d,]+)/.exec(run.stderr)?.[1]?.replace(/,/g, ''));
    assert.ok(accepted > 10_000, run.stderr);
    const answer = await ctx.server.gql(
      key,
      '{ workflows(input: {}) { count } workflowExecutions(input: {}) { count } }',
    );
    assert.equal(answer.status, 200);
    assert.equal(answer.body.data.workflows.count, 5);
    const stored = (await ctx.db.query<{ n: number }>('select count(*)::int as n from executions'))[0]!.n;
    assert.equal(answer.body.data.workflowExecutions.count, stored);
    assert.ok(stored > 1000);
  });

  it('writes a file for an organization it creates with --create-org, which wfapi ingest then loads without a rejection', async () => {
    const file = join(dir, 'created.ndjson');
    const env = {
      WFAPI_URL: ctx.server.url,
      WFAPI_ADMIN_TOKEN: ADMIN_TOKEN,
      WFAPI_INGEST_TOKEN: INGEST_TOKEN,
    };
    const simulated = await runCli(['simulate', ...SMALL, '--create-org', '--out', file], env);
    assert.equal(simulated.code, 0, simulated.stderr);
    const organizationId = /organization\s+.* \(([0-9a-f-]{36})\)/.exec(simulated.stdout)?.[1];
    const key = /API key\s+(wfk_\w+)/.exec(simulated.stdout)?.[1];
    assert.ok(organizationId && key, simulated.stdout);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    assert.ok(lines.every((line) => JSON.parse(line).organizationId === organizationId));
    const ingested = await runCli(['ingest', file], env);
    assert.equal(ingested.code, 0, ingested.stderr);
    assert.match(ingested.stdout, new RegExp(`: ${lines.length} accepted, 0 rejected`));
    const answer = await ctx.server.gql(key, '{ workflows(input: {}) { count } }');
    assert.equal(answer.body.data.workflows.count, 5);
  });

  it('writes records for an existing organization named with --org, and explains a rejection by an unknown one', async () => {
    const env = {
      WFAPI_URL: ctx.server.url,
      WFAPI_ADMIN_TOKEN: ADMIN_TOKEN,
      WFAPI_INGEST_TOKEN: INGEST_TOKEN,
    };
    const created = await runCli(['orgs', 'create', '--name', 'Named', '--json'], env);
    const { organizationId } = JSON.parse(created.stdout);
    const named = await runCli(['simulate', ...SMALL, '--detail', 'none', '--org', organizationId]);
    assert.equal(named.code, 0, named.stderr);
    const records = named.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.ok(records.every((record) => record.organizationId === organizationId));
    assert.doesNotMatch(named.stderr, /derived from the seed/);

    const derived = join(dir, 'derived.ndjson');
    const unnamed = await runCli(['simulate', ...SMALL, '--detail', 'none', '--out', derived]);
    assert.match(unnamed.stderr, /derived from the seed.*--org <id>.*--create-org/);
    const rejected = await runCli(['ingest', derived], env);
    assert.equal(rejected.code, 1);
    assert.match(rejected.stderr, /unknown organizationId[\s\S]*hint: .*wfapi orgs list/);
  });

  it('reports the lines a server rejects and exits 1', async () => {
    const run = await runCli(
      [
        'simulate',
        ...SMALL,
        '--to',
        ctx.server.url,
        '--organization-id',
        '11111111-2222-4333-8444-555555555555',
      ],
      { WFAPI_INGEST_TOKEN: INGEST_TOKEN },
    );
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /line 1: unknown organizationId 11111111-2222-4333-8444-555555555555/);
  });

  it('keeps producing records with --live until interrupted, then exits 0', async () => {
    const until = new Date(Date.now() - 10 * 60_000);
    const process = startWfapi(
      [
        'simulate',
        '--live',
        '--workflows',
        '4',
        '--days',
        '0.05',
        '--executions',
        '2000',
        '--until',
        until.toISOString(),
      ],
      { env: cleanEnv({ NO_COLOR: '1' }) },
    );
    try {
      // Live records are those due after --until: the ten minutes since, then what happens now.
      const liveExecutions = () => {
        const text = process.stdout();
        return text
          .slice(0, text.lastIndexOf('\n'))
          .split('\n')
          .filter((line) => line.startsWith('{"type":"execution"'))
          .map((line) => JSON.parse(line))
          .filter((record) => Date.parse(record.startedAt) > until.getTime());
      };
      const deadline = Date.now() + 30_000;
      while (liveExecutions().length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.ok(liveExecutions().length > 0, `no execution started after --until; ${process.stderr()}`);
      process.child.kill('SIGINT');
      assert.equal((await process.exited).code, 0, process.stderr());
    } finally {
      process.child.kill('SIGKILL');
    }
    assert.match(process.stderr(), /simulated [\d,]+ records/);
  });
});
