import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, adminGql } from '../admin/admin-request.js';
import { type Alertmanager, startAlertmanager } from '../harness/alertmanager.js';
import { requireEngine } from '../harness/engines.js';
import { eventuallyRead } from '../harness/eventually.js';
import { execution, ingest } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { deliveriesWhen, REDELIVER, tenantWithRule } from './alerts-request.js';

/** The configuration the README shows, with a receiver that sends nowhere. */
const CONFIG = `route:
  receiver: 'null'
receivers:
  - name: 'null'
`;

interface AmAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  status: { state: string };
  startsAt: string;
  endsAt: string;
}

/** Short, so that a firing alert's endsAt (four of these after each post) passes within the test. */
const RESEND_MS = 500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const needsAlertmanager = await requireEngine('alertmanager');
describe('the ALERTMANAGER target, against a real Alertmanager', needsAlertmanager, () => {
  const ctx = useServer({
    adminToken: ADMIN_TOKEN,
    alerts: { allowPrivate: true, pollMs: 50, evaluateMs: 100, retryBaseMs: 200, resendMs: RESEND_MS },
  });
  let alertmanager: Alertmanager;
  let amUrl: string;
  before(async () => {
    alertmanager = await startAlertmanager(CONFIG);
    amUrl = alertmanager.url;
  });
  after(() => alertmanager?.close());

  async function alertsOf(ruleId: string): Promise<AmAlert[]> {
    const alerts = (await (await fetch(`${amUrl}/api/v2/alerts`)).json()) as AmAlert[];
    return alerts.filter((alert) => alert.labels.rule === ruleId);
  }

  /** A tenant with one workflow and a FAILURE_RATE rule (half failing within an hour) posting to Alertmanager. */
  const failureRateRule = (name: string, extra: Record<string, unknown> = {}) =>
    tenantWithRule(ctx.db, ctx.server.url, (workflowUuid) => ({
      name,
      condition: 'FAILURE_RATE',
      workflowUUID: workflowUuid,
      threshold: 0.5,
      window: '1h',
      target: 'ALERTMANAGER',
      url: amUrl,
      ...extra,
    }));

  const until = <T>(read: () => Promise<T>, done: (value: T) => boolean, what: string) =>
    eventuallyRead(read, done, what, { timeoutMs: 15_000, everyMs: 100 });

  it('receives a FAILURE_RATE alert with its labels, then its resolution', async () => {
    const { tenant, workflowUuid, rule, secret } = await failureRateRule('HighFailureRate', {
      severity: 'critical',
    });
    assert.equal(secret, null);
    const run = (status: string) =>
      execution(tenant.organizationId, workflowUuid, { status, startedAt: new Date().toISOString() });

    await ingest(ctx.db, [run('FAILURE'), run('FAILURE'), run('SUCCESS')]);
    const [firing] = await until(
      () => alertsOf(rule.id),
      (a) => a.length === 1,
      'no firing alert',
    );
    assert.deepEqual(firing!.labels, {
      alertname: 'HighFailureRate',
      organization: tenant.organizationId,
      workflow: workflowUuid,
      severity: 'critical',
      rule: rule.id,
    });
    assert.equal(firing!.status.state, 'active');
    assert.match(firing!.annotations.description!, /failure rate 66\.7% \(2 of 3\)/);
    assert.ok(Date.parse(firing!.endsAt) > Date.now(), 'a firing alert ends in the future');

    await ingest(ctx.db, [run('SUCCESS'), run('SUCCESS'), run('SUCCESS')]);
    // Alertmanager lists only alerts that have not ended: a resolved one leaves the list.
    await until(
      () => alertsOf(rule.id),
      (a) => a.length === 0,
      'the alert was not resolved',
    );
    const deliveries = await deliveriesWhen(ctx.server.url, tenant.organizationId, (d) =>
      d.every((delivery: { status: string }) => delivery.status === 'DELIVERED'),
    );
    assert.deepEqual(
      deliveries.map((d: { type: string }) => d.type),
      ['failure_rate.resolved', 'failure_rate.firing'],
    );
    assert.equal(deliveries[0].payload.data.startsAt, deliveries[1].payload.data.startsAt);
  });

  it('keeps a firing alert active past the endsAt of its first post by posting it again every WFAPI_ALERTS_RESEND_MS, then resolves it when the condition clears', async () => {
    const { tenant, workflowUuid, rule } = await failureRateRule('StillFailing');
    const run = (status: string) =>
      execution(tenant.organizationId, workflowUuid, { status, startedAt: new Date().toISOString() });
    await ingest(ctx.db, [run('FAILURE'), run('FAILURE')]);
    const [first] = await until(
      () => alertsOf(rule.id),
      (a) => a.length === 1,
      'no firing alert',
    );
    const firstEndsAt = Date.parse(first!.endsAt);
    // Each post ends four re-send intervals after it was sent.
    assert.ok(firstEndsAt - Date.now() <= 4 * RESEND_MS, `endsAt ${first!.endsAt} is too far ahead`);

    // Past the first post's endsAt: Alertmanager would have resolved an alert nobody re-sent.
    await sleep(firstEndsAt - Date.now() + RESEND_MS);
    const [still] = await alertsOf(rule.id);
    assert.ok(still, 'the alert was resolved while its condition still held');
    assert.equal(still.status.state, 'active');
    assert.equal(still.startsAt, first!.startsAt);
    assert.ok(Date.parse(still.endsAt) > firstEndsAt + RESEND_MS, `endsAt ${still.endsAt} did not move on`);
    const [firing] = await deliveriesWhen(
      ctx.server.url,
      tenant.organizationId,
      (d) => d[0]?.status === 'DELIVERED',
    );
    assert.equal(firing.type, 'failure_rate.firing');
    // Each post is a delivery attempt; a re-send starts a new post, counted from 1.
    assert.equal(firing.attempts, 1);
    assert.ok(Date.parse(firing.deliveredAt) > Date.parse(firing.createdAt) + RESEND_MS, 'never re-sent');

    await ingest(ctx.db, [run('SUCCESS'), run('SUCCESS'), run('SUCCESS')]);
    await until(
      () => alertsOf(rule.id),
      (a) => a.length === 0,
      'the alert was not resolved',
    );
  });

  it('leaves a resolved alert resolved when its firing post goes out after the resolution (a retry or a redelivery)', async () => {
    const { tenant, workflowUuid, rule } = await failureRateRule('LateFiringPost');
    const run = (status: string) =>
      execution(tenant.organizationId, workflowUuid, { status, startedAt: new Date().toISOString() });
    await ingest(ctx.db, [run('FAILURE'), run('FAILURE')]);
    await until(
      () => alertsOf(rule.id),
      (a) => a.length === 1,
      'no firing alert',
    );
    await ingest(ctx.db, [run('SUCCESS'), run('SUCCESS'), run('SUCCESS')]);
    await until(
      () => alertsOf(rule.id),
      (a) => a.length === 0,
      'the alert was not resolved',
    );
    const delivered = await deliveriesWhen(
      ctx.server.url,
      tenant.organizationId,
      (d) => d.length === 2 && d.every((delivery: { status: string }) => delivery.status === 'DELIVERED'),
    );
    const firing = delivered.find((d: { type: string }) => d.type === 'failure_rate.firing');

    // The firing post again, after the resolution: it used to reopen the alert for four re-send intervals.
    const again = await adminGql(ctx.server.url, REDELIVER, { input: { id: firing.id } });
    assert.equal(again.body.data.redeliverWebhook.status, 'PENDING');
    await deliveriesWhen(ctx.server.url, tenant.organizationId, (d) => {
      const post = d.find((delivery: { id: string }) => delivery.id === firing.id);
      return post.status === 'DELIVERED' && Date.parse(post.deliveredAt) > Date.parse(firing.deliveredAt);
    });
    assert.deepEqual(await alertsOf(rule.id), [], 'the late firing post reopened the resolved alert');
  });
});
