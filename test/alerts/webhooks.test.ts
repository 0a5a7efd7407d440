import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, adminGql } from '../admin/admin-request.js';
import { eventually } from '../harness/eventually.js';
import { createTenant, execution, ingest, workflow } from '../harness/fixtures.js';
import type { TestServer } from '../harness/server.js';
import { useServer } from '../harness/suite.js';
import {
  ALERT_RULES,
  CREATE_ALERT_RULE,
  DELETE_ALERT_RULE,
  DELIVERIES,
  deliveriesWhen,
  REDELIVER,
  tenantWithRule,
  UPDATE_ALERT_RULE,
} from './alerts-request.js';
import { type Receiver, startReceiver } from './receiver.js';

const now = () => new Date().toISOString();

describe('alert rules with signed webhooks', () => {
  const ctx = useServer({
    adminToken: ADMIN_TOKEN,
    alerts: { allowPrivate: true, pollMs: 50, retryBaseMs: 200, evaluateMs: 200 },
  });
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
  });
  const admin = (query: string, variables?: Record<string, unknown>) =>
    adminGql(ctx.server.url, query, variables);

  /** A tenant with one workflow and a webhook rule posting to the receiver. */
  async function setup(rule: Record<string, unknown> = {}) {
    receiver.received.length = 0;
    receiver.answers = [];
    const created = await tenantWithRule(ctx.db, ctx.server.url, (workflowUuid) => ({
      name: 'failures',
      condition: 'EXECUTION_FAILED',
      target: 'WEBHOOK',
      url: receiver.url,
      // A dead man's switch watches one workflow: this one.
      ...(rule.condition === 'NO_EXECUTIONS' ? { workflowUUID: workflowUuid } : {}),
      ...rule,
    }));
    receiver.secret = created.secret ?? undefined;
    return { ...created, secret: created.secret as string };
  }

  it('shows the signing secret once, in the create answer, and never in the rule list', async () => {
    const { tenant, rule, secret } = await setup();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(rule.enabled, true);
    assert.equal(rule.severity, 'warning');
    const list = await admin(ALERT_RULES, { input: { organizationId: tenant.organizationId } });
    assert.deepEqual(
      list.body.data.alertRules.map((r: { id: string }) => r.id),
      [rule.id],
    );
    assert.doesNotMatch(JSON.stringify(list.body), /whsec_/);
    const stored = await ctx.db.query<{ secret_box: Uint8Array }>('select secret_box from alert_rules');
    assert.doesNotMatch(Buffer.from(stored[0]!.secret_box).toString('latin1'), /whsec_/);
  });

  it('posts a failed execution signed as the standardwebhooks package verifies it, with section 1 field names', async () => {
    const { tenant, workflowUuid, rule } = await setup();
    const failed = execution(tenant.organizationId, workflowUuid, {
      status: 'FAILURE',
      startedAt: now(),
      errors: [{ error: 'boom', count: 1 }],
    });
    await ingest(ctx.db, [failed]);
    const [request] = await receiver.waitFor(1);
    assert.equal(request!.verified, true);
    assert.match(request!.headers['webhook-signature']!, /^v1,[A-Za-z0-9+/]+=*$/);
    assert.equal(request!.json.type, 'execution.failed');
    assert.match(request!.json.timestamp, /Z$/);
    assert.equal(request!.json.data.rule.id, rule.id);
    assert.equal(request!.json.data.execution.uuid, failed.uuid);
    assert.equal(request!.json.data.execution.workflowUUID, workflowUuid);
    assert.equal(request!.json.data.execution.workflowName, 'price-feed');
    assert.equal(request!.json.data.execution.status, 'FAILURE');
    const deliveries = await deliveriesWhen(
      ctx.server.url,
      tenant.organizationId,
      (d) => d[0]?.status === 'DELIVERED',
    );
    assert.equal(deliveries[0].id, request!.headers['webhook-id']);
    assert.equal(deliveries[0].responseStatus, 200);
    assert.equal(deliveries[0].attempts, 1);
  });

  it('makes one delivery of a failure sent twice, and none for a success', async () => {
    const { tenant, workflowUuid } = await setup();
    const failed = execution(tenant.organizationId, workflowUuid, { status: 'FAILURE', startedAt: now() });
    await ingest(ctx.db, [failed]);
    await ingest(ctx.db, [failed, execution(tenant.organizationId, workflowUuid, { startedAt: now() })]);
    await ingest(ctx.db, [{ ...failed, finishedAt: now() }]);
    await receiver.waitFor(1);
    // Ingestion writes its deliveries to the outbox as it commits: one row, sent once, is all
    // there will ever be to post.
    await deliveriesWhen(ctx.server.url, tenant.organizationId, (d) => d[0]?.status === 'DELIVERED');
    const rows = await ctx.db.query<{ status: string; attempts: number }>(
      'select status, attempts from webhook_deliveries',
    );
    assert.deepEqual(rows, [{ status: 'DELIVERED', attempts: 1 }]);
    assert.equal(receiver.received.length, 1);
  });

  it('retries after a 500 with the same webhook-id, then records the delivery', async () => {
    const { tenant, workflowUuid } = await setup();
    receiver.answers = [500];
    await ingest(ctx.db, [
      execution(tenant.organizationId, workflowUuid, { status: 'FAILURE', startedAt: now() }),
    ]);
    const [first, second] = await receiver.waitFor(2);
    assert.equal(first!.headers['webhook-id'], second!.headers['webhook-id']);
    assert.equal(second!.verified, true);
    const [delivery] = await deliveriesWhen(
      ctx.server.url,
      tenant.organizationId,
      (d) => d[0]?.status === 'DELIVERED',
    );
    assert.equal(delivery.attempts, 2);
    assert.equal(delivery.responseStatus, 200);
  });

  it('disables the rule when the receiver answers 410, and a redelivery after re-enabling keeps the webhook-id', async () => {
    const { tenant, workflowUuid, rule } = await setup();
    receiver.answers = [410];
    await ingest(ctx.db, [
      execution(tenant.organizationId, workflowUuid, { status: 'FAILURE', startedAt: now() }),
    ]);
    const [delivery] = await deliveriesWhen(
      ctx.server.url,
      tenant.organizationId,
      (d) => d[0]?.status === 'FAILED',
    );
    assert.equal(delivery.responseStatus, 410);
    const rules = await admin(ALERT_RULES, { input: { organizationId: tenant.organizationId } });
    assert.equal(rules.body.data.alertRules[0].enabled, false);
    assert.match(rules.body.data.alertRules[0].disabledReason, /410/);
    // Disabled: a new failure queues nothing.
    await ingest(ctx.db, [
      execution(tenant.organizationId, workflowUuid, { status: 'FAILURE', startedAt: now() }),
    ]);
    assert.equal((await ctx.db.query('select id from webhook_deliveries')).length, 1);
    const enabled = await admin(UPDATE_ALERT_RULE, { input: { id: rule.id, enabled: true } });
    assert.equal(enabled.body.data.updateAlertRule.disabledReason, null);
    const again = await admin(REDELIVER, { input: { id: delivery.id } });
    assert.equal(again.body.data.redeliverWebhook.status, 'PENDING');
    const received = await receiver.waitFor(2);
    assert.equal(received[1]!.headers['webhook-id'], delivery.id);
    await deliveriesWhen(ctx.server.url, tenant.organizationId, (d) => d[0]?.status === 'DELIVERED');
  });

  it('posts the first occurrence of an error fingerprint once', async () => {
    const { tenant, workflowUuid } = await setup({ condition: 'NEW_ERROR_GROUP', name: 'new errors' });
    const failing = (n: number) =>
      execution(tenant.organizationId, workflowUuid, {
        status: 'FAILURE',
        startedAt: now(),
        errors: [{ error: `index out of range [${n}] with length ${n}`, count: 1 }],
      });
    await ingest(ctx.db, [failing(7)]);
    await ingest(ctx.db, [failing(12)]);
    const [request] = await receiver.waitFor(1);
    assert.equal(request!.json.type, 'error_group.new');
    assert.match(request!.json.data.fingerprint, /\S/);
    // The outbox holds everything ingestion queued: one delivery, sent once.
    await deliveriesWhen(ctx.server.url, tenant.organizationId, (d) => d[0]?.status === 'DELIVERED');
    const rows = await ctx.db.query<{ status: string; attempts: number }>(
      'select status, attempts from webhook_deliveries',
    );
    assert.deepEqual(rows, [{ status: 'DELIVERED', attempts: 1 }]);
    assert.equal(receiver.received.length, 1);
  });

  it('posts a FAILURE_RATE rule firing when crossed and resolving when back under', async () => {
    const { tenant, workflowUuid } = await setup({
      condition: 'FAILURE_RATE',
      threshold: 0.5,
      window: '1h',
      minExecutions: 2,
    });
    const run = (status: string) =>
      execution(tenant.organizationId, workflowUuid, { status, startedAt: now() });
    await ingest(ctx.db, [run('FAILURE'), run('FAILURE'), run('SUCCESS')]);
    const [firing] = await receiver.waitFor(1);
    assert.equal(firing!.json.type, 'failure_rate.firing');
    assert.equal(firing!.json.data.failureCount, 2);
    assert.equal(firing!.json.data.executionCount, 3);
    await ingest(ctx.db, [run('SUCCESS'), run('SUCCESS')]);
    const [, resolved] = await receiver.waitFor(2);
    assert.equal(resolved!.json.type, 'failure_rate.resolved');
    assert.equal(resolved!.json.data.startsAt, firing!.json.data.startsAt);
    assert.equal(resolved!.verified, true);
  });

  it('posts a NO_EXECUTIONS rule firing when the workflow is silent for its period, and resolving with the next execution', async () => {
    const { tenant, workflowUuid, rule } = await setup({ condition: 'NO_EXECUTIONS', for: '1m' });
    // Once the timer has judged the new rule, silent for less than its period: nothing queued.
    await eventually(async () => {
      const [row] = await ctx.db.query<{ evaluated_at: Date | null }>(
        'select evaluated_at from alert_rules where id = $1',
        [rule.id],
      );
      return row?.evaluated_at;
    }, 'the rule timer never evaluated the new rule');
    assert.deepEqual(
      await ctx.db.query('select id from webhook_deliveries'),
      [],
      'a new rule waits one full period',
    );
    assert.equal(receiver.received.length, 0);
    // As if the rule had been created two minutes ago, with nothing since.
    await ctx.db.query(`update alert_rules set created_at = now() - interval '2 minutes' where id = $1`, [
      rule.id,
    ]);
    const [firing] = await receiver.waitFor(1);
    assert.equal(firing!.json.type, 'no_executions.firing');
    assert.equal(firing!.json.data.workflowUUID, workflowUuid);
    await ingest(ctx.db, [execution(tenant.organizationId, workflowUuid, { startedAt: now() })]);
    const [, resolved] = await receiver.waitFor(2);
    assert.equal(resolved!.json.type, 'no_executions.resolved');
  });

  it("keeps one organization's rules and deliveries out of another's lists", async () => {
    const { tenant } = await setup();
    const other = await createTenant(ctx.db, 'Other');
    await ingest(ctx.db, [
      execution(
        tenant.organizationId,
        (await ctx.db.query<{ uuid: string }>('select uuid from workflows'))[0]!.uuid,
        { status: 'FAILURE', startedAt: now() },
      ),
    ]);
    await deliveriesWhen(ctx.server.url, tenant.organizationId, (d) => d.length === 1);
    const rules = await admin(ALERT_RULES, { input: { organizationId: other.organizationId } });
    assert.deepEqual(rules.body.data.alertRules, []);
    const deliveries = await admin(DELIVERIES, { input: { organizationId: other.organizationId } });
    assert.deepEqual(deliveries.body.data.webhookDeliveries, []);
  });

  it('deletes a rule with its deliveries', async () => {
    const { tenant, rule } = await setup();
    const deleted = await admin(DELETE_ALERT_RULE, { input: { id: rule.id } });
    assert.equal(deleted.body.data.deleteAlertRule.id, rule.id);
    const list = await admin(ALERT_RULES, { input: { organizationId: tenant.organizationId } });
    assert.deepEqual(list.body.data.alertRules, []);
  });
});

