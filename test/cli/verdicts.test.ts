// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { stripVTControlCharacters } from 'node:util';
import { runCli } from '../harness/cli.js';
import { createTenant, deployment, execution, ingest, type Tenant, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { DAY, HOUR, iso, MINUTE } from '../insight/reference.js';

type Raw = Record<string, unknown>;

const T0 = Date.parse('2026-04-06T12:00:00Z');
const WEEK = 7 * DAY;

describe('the wfapi verdict commands: deployments, impact, anomalies', () => {
  const ctx = useServer({ rateLimit: { burst: 1_000_000, perSecond: 1_000_000 } });
  let tenant: Tenant;
  const env = () => ({ WFAPI_URL: ctx.server.url, WFAPI_API_KEY: tenant.key });
  const cli = async (args: string[]) => {
    const result = await runCli(args, env());
    assert.equal(result.code, 0, result.stderr);
    return stripVTControlCharacters(result.stdout);
  };

  /** price-feed: deployed at T0 - 3d (nothing changed) and at T0 (a new error, failures up). */
  async function seed() {
    tenant = await createTenant(ctx.db);
    const wf = workflow(tenant.organizationId, { name: 'price-feed' });
    const uuid = wf.uuid as string;
    const first = deployment(tenant.organizationId, uuid, { deployedAt: iso(T0 - 3 * DAY) });
    const second = deployment(tenant.organizationId, uuid, { deployedAt: iso(T0) });
    const run = (at: number, failed: boolean, error?: string): Raw =>
      execution(tenant.organizationId, uuid, {
        startedAt: iso(at),
        finishedAt: iso(at + 800),
        status: failed ? 'FAILURE' : 'SUCCESS',
        ...(error ? { errors: [{ error, count: 1 }] } : {}),
      });
    const records: Raw[] = [wf, first, second];
    for (let i = 0; i < 60; i++) records.push(run(T0 - 3 * DAY + i * HOUR, i < 2));
    for (let i = 0; i < 60; i++)
      records.push(run(T0 + i * MINUTE, i < 25, i < 25 ? `quote ${i} is stale` : undefined));
    // The four weeks before, two runs in the hour after T0: sixty is an anomaly.
    for (let k = 1; k <= 4; k++) records.push(run(T0 - k * WEEK, false), run(T0 - k * WEEK + MINUTE, false));
    await ingest(ctx.db, records);
    return { uuid, first, second };
  }

  it('shows each deployment with its verdict and changes', async () => {
    const { first, second } = await seed();
    const out = await cli(['deployments', 'price-feed']);
    const lines = out.split('\n');
    const row = (uuid: unknown) => lines.find((line) => line.includes(uuid as string))!;
    assert.match(row(second.uuid), /REGRESSED +3\.\d% → 41\.7%/);
    assert.match(row(first.uuid), /INSUFFICIENT_DATA/);
    assert.match(out, /VERDICT: 7 days after against 7 days before/);
    const json = JSON.parse(await cli(['deployments', 'price-feed', '--json']));
    assert.equal(json[0].uuid, second.uuid);
    assert.equal(json[0].impact.verdict, 'REGRESSED');
    // Filtered lists ask for each deployment's verdict by uuid.
    const filtered = JSON.parse(
      await cli(['deployments', 'price-feed', '--status', 'ACTIVE', '--limit', '1', '--json']),
    );
    assert.deepEqual(
      filtered.map((d: { uuid: string; impact: { verdict: string } }) => [d.uuid, d.impact.verdict]),
      [[second.uuid, 'REGRESSED']],
    );
  });

  it('explains one deployment: both sides, the p-values, new and resolved error groups', async () => {
    const { first } = await seed();
    const out = await cli(['impact', 'price-feed']);
    assert.match(out, /verdict REGRESSED/);
    assert.match(out, /failures +2 \(3\.\d%\) +25 \(41\.7%\) +\+3\d\.\d pts +p = [\d.e-]+ \(Fisher exact\)/);
    assert.match(out, /p50 +800ms +800ms +\+0% +p = 1 \(Mann-Whitney U\)/);
    assert.match(out, /new error groups \(1\)\n.*\n +25 +25 +\S+ +quote <num> is stale/);
    assert.match(out, /resolved error groups none/);
    const older = await cli(['impact', 'price-feed', '--deployment', first.uuid as string]);
    assert.match(older, new RegExp(`deployment ${first.uuid}`));
    assert.match(older, /verdict INSUFFICIENT_DATA/);
    const unknown = await runCli(['impact', 'price-feed', '--deployment', randomUUID()], env());
    assert.equal(unknown.code, 4, unknown.stderr);
    assert.match(unknown.stderr, /deployment not found/);
  });

  it('lists anomalies with a sparkline of observed against expected', async () => {
    const { uuid } = await seed();
    const window = ['--since', iso(T0 - 6 * HOUR), '--until', iso(T0 + 5 * HOUR)];
    const out = await cli(['anomalies', '--workflow', 'price-feed', '--metric', 'executions', ...window]);
    const lines = out.split('\n');
    assert.match(lines[1]!, /^EXECUTIONS +observed [·▁-█]{12}$/);
    assert.match(lines[2]!, /^ +expected [·▁-█]{12}$/);
    // T0's hour is the seventh bucket: the only one marked.
    assert.match(lines[3]!, /^ {23} {6}▲$/);
    assert.match(out, /2026-04-06 12:00:00Z +EXECUTIONS +60 +2 +0 to 5 +58\.0 +▲ up +price-feed/);
    const json = JSON.parse(
      await cli(['anomalies', '--workflow', uuid, '--metric', 'EXECUTIONS', ...window, '--json']),
    );
    assert.equal(json.data.length, 1);
    assert.equal(json.series[0].points.length, 12);
    const wrong = await runCli(['anomalies', '--sensitivity', '20'], env());
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /Expected a number from 1 to 10/);
  });
});
