// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { runCli } from '../harness/cli.js';
import { type Dataset, seedDataset } from '../harness/dataset.js';
import { createTenant, execution, ingest, log, type Tenant, workflow } from '../harness/fixtures.js';
import { freePort } from '../harness/process.js';
import { useServer } from '../harness/suite.js';

const ESC = '\u001b[';

describe('the wfapi client commands', () => {
  const ctx = useServer();
  let tenant: Tenant;
  let data: Dataset;
  const env = () => ({ WFAPI_URL: ctx.server.url, WFAPI_API_KEY: tenant.key });
  const json = async (args: string[]) => {
    const result = await runCli([...args, '--json'], env());
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout);
  };
  const seed = async () => {
    tenant = await createTenant(ctx.db);
    data = await seedDataset(ctx.db, tenant.organizationId, { executions: 30, detailed: 5 });
  };

  it('prints the version of the package with --version and -V', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    for (const flag of ['--version', '-V']) {
      const result = await runCli([flag]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, `${version}\n`);
    }
  });

  it('tells who the key acts as, as text and as JSON', async () => {
    await seed();
    const text = await runCli(['whoami'], env());
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /Acme Ops <ops@acme\.example>/);
    assert.ok(text.stdout.includes(tenant.organizationId));
    assert.ok(!text.stdout.includes(ESC), 'no colours when standard output is a pipe');
    const machine = await json(['whoami']);
    assert.equal(machine.account.memberId, tenant.memberId);
    assert.equal(machine.organization.organizationId, tenant.organizationId);
    assert.equal(machine.endpoint, `${ctx.server.url}/graphql`);
  });

  it('exits 3 with advice for a refused key, and 2 without any key', async () => {
    const refused = await runCli(['whoami'], { WFAPI_URL: ctx.server.url, WFAPI_API_KEY: 'wfk_wrong' });
    assert.equal(refused.code, 3);
    assert.equal(refused.stdout, '');
    assert.match(refused.stderr, /^wfapi: the server at .* refused the API key: .*WFAPI_API_KEY/);
    const missing = await runCli(['workflows'], { WFAPI_URL: ctx.server.url });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no API key: set WFAPI_API_KEY or pass --api-key/);
  });

  it('takes its connection from the environment it is given, never from the process it runs in', async () => {
    // The tests run the CLI in their own process: a key in process.env must not reach the run.
    const { key } = await createTenant(ctx.db);
    const saved = process.env.WFAPI_API_KEY;
    process.env.WFAPI_API_KEY = key;
    try {
      const missing = await runCli(['whoami'], { WFAPI_URL: ctx.server.url });
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /no API key: set WFAPI_API_KEY or pass --api-key/);
    } finally {
      if (saved === undefined) delete process.env.WFAPI_API_KEY;
      else process.env.WFAPI_API_KEY = saved;
    }
  });

  it('exits 5 naming the address when the server cannot be reached', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const result = await runCli(['whoami', '--url', url, '--api-key', 'wfk_x']);
    assert.equal(result.code, 5);
    assert.equal(result.stdout, '');
    assert.ok(result.stderr.startsWith(`wfapi: cannot reach ${url}/graphql: `), result.stderr);
    assert.match(result.stderr, /ECONNREFUSED.*Is the server running\? Set WFAPI_URL or --url/);
  });

  it('lists workflows with counts, filtered by status, and rejects an unknown status with exit 2', async () => {
    await seed();
    const table = await runCli(['workflows'], env());
    assert.equal(table.code, 0, table.stderr);
    const lines = table.stdout.trim().split('\n');
    assert.match(
      lines[0]!,
      /^NAME\s+UUID\s+STATUS\s+RUNS 24H\s+FAILURE RATE 24H\s+EXECUTIONS\s+CREDIT\s+LAST EXECUTION$/,
    );
    assert.equal(lines.length, 6);
    assert.equal(lines.at(-2), '3 workflows');
    assert.match(lines.at(-1)!, /^RUNS and FAILURE RATE: executions started in the last 24h/);
    const active = await json(['workflows', '--status', 'active', '--search', 'BETA']);
    assert.deepEqual(
      active.map((w: { name: string }) => w.name),
      ['beta-sync'],
    );
    assert.equal(active[0].executionCount, 10);
    const wrong = await runCli(['workflows', '--status', 'running'], env());
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /Expected one or more of PENDING, FAILED, ACTIVE, PAUSED, DELETED/);
  });

  it("shows each workflow's runs and failure rate over a window, sorted as asked, for more workflows than one request may alias", async () => {
    tenant = await createTenant(ctx.db);
    const now = Date.now();
    const at = (msAgo: number) => new Date(now - msAgo).toISOString();
    // 35 workflows, more than one request's 30 aliases: flow-NN has 2 successes and NN % 5
    // failures in the last hours, and one failure two days ago that only a longer window sees.
    const workflows = Array.from({ length: 35 }, (_, i) =>
      workflow(tenant.organizationId, { name: `flow-${String(i).padStart(2, '0')}` }),
    );
    const executions = workflows.flatMap((wf, i) => [
      ...Array.from({ length: 2 + (i % 5) }, (_, k) =>
        execution(tenant.organizationId, wf.uuid as string, {
          status: k < 2 ? 'SUCCESS' : 'FAILURE',
          startedAt: at((k + 1) * 600_000),
          finishedAt: at((k + 1) * 600_000 - 5000),
        }),
      ),
      execution(tenant.organizationId, wf.uuid as string, {
        status: 'FAILURE',
        startedAt: at(2 * 86_400_000),
      }),
    ]);
    await ingest(ctx.db, [...workflows, ...executions]);

    const all = await json(['workflows']);
    assert.equal(all.length, 35);
    for (const row of all) {
      const failures = Number(row.name.slice(-2)) % 5;
      assert.deepEqual(
        [row.window.executionCount, row.window.success, row.window.failure],
        [2 + failures, 2, failures],
        row.name,
      );
      assert.equal(row.window.failureRate, failures / (2 + failures));
      assert.equal(row.executionCount, 3 + failures, 'EXECUTIONS stays all-time');
    }
    const byRate = await json(['workflows', '--sort', 'failure-rate', '--limit', '3']);
    assert.deepEqual(
      byRate.map((w: { name: string }) => w.name),
      ['flow-04', 'flow-09', 'flow-14'],
    );
    const byRuns = await json(['workflows', '--sort', 'runs', '--window', '3d', '--limit', '2']);
    assert.deepEqual(
      byRuns.map((w: { name: string; window: { executionCount: number } }) => [
        w.name,
        w.window.executionCount,
      ]),
      [
        ['flow-04', 7],
        ['flow-09', 7],
      ],
    );
    const byName = await json(['workflows', '--sort', 'name', '--limit', '2']);
    assert.deepEqual(
      byName.map((w: { name: string }) => w.name),
      ['flow-00', 'flow-01'],
    );
    const text = await runCli(['workflows', '--sort', 'failure-rate', '--window', '12h'], env());
    assert.equal(text.code, 0, text.stderr);
    const lines = text.stdout.trim().split('\n');
    assert.match(lines[0]!, /RUNS 12H\s+FAILURE RATE 12H/);
    assert.match(lines[1]!, /^flow-04 .* ACTIVE\s+6\s+66\.7% \(4\)\s+7\s/);
    assert.match(lines.find((line) => line.startsWith('flow-00'))!, /ACTIVE\s+2\s+0\.0% \(0\)\s+3\s/);
    const wrong = await runCli(['workflows', '--sort', 'fastest'], env());
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /Allowed choices are name, status, last-run, failure-rate, runs/);
  });

  it('shows one workflow by uuid or by name with counts since a point in time', async () => {
    await seed();
    const wf = data.workflows[1]!;
    const all = await json(['workflow', wf.uuid as string, '--since', '2026-01-01']);
    assert.equal(all.workflow.executionCount, 10);
    assert.equal(all.latestDeployment.status, 'ACTIVE');
    // Executions of beta-sync start at 7, 28, 49... minutes; from 01:00 on, 7 of its 10 remain.
    const later = await json(['workflow', 'beta-sync', '--since', '2026-03-01T01:00:00Z']);
    assert.equal(later.workflow.uuid, wf.uuid);
    assert.equal(later.workflow.executionCount, 7);
    const text = await runCli(['workflow', 'beta-sync'], env());
    assert.match(text.stdout, /^beta-sync {2}ACTIVE/);
    assert.match(text.stdout, /latest deploy\s+ACTIVE/);
  });

  it('exits 4 for an unknown workflow, whether named by uuid or by name', async () => {
    await seed();
    const byUuid = await runCli(['workflow', '00000000-0000-4000-8000-000000000000'], env());
    assert.equal(byUuid.code, 4);
    assert.equal(
      byUuid.stderr,
      'wfapi: no workflow 00000000-0000-4000-8000-000000000000 (or it is not visible to this API key)\n',
    );
    const byName = await runCli(['deployments', 'no-such-flow'], env());
    assert.equal(byName.code, 4);
    assert.match(byName.stderr, /no workflow named "no-such-flow"/);
  });

  it('lists the deployments of a workflow, newest first', async () => {
    await seed();
    const deployments = await json(['deployments', 'gamma-report']);
    assert.deepEqual(
      deployments.map((d: { status: string }) => d.status),
      ['ACTIVE', 'FAILED'],
    );
    const text = await runCli(['deployments', data.workflows[2]!.uuid as string], env());
    assert.match(text.stdout, /FAILED .*binary rejected/);
    // Each deployment with its verdict (too few executions on either side here), then the count.
    assert.match(text.stdout, /ACTIVE .* INSUFFICIENT_DATA /);
    assert.match(text.stdout, /\n2 deployments\n/);
  });

  it('lists executions newest first with every filter and a limit', async () => {
    await seed();
    const failures = await json([
      'executions',
      '--workflow',
      'alpha-feed',
      '--status',
      'FAILURE',
      '--since',
      '2026-03-01T00:00:00Z',
      '--until',
      '2026-03-01T03:00:00Z',
    ]);
    const expected = data.executions
      .filter((e) => e.workflowUUID === data.workflows[0]!.uuid && e.status === 'FAILURE')
      .filter((e) => (e.startedAt as string) <= '2026-03-01T03:00:00.000Z')
      .map((e) => e.uuid)
      .reverse();
    assert.ok(expected.length > 0);
    assert.deepEqual(
      failures.map((e: { uuid: string }) => e.uuid),
      expected,
    );
    const text = await runCli(['executions', '--limit', '4', '--search', 'gamma'], env());
    const lines = text.stdout.trim().split('\n');
    assert.match(lines[0]!, /^STARTED\s+UUID\s+WORKFLOW\s+STATUS\s+DURATION\s+CREDIT\s+ERROR$/);
    assert.equal(lines.length, 6);
    assert.equal(lines.at(-1), 'showing 4 of 10 executions (raise --limit to see more)');
    const inverted = await runCli(['executions', '--since', '1d', '--until', '2d'], env());
    assert.equal(inverted.code, 2);
    assert.match(inverted.stderr, /invalid request: from must not be later than to/);
  });

  it('shows an execution at a glance: summary, errors, timeline and logs by time and node', async () => {
    await seed();
    const failed = data.executions[3]!;
    const result = await runCli(['execution', failed.uuid as string], env());
    assert.equal(result.code, 0, result.stderr);
    const out = result.stdout;
    assert.match(out, new RegExp(`^Execution ${failed.uuid} {2}FAILURE \\(USER_ERROR\\)`));
    assert.match(out, /finished\s+2026-03-01 00:21:08Z {2}\(8s\)/);
    assert.match(
      out,
      /Errors\n {2}✗ [0-9a-f]{16} {2}http fetch returned 502 \(reported by 2 nodes\)\n {2}✗ [0-9a-f]{16} {2}http-fetch@2\.1\.0: upstream 502 \(reported by 2 nodes\)\n/,
    );
    const timeline = out.slice(out.indexOf('Capability timeline'), out.indexOf('\nLogs'));
    const bars = timeline.split('\n').filter((line) => line.includes('│'));
    assert.deepEqual(
      bars.map((line) => line.trim().split(' ')[0]),
      ['cron-trigger@1.0.0', 'http-fetch@2.1.0', 'chain-write@1.0.0'],
    );
    assert.match(bars[1]!, /│ +█+ +│ +2\.95s {2}FAILURE {2}upstream 502 \(reported by 2 nodes\)$/);
    assert.match(timeline, /0 +\+4\.9s/);
    const logs = out.slice(out.indexOf('\nLogs')).trim().split('\n').slice(1);
    assert.deepEqual(
      logs.map((line) => line.trim().split(/\s+/).slice(0, 3)),
      [
        ['00:21:00.100', '+100ms', 'node-a'],
        ['00:21:03.100', '+3.1s', 'node-b'],
        ['00:21:04.000', '+4s', 'node-c'],
      ],
    );
    const machine = await json(['execution', failed.uuid as string]);
    assert.equal(machine.execution.uuid, failed.uuid);
    assert.equal(machine.events.length, 3);
    assert.equal(machine.logs.length, 3);
  });

  it('shows a message several nodes logged once with their number, every line with --all-nodes, and fits the width', async () => {
    tenant = await createTenant(ctx.db);
    const wf = workflow(tenant.organizationId);
    const run = execution(tenant.organizationId, wf.uuid as string, {
      status: 'FAILURE',
      startedAt: '2026-03-01T00:00:00Z',
      finishedAt: '2026-03-01T00:00:02Z',
      errors: [{ error: 'index out of range [4] with length 4 in the price aggregation step', count: 4 }],
    });
    const nodes = [
      '12D3KooWAaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1',
      '12D3KooWBbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2',
    ];
    const line = (nodeID: string, ms: number, message: string) =>
      log(tenant.organizationId, run.uuid as string, {
        nodeID,
        message,
        timestamp: new Date(Date.parse('2026-03-01T00:00:00Z') + ms).toISOString(),
      });
    const computed =
      '[USER LOG] fetched ETH/USD from 3 sources: median 1234.5, spread 0.02%, within the 0.5% threshold';
    await ingest(ctx.db, [
      wf,
      run,
      line(nodes[0]!, 100, 'trigger fired'),
      line(nodes[0]!, 200, computed),
      line(nodes[1]!, 250, computed),
      line(nodes[0]!, 900, 'retrying'),
      line(nodes[0]!, 1000, 'retrying'),
    ]);
    const collapsed = await runCli(['execution', run.uuid as string], env());
    assert.equal(collapsed.code, 0, collapsed.stderr);
    assert.match(
      collapsed.stdout,
      /✗ [0-9a-f]{16} {2}index out of range \[4\] with length 4 in the price aggregation step \(reported by 4 nodes\)/,
    );
    const logLines = collapsed.stdout
      .slice(collapsed.stdout.indexOf('\nLogs\n') + 6)
      .trimEnd()
      .split('\n');
    assert.equal(
      logLines.pop(),
      '  (5 lines from 2 nodes; a message logged by several nodes is shown once with their number: --all-nodes shows every line)',
    );
    const fields = (l: string) =>
      l
        .trim()
        .split(/\s{2,}/)
        .slice(1);
    assert.deepEqual(logLines.map(fields), [
      ['+100ms', '12D3…aaaaa1', 'trigger fired'],
      ['+200ms', '2 nodes', computed],
      ['+900ms', '12D3…aaaaa1', 'retrying'],
      ['+1s', '12D3…aaaaa1', 'retrying'],
    ]);
    const expanded = await runCli(['execution', run.uuid as string, '--all-nodes'], env());
    assert.equal(expanded.stdout.split(computed).length - 1, 2, "each node's line with --all-nodes");
    assert.doesNotMatch(expanded.stdout, /2 nodes|--all-nodes shows/);
    const narrow = await runCli(['execution', run.uuid as string], { ...env(), COLUMNS: '60' });
    const wrapped = narrow.stdout.trimEnd().split('\n');
    const long = wrapped.filter((l) => [...l].length > 60 && !/^id /.test(l));
    assert.deepEqual(long, [], 'every line fits 60 columns (but the 64-character execution id)');
    const continued = wrapped[wrapped.findIndex((l) => l.includes('2 nodes')) + 1]!;
    assert.match(continued, /^ {38}\S/, 'a wrapped message continues under its start');
  });

  it('exits 4 for an unknown execution', async () => {
    await seed();
    const result = await runCli(['execution', '00000000-0000-4000-8000-00000000000f'], env());
    assert.equal(result.code, 4);
    assert.match(result.stderr, /no execution 00000000-0000-4000-8000-00000000000f/);
  });

  it('charts success and failure per bucket, in colour only when asked', async () => {
    await seed();
    const range = ['--since', '2026-03-01T00:00:00Z', '--until', '2026-03-01T03:59:59Z'];
    const machine = await json(['activity', ...range]);
    assert.equal(machine.buckets.length, 4);
    const finished = data.executions.filter((e) => e.status !== 'IN_PROGRESS');
    const ok = finished.filter((e) => e.status === 'SUCCESS').length;
    assert.equal(
      machine.buckets.reduce((n: number, b: { successCount: number }) => n + b.successCount, 0),
      ok,
    );
    const text = await runCli(['activity', ...range], env());
    assert.match(text.stdout, /^all workflows {2}2026-03-01 00:00:00Z to 2026-03-01 03:59:59Z, 1h buckets\n/);
    const rows = text.stdout.split('\n').filter((line) => line.startsWith('2026-03-01 '));
    assert.equal(rows.length, 4);
    for (const [i, row] of rows.entries()) {
      const bucket = machine.buckets[i];
      const rate = bucket.failureCount / (bucket.successCount + bucket.failureCount);
      // Each bucket: the stacked bar, the counts, and its failure rate as a number and a bar.
      const shape = new RegExp(
        `^2026-03-01 0${i}:00 {2}█+▒* +${bucket.successCount} ok {2}${bucket.failureCount} failed +${(rate * 100).toFixed(1)}% ■*$`,
      );
      assert.match(row, shape);
    }
    assert.doesNotMatch(text.stdout, /so far/, 'every bucket of a past range is complete');
    assert.ok(text.stdout.includes(`${finished.length} finished: ${ok} ok, ${finished.length - ok} failed`));
    assert.match(
      text.stdout,
      /\n■ failure rate of the bucket \(failed of finished\), the longest bar \d+\.\d%\n?$/,
    );
    const current = await runCli(['activity', '--since', '3h'], env());
    const lastRow = current.stdout
      .split('\n')
      .filter((line) => /^\d{4}-/.test(line))
      .at(-1)!;
    assert.match(lastRow, /◔ so far: \S+( \S+)? of 1h$/, 'the bucket still filling up is marked');
    const coloured = await runCli(['activity', ...range], { ...env(), FORCE_COLOR: '1' });
    assert.ok(coloured.stdout.includes(`${ESC}32m█`));
    const plain = await runCli(['activity', ...range], { ...env(), FORCE_COLOR: '1', NO_COLOR: '1' });
    assert.ok(!plain.stdout.includes(ESC));
  });
});
