import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { evaluateDueRules } from '../../src/alerts/rule-timer.js';
import { ADMIN_TOKEN, adminGql } from '../admin/admin-request.js';
import { type Alertmanager, startAlertmanager } from '../harness/alertmanager.js';
import { requireEngine } from '../harness/engines.js';
import { eventuallyRead } from '../harness/eventually.js';
import { execution, ingest, type Tenant } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { DAY, HOUR, iso, MINUTE, timeText } from '../insight/reference.js';
import { deliveriesWhen, tenantWithRule } from './alerts-request.js';
import { type Receiver, startReceiver } from './receiver.js';

const WEEK = 7 * DAY;
/** Long: a firing alert stays active in Alertmanager for the whole test. */
const RESEND_MS = 60_000;
/** The timer's settings when the test evaluates rules itself, at instants it chooses. */
const TIMER = { evaluateMs: 1000, resendMs: RESEND_MS };

const needsAlertmanager = await requireEngine('alertmanager');

describe('the ANOMALY alert condition', () => {
  // The server's own timer waits an hour between evaluations: the test evaluates at the instants
  // it chooses (an injected clock), and the server's worker delivers what that queued.
  const ctx = useServer({
    adminToken: ADMIN_TOKEN,
    alerts: { allowPrivate: true, pollMs: 50, retryBaseMs: 200, evaluateMs: 3_600_000, resendMs: RESEND_MS },
  });
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
  });

  /** An hour boundary two days back: the anomalous hour ends there, the normal one follows. */
  const H = Math.floor(Date.now() / HOUR) * HOUR - 2 * DAY;

  /** `n` executions of the workflow started at `at` (one a second). */
  const runs = (t: Tenant, wf: string, at: number, n: number) =>
    Array.from({ length: n }, (_, i) =>
      execution(t.organizationId, wf, {
        startedAt: iso(at + i * 1000),
        finishedAt: iso(at + i * 1000 + 500),
      }),
    );

  /** Two executions in each hour of the four weeks before; fifty in [H - 1h, H), two in [H, H + 1h). */
  async function history(t: Tenant, wf: string) {
    const records = [];
    for (let k = 1; k <= 4; k++) {
      records.push(...runs(t, wf, H - HOUR - k * WEEK + MINUTE, 2), ...runs(t, wf, H - k * WEEK + MINUTE, 2));
    }
    records.push(...runs(t, wf, H - HOUR + MINUTE, 50), ...runs(t, wf, H + MINUTE, 2));
    await ingest(ctx.db, records);
  }

  it('refuses an ANOMALY rule without a metric, with an unknown one, or with a sensitivity outside 1..10', async () => {
    const base = { name: 'odd', condition: 'ANOMALY', target: 'WEBHOOK', url: receiver.url };
    const refusal = async (input: Record<string, unknown>) => {
      const { tenant } = await tenantWithRule(ctx.db, ctx.server.url, () => ({
        ...base,
        metric: 'EXECUTIONS',
      }));
      const answer = await adminGql(
        ctx.server.url,
        `mutation($input: CreateAlertRuleInput!) { createAlertRule(input: $input) { rule { id } } }`,
        { input: { organizationId: tenant.organizationId, ...input } },
      );
      return answer.body.errors?.[0]?.message as string;
    };
    assert.match(await refusal(base), /metric is required by ANOMALY/);
    assert.match(await refusal({ ...base, metric: 'LATENCY' }), /metric must be one of/);
    assert.match(
      await refusal({ ...base, metric: 'EXECUTIONS', sensitivity: 0 }),
      /sensitivity must be between 1 and 10/,
    );
    assert.match(
      await refusal({
        ...base,
        condition: 'FAILURE_RATE',
        threshold: 0.5,
        window: '1h',
        metric: 'EXECUTIONS',
      }),
      /metric applies only to ANOMALY/,
    );
  });

  it('posts a signed webhook when a completed hour is anomalous, once, and its resolution after the next normal hour', async () => {
    receiver.received.length = 0;
    const { tenant, workflowUuid, rule, secret } = await tenantWithRule(ctx.db, ctx.server.url, (wf) => ({
      name: 'unusual-traffic',
      condition: 'ANOMALY',
      metric: 'EXECUTIONS',
      workflowUUID: wf,
      sensitivity: 3,
      target: 'WEBHOOK',
      url: receiver.url,
    }));
    receiver.secret = secret ?? undefined;
    await history(tenant, workflowUuid);
    // During [H - 1h, H) nothing has completed that is unusual: [H - 2h, H - 1h) had nothing, as before.
    assert.equal(await evaluateDueRules(ctx.db, TIMER, H - 10 * MINUTE), 0);
    // Five minutes after the busy hour ended.
    assert.equal(await evaluateDueRules(ctx.db, TIMER, H + 5 * MINUTE), 1);
    const [firing] = await receiver.waitFor(1);
    assert.equal(firing!.verified, true);
    assert.equal(firing!.json.type, 'anomaly.firing');
    const data = firing!.json.data;
    assert.deepEqual(
      [
        data.rule.id,
        data.workflowUUID,
        data.metric,
        data.from,
        data.to,
        data.observed,
        data.expected,
        data.direction,
      ],
      [rule.id, workflowUuid, 'EXECUTIONS', timeText(H - HOUR), timeText(H), 50, 2, 'UP'],
    );
    assert.equal(data.upper, 5);
    assert.equal(data.score, 48);
    // Evaluated again within the same hour: still firing, nothing new to send.
    assert.equal(await evaluateDueRules(ctx.db, TIMER, H + 20 * MINUTE), 0);
    // The next hour was normal: resolved once it has ended.
    assert.equal(await evaluateDueRules(ctx.db, TIMER, H + HOUR + 5 * MINUTE), 1);
    const [, resolved] = await receiver.waitFor(2);
    assert.equal(resolved!.verified, true);
    assert.equal(resolved!.json.type, 'anomaly.resolved');
    assert.equal(resolved!.json.data.startsAt, data.startsAt);
    assert.deepEqual([resolved!.json.data.from, resolved!.json.data.observed], [timeText(H), 2]);
    const deliveries = await deliveriesWhen(ctx.server.url, tenant.organizationId, (d) =>
      d.every((delivery: { status: string }) => delivery.status === 'DELIVERED'),
    );
    assert.deepEqual(
      deliveries.map((d: { type: string }) => d.type),
      ['anomaly.resolved', 'anomaly.firing'],
    );
    // The rule says what it watches, and changes like any other.
    const changed = await adminGql(
      ctx.server.url,
      `mutation($input: UpdateAlertRuleInput!) { updateAlertRule(input: $input) { id metric sensitivity firing } }`,
      { input: { id: rule.id, metric: 'FAILURE_RATE', sensitivity: 4 } },
    );
    assert.deepEqual(changed.body.data.updateAlertRule, {
      id: rule.id,
      metric: 'FAILURE_RATE',
      sensitivity: 4,
      firing: false,
    });
  });

  describe('against a real Alertmanager', needsAlertmanager, () => {
    let alertmanager: Alertmanager;
    let amUrl: string;
    before(async () => {
      alertmanager = await startAlertmanager();
      amUrl = alertmanager.url;
    });
    after(() => alertmanager?.close());

    const until = <T>(read: () => Promise<T>, done: (value: T) => boolean, what: string) =>
      eventuallyRead(read, done, what, { timeoutMs: 20_000, everyMs: 100 });

    interface AmAlert {
      labels: Record<string, string>;
      annotations: Record<string, string>;
      status: { state: string };
    }

    it("raises an alert for the organization's anomalous hour and resolves it after a normal one", async () => {
      const { tenant, workflowUuid, rule } = await tenantWithRule(ctx.db, ctx.server.url, () => ({
        name: 'OrganizationTraffic',
        condition: 'ANOMALY',
        metric: 'EXECUTIONS',
        target: 'ALERTMANAGER',
        url: amUrl,
        severity: 'critical',
      }));
      await history(tenant, workflowUuid);
      const alertsOf = async () =>
        ((await (await fetch(`${amUrl}/api/v2/alerts`)).json()) as AmAlert[]).filter(
          (alert) => alert.labels.rule === rule.id,
        );
      assert.equal(await evaluateDueRules(ctx.db, TIMER, H + 5 * MINUTE), 1);
      const [firing] = await until(alertsOf, (a) => a.length === 1, 'no firing alert');
      assert.deepEqual(firing!.labels, {
        alertname: 'OrganizationTraffic',
        organization: tenant.organizationId,
        workflow: 'all',
        severity: 'critical',
        rule: rule.id,
      });
      assert.equal(firing!.status.state, 'active');
      assert.match(
        firing!.annotations.description!,
        /EXECUTIONS of the organization .*: 50, expected 2 \(0 to 5\)/,
      );
      assert.equal(await evaluateDueRules(ctx.db, TIMER, H + HOUR + 5 * MINUTE), 1);
      await until(alertsOf, (a) => a.length === 0, 'the alert was not resolved');
    });
  });
});
