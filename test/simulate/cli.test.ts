import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseRecord } from '../../src/ingest/records.js';
import { runCli } from '../harness/cli.js';
import { useServer } from '../harness/suite.js';
import { startWfapi } from './wfapi-process.js';

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
    const process = startWfapi([
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
    ]);
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
      assert.equal(await process.exited(), 0, process.stderr());
    } finally {
      process.child.kill('SIGKILL');
    }
    assert.match(process.stderr(), /simulated [\d,]+ records/);
  });
});