describe('alert rule validation', () => {
  const ctx = useServer({ adminToken: ADMIN_TOKEN });
  let guarded: TestServer;
  before(async () => {
    guarded = ctx.server;
  });
  const refusal = async (input: Record<string, unknown>) => {
    const answer = await adminGql(guarded.url, CREATE_ALERT_RULE, { input });
    assert.equal(answer.body.errors?.[0]?.extensions?.code, 'BAD_USER_INPUT', JSON.stringify(answer.body));
    return answer.body.errors[0].message as string;
  };

  it('refuses an unknown workflow, a threshold out of range, a URL that is not http(s) and a private receiver, naming the field', async () => {
    const tenant = await createTenant(ctx.db);
    const flow = workflow(tenant.organizationId);
    await ingest(ctx.db, [flow]);
    const base = {
      organizationId: tenant.organizationId,
      name: 'r',
      condition: 'EXECUTION_FAILED',
      target: 'WEBHOOK',
      url: 'https://93.184.215.14/hooks',
    };
    assert.match(
      await refusal({ ...base, workflowUUID: '00000000-0000-4000-8000-000000000000' }),
      /workflowUUID/,
    );
    assert.match(
      await refusal({ ...base, condition: 'FAILURE_RATE', threshold: 1.5, window: '15m' }),
      /threshold must be between 0 and 1/,
    );
    assert.match(await refusal({ ...base, condition: 'FAILURE_RATE', threshold: 0.5 }), /window is required/);
    assert.match(await refusal({ ...base, url: 'ftp://example.com/x' }), /url must be an http or https URL/);
    assert.match(await refusal({ ...base, url: 'http://127.0.0.1:9/hooks' }), /url resolves to 127\.0\.0\.1/);
    assert.match(await refusal({ ...base, url: 'http://localhost:9/hooks' }), /url resolves to/);
    assert.match(await refusal({ ...base, url: 'http://[::1]:9/hooks' }), /url resolves to ::1/);
    assert.match(await refusal({ ...base, url: 'http://169.254.169.254/latest' }), /url resolves to/);
    assert.match(await refusal({ ...base, url: 'http://10.1.2.3/x' }), /url resolves to 10\.1\.2\.3/);
    assert.match(
      await refusal({ ...base, condition: 'NO_EXECUTIONS', for: '30m' }),
      /workflowUUID is required/,
    );
    assert.match(await refusal({ ...base, window: '15m' }), /window applies only to FAILURE_RATE/);
    const accepted = await adminGql(guarded.url, CREATE_ALERT_RULE, { input: base });
    assert.equal(accepted.body.errors, undefined);
    const update = await adminGql(guarded.url, UPDATE_ALERT_RULE, {
      input: { id: accepted.body.data.createAlertRule.rule.id, url: 'http://192.168.1.1/x' },
    });
    assert.equal(update.body.errors[0].extensions.code, 'BAD_USER_INPUT');
    assert.match(update.body.errors[0].message, /^url /);
  });
});
