import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN_TOKEN } from '../admin/admin-request.js';
import { runCli } from '../harness/cli.js';
import { createTenant, execution, ingest, workflow } from '../harness/fixtures.js';
import type { CliResult } from '../harness/process.js';
import { useServer } from '../harness/suite.js';

describe('wfapi slo', () => {
  const ctx = useServer({ adminToken: ADMIN_TOKEN });
  const slo = (args: readonly string[], env: Record<string, string> = {}) =>
    runCli(['slo', ...args], {
      NO_COLOR: '1',
      WFAPI_URL: ctx.server.url,
      WFAPI_ADMIN_TOKEN: ADMIN_TOKEN,
      ...env,
    });
  const ok = (run: CliResult) => {
    assert.equal(run.code, 0, run.stderr);
    return run.stdout;
  };

  it('creates, lists, updates and deletes objectives, shows their status and prints their Prometheus rules', async () => {
    const tenant = await createTenant(ctx.db);
    const flow = workflow(tenant.organizationId, { name: 'settlement' });
    const now = Date.now();
    await ingest(ctx.db, [
      flow,
      ...Array.from({ length: 12 }, (_, i) =>
        execution(tenant.organizationId, flow.uuid as string, {
          status: i < 3 ? 'FAILURE' : 'SUCCESS',
          startedAt: new Date(now - (i + 1) * 60_000).toISOString(),
          finishedAt: new Date(now - (i + 1) * 60_000 + 500).toISOString(),
        }),
      ),
    ]);
    const org = tenant.organizationId;
    const created = JSON.parse(
      ok(
        await slo([
          'create',
          '--org',
          org,
          '--name',
          'settlement availability',
          '--workflow',
          flow.uuid as string,
          '--indicator',
          'SUCCESS',
          '--target',
          '0.99',
          '--json',
        ]),
      ),
    );
    assert.equal(created.periodDays, 28);
    const refused = await slo([
      'create',
      '--org',
      org,
      '--name',
      'x',
      '--indicator',
      'SUCCESS',
      '--target',
      '2',
    ]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /target must be between 0\.5 and 0\.99999/);
    assert.match(
      ok(await slo(['list', '--org', org])),
      /settlement availability\s+\S+\s+success >= 0\.99 over 28d/,
    );
    assert.match(ok(await slo(['update', created.id, '--period-days', '7'])), /over 7d/);

    const status = ok(await slo(['status'], { WFAPI_API_KEY: tenant.key }));
    assert.match(status, /settlement availability\s+settlement\s+PAGE\s+99\.0%\s+75\.0%\s+9\/12/);
    const [level] = JSON.parse(ok(await slo(['status', '--json'], { WFAPI_API_KEY: tenant.key })));
    assert.equal(level.status, 'PAGE');
    assert.equal(level.burnRates.length, 7);

    const rules = ok(await slo(['rules', '--org', org]));
    assert.match(rules, /record: "wfapi_objective:error_ratio:rate5m"/);
    assert.ok(rules.includes(`objective=\\"${created.id}\\"`), rules);
    assert.match(rules, /objective_name: "settlement availability"/);

    assert.match(ok(await slo(['delete', created.id])), /is deleted/);
    assert.match(ok(await slo(['list', '--org', org])), /No service level objectives/);
  });
});
