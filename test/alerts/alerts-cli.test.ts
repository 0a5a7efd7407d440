import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN } from '../admin/admin-request.js';
import { runCli } from '../harness/cli.js';
import { createTenant, execution, ingest, workflow } from '../harness/fixtures.js';
import type { CliResult } from '../harness/process.js';
import { useServer } from '../harness/suite.js';
import { type Receiver, startReceiver } from './receiver.js';

describe('wfapi alerts', () => {
  const ctx = useServer({ adminToken: ADMIN_TOKEN, alerts: { allowPrivate: true, pollMs: 50 } });
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(() => receiver.close());
  const alerts = (args: readonly string[]) =>
    runCli(['alerts', ...args], { NO_COLOR: '1', WFAPI_URL: ctx.server.url, WFAPI_ADMIN_TOKEN: ADMIN_TOKEN });
  const json = (run: CliResult) => {
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout);
  };

  it('creates, lists, updates, shows deliveries of, redelivers and deletes a rule', async () => {
    const tenant = await createTenant(ctx.db);
    const flow = workflow(tenant.organizationId);
    await ingest(ctx.db, [flow]);
    const org = tenant.organizationId;
    const created = await alerts([
      'create',
      '--org',
      org,
      '--name',
      'failures',
      '--condition',
      'EXECUTION_FAILED',
      '--target-url',
      receiver.url,
    ]);
    assert.equal(created.code, 0, created.stderr);
    const secret = /whsec_\S+/.exec(created.stdout)?.[0];
    assert.ok(secret, created.stdout);
    assert.match(created.stdout, /shown this once/);
    receiver.secret = secret;

    const [rule] = json(await alerts(['list', '--org', org, '--json']));
    assert.equal(rule.name, 'failures');
    const updated = await alerts(['update', rule.id, '--name', 'all failures']);
    assert.match(updated.stdout, /all failures/);

    await ingest(ctx.db, [
      execution(org, flow.uuid as string, { status: 'FAILURE', startedAt: new Date().toISOString() }),
    ]);
    const [request] = await receiver.waitFor(1);
    assert.equal(request!.verified, true);
    const table = await alerts(['deliveries', '--org', org]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(
      table.stdout,
      new RegExp(`${request!.headers['webhook-id']}\\s+execution\\.failed\\s+(DELIVERED|PENDING)`),
    );
    const again = await alerts(['redeliver', request!.headers['webhook-id']!]);
    assert.match(again.stdout, /queued again/);
    await receiver.waitFor(2);

    const bad = await alerts([
      'create',
      '--org',
      org,
      '--name',
      'x',
      '--condition',
      'FAILURE_RATE',
      '--threshold',
      '2',
      '--window',
      '5m',
      '--target-url',
      receiver.url,
    ]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /threshold must be between 0 and 1/);

    const deleted = await alerts(['delete', rule.id]);
    assert.match(deleted.stdout, /deleted/);
    assert.deepEqual(json(await alerts(['list', '--org', org, '--json'])), []);
  });
});
