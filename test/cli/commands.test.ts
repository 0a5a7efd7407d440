import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import { runCli } from '../harness/cli.js';
import { type Dataset, seedDataset } from '../harness/dataset.js';
import { createTenant, type Tenant } from '../harness/fixtures.js';
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
    assert.match(lines[0]!, /^NAME\s+UUID\s+STATUS\s+EXECUTIONS\s+OK\s+FAILED\s+CREDIT\s+LAST EXECUTION$/);
    assert.equal(lines.length, 5);
    assert.equal(lines.at(-1), '3 workflows');
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
    assert.match(text.stdout, /2 deployments\n$/);
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
    assert.match(out, /Errors\n {2}✗ http fetch returned 502 ×2\n/);
    const timeline = out.slice(out.indexOf('Capability timeline'), out.indexOf('\nLogs'));
    const bars = timeline.split('\n').filter((line) => line.includes('│'));
    assert.deepEqual(
      bars.map((line) => line.trim().split(' ')[0]),
      ['cron-trigger@1.0.0', 'http-fetch@2.1.0', 'chain-write@1.0.0'],
    );
    assert.match(bars[1]!, /│ +█+ +│ +2\.95s {2}FAILURE {2}upstream 502 ×2$/);
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
    assert.match(text.stdout, /\n2026-03-01 00:00 {2}█+▒+ +\d+ ok {2}\d+ failed\n/);
    assert.ok(text.stdout.includes(`${finished.length} finished: ${ok} ok, ${finished.length - ok} failed`));
    const coloured = await runCli(['activity', ...range], { ...env(), FORCE_COLOR: '1' });
    assert.ok(coloured.stdout.includes(`${ESC}32m█`));
    const plain = await runCli(['activity', ...range], { ...env(), FORCE_COLOR: '1', NO_COLOR: '1' });
    assert.ok(!plain.stdout.includes(ESC));
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
