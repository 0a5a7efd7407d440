import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, adminGql } from '../admin/admin-request.js';
import { CREATE_ALERT_RULE } from '../alerts/alerts-request.js';
import { type Receiver, startReceiver } from '../alerts/receiver.js';
import { type Alertmanager, startAlertmanager } from '../harness/alertmanager.js';
import { requireEngine } from '../harness/engines.js';
import { eventuallyRead } from '../harness/eventually.js';
import { createTenant, execution, ingest, type Tenant, workflow } from '../harness/fixtures.js';
import { ManualClock } from '../harness/manual-clock.js';
import { useServer } from '../harness/suite.js';
import { DAY, HOUR, iso, MINUTE } from '../insight/reference.js';
import { assertOneError } from '../read-api/graphql-assertions.js';
import { createObjective } from './objectives-request.js';

const CONFIG = `route:
  receiver: 'null'
receivers:
  - name: 'null'
`;

interface AmAlert {
  labels: Record<string, string>;
  status: { state: string };
}

const needsAlertmanager = await requireEngine('alertmanager');

/**
 * The server's clock is the test's: it starts at the real time (the rule's history grace and
 * Alertmanager's startsAt are the real clock's) and moves a second per step, so that the rule
 * timer (every 100 ms of real time) evaluates each rule once per step at the instant the test set.
 */
describe('SLO_BURN and EXECUTION_STUCK alert rules', needsAlertmanager, () => {
  const clock = new ManualClock(Date.now());
  const ctx = useServer(
    {
      adminToken: ADMIN_TOKEN,
      alerts: { allowPrivate: true, pollMs: 50, evaluateMs: 100, retryBaseMs: 200 },
    },
    { now: clock.read },
  );
  let receiver: Receiver;
  let alertmanager: Alertmanager;
  let amUrl: string;
  before(async () => {
    receiver = await startReceiver();
    alertmanager = await startAlertmanager(CONFIG);
    amUrl = alertmanager.url;
  });
  after(async () => {
    await receiver?.close();
    alertmanager?.close();
  });

  const until = <T>(read: () => Promise<T>, done: (value: T) => boolean, what: string) =>
    eventuallyRead(read, done, what, { everyMs: 50 });

  /** Moves the server's clock a second on and waits until the timer has evaluated every rule at that instant. */
  async function step(): Promise<void> {
    clock.advance(1000);
    const at = new Date(clock.now());
    await until(
      () => ctx.db.query<{ evaluated_at: Date | null }>('select evaluated_at from alert_rules where enabled'),
      (rows) => rows.every((row) => row.evaluated_at !== null && row.evaluated_at.getTime() >= at.getTime()),
      'the rules were not evaluated',
    );
  }

  async function rule(tenant: Tenant, input: Record<string, unknown>) {
    const answer = await adminGql(ctx.server.url, CREATE_ALERT_RULE, {
      input: { organizationId: tenant.organizationId, ...input },
    });
    assert.equal(answer.body.errors, undefined, JSON.stringify(answer.body.errors));
    return answer.body.data.createAlertRule;
  }

  const deliveryTypes = async (ruleId: string) =>
    (
      await ctx.db.query<{ event_type: string }>(
        'select event_type from webhook_deliveries where rule_id = $1 order by created_at, event_key',
        [ruleId],
      )
    ).map((row) => row.event_type);

  async function amAlerts(ruleId: string): Promise<AmAlert[]> {
    const alerts = (await (await fetch(`${amUrl}/api/v2/alerts`)).json()) as AmAlert[];
    return alerts.filter((alert) => alert.labels.rule === ruleId);
  }

  it('posts a burning objective: warning at TICKET, critical when it escalates to PAGE, resolved at OK, signed and to Alertmanager', async () => {
    receiver.received.length = 0;
    const tenant = await createTenant(ctx.db);
    const flow = workflow(tenant.organizationId, { name: 'payments' });
    const workflowUuid = flow.uuid as string;
    await ingest(ctx.db, [flow]);
    const objective = await createObjective(ctx.server.url, {
      organizationId: tenant.organizationId,
      name: 'payments availability',
      workflowUUID: workflowUuid,
      indicator: 'SUCCESS',
      target: 0.9,
    });
    const hook = await rule(tenant, {
      name: 'budget burn',
      condition: 'SLO_BURN',
      serviceLevelObjectiveId: objective.id,
      target: 'WEBHOOK',
      url: receiver.url,
    });
    receiver.secret = hook.signingSecret;
    const am = await rule(tenant, {
      name: 'BudgetBurn',
      condition: 'SLO_BURN',
      serviceLevelObjectiveId: objective.id,
      target: 'ALERTMANAGER',
      url: amUrl,
    });
    assert.equal(hook.rule.serviceLevelObjectiveId, objective.id);
    const runs = (count: number, status: string, ago: number) =>
      Array.from({ length: count }, () =>
        execution(tenant.organizationId, workflowUuid, {
          status,
          startedAt: iso(clock.now() - ago),
          finishedAt: iso(clock.now() - ago + 1000),
        }),
      );

    // 30% bad over the last 6 hours (rate 3 against a 10% budget), none in the last 2: TICKET.
    await ingest(ctx.db, [...runs(3, 'FAILURE', 3 * HOUR), ...runs(7, 'SUCCESS', 3 * HOUR)]);
    await step();
    const [ticket] = await receiver.waitFor(1);
    assert.equal(ticket!.verified, true);
    assert.equal(ticket!.json.type, 'slo_burn.firing');
    assert.equal(ticket!.json.data.status, 'TICKET');
    assert.equal(ticket!.json.data.severity, 'warning');
    assert.equal(ticket!.json.data.objective.id, objective.id);
    assert.equal(ticket!.json.data.workflowUUID, workflowUuid);
    const [warning] = await until(
      () => amAlerts(am.rule.id),
      (a) => a.length === 1,
      'no warning alert',
    );
    assert.deepEqual(warning!.labels, {
      alertname: 'BudgetBurn',
      organization: tenant.organizationId,
      workflow: workflowUuid,
      severity: 'warning',
      rule: am.rule.id,
      objective: objective.id,
    });
    // Still TICKET: nothing new.
    await step();
    assert.deepEqual(await deliveryTypes(hook.rule.id), ['slo_burn.firing']);

    // All of the last 30 minutes fail, 65% of the last 6 hours: PAGE.
    await ingest(ctx.db, runs(10, 'FAILURE', 10 * MINUTE));
    await step();
    const [, page] = await receiver.waitFor(2);
    assert.equal(page!.json.type, 'slo_burn.firing');
    assert.equal(page!.json.data.status, 'PAGE');
    assert.equal(page!.json.data.severity, 'critical');
    assert.equal(page!.json.data.startsAt, ticket!.json.data.startsAt, 'one episode');
    await until(
      () => amAlerts(am.rule.id),
      (a) => a.length === 1 && a[0]!.labels.severity === 'critical',
      'the alert did not escalate to critical',
    );

    // Enough successes bring every pair under its factor: OK, resolved.
    await ingest(ctx.db, runs(200, 'SUCCESS', MINUTE));
    await step();
    const [, , resolved] = await receiver.waitFor(3);
    assert.equal(resolved!.json.type, 'slo_burn.resolved');
    assert.equal(resolved!.json.data.severity, 'critical');
    assert.equal(resolved!.verified, true);
    await until(
      () => amAlerts(am.rule.id),
      (a) => a.length === 0,
      'the alert was not resolved',
    );
    const rules = await ctx.db.query<{ firing: boolean; slo_status: string | null }>(
      'select firing, slo_status from alert_rules where id = $1',
      [hook.rule.id],
    );
    assert.deepEqual(rules[0], { firing: false, slo_status: null });
  });

  it('fires once for an execution running past max(minDuration, factor x p95), and resolves it when it finishes', async () => {
    receiver.received.length = 0;
    const tenant = await createTenant(ctx.db);
    const steady = workflow(tenant.organizationId, { name: 'steady' });
    const fresh = workflow(tenant.organizationId, { name: 'fresh' });
    const now = clock.now();
    // Four minutes each over the last week: p95 4 minutes, so stuck past 12 minutes at factor 3.
    const history = Array.from({ length: 20 }, (_, i) =>
      execution(tenant.organizationId, steady.uuid as string, {
        startedAt: iso(now - (i + 1) * HOUR),
        finishedAt: iso(now - (i + 1) * HOUR + 4 * MINUTE),
      }),
    );
    const slow = execution(tenant.organizationId, steady.uuid as string, {
      status: 'IN_PROGRESS',
      startedAt: iso(now - 11 * MINUTE),
    });
    // No history: minDuration (5 minutes) alone.
    const lost = execution(tenant.organizationId, fresh.uuid as string, {
      status: 'TRIGGERED',
      startedAt: iso(now - 6 * MINUTE),
    });
    const young = execution(tenant.organizationId, fresh.uuid as string, {
      status: 'IN_PROGRESS',
      startedAt: iso(now - 2 * MINUTE),
    });
    // Older than the rule's history grace: a backfill pages no one.
    const ancient = execution(tenant.organizationId, fresh.uuid as string, {
      status: 'IN_PROGRESS',
      startedAt: iso(now - 2 * DAY),
    });
    await ingest(ctx.db, [steady, fresh, ...history, slow, lost, young, ancient]);
    const created = await rule(tenant, {
      name: 'stuck',
      condition: 'EXECUTION_STUCK',
      target: 'WEBHOOK',
      url: receiver.url,
    });
    receiver.secret = created.signingSecret;
    assert.equal(created.rule.factor, 3);
    assert.equal(created.rule.minDuration, '5m');

    await step();
    const [first] = await receiver.waitFor(1);
    assert.equal(first!.json.type, 'execution_stuck.firing');
    assert.equal(first!.json.data.execution.uuid, lost.uuid);
    assert.equal(first!.json.data.execution.status, 'TRIGGERED');
    assert.equal(first!.json.data.execution.workflowName, 'fresh');
    assert.equal(first!.verified, true);

    // Past 12 minutes (three times the p95) the slow one is stuck too; the lost one does not fire again.
    // The clock jumps past a delivery's lease (timeout + 5 s, on this clock): first the worker
    // records the one the receiver got, or the jump would make it due again and send it twice.
    await until(
      () =>
        ctx.db.query<{ status: string }>('select status from webhook_deliveries where rule_id = $1', [
          created.rule.id,
        ]),
      (rows) => rows.length === 1 && rows[0]!.status === 'DELIVERED',
      'the first delivery was not recorded',
    );
    clock.advance(MINUTE + 30_000);
    await step();
    const [, second] = await receiver.waitFor(2);
    assert.equal(second!.json.data.execution.uuid, slow.uuid);
    assert.ok(second!.json.data.limitMs > 11 * MINUTE && second!.json.data.limitMs < 13 * MINUTE);
    await step();
    assert.deepEqual(await deliveryTypes(created.rule.id), [
      'execution_stuck.firing',
      'execution_stuck.firing',
    ]);

    // The lost one finishes: resolved, once.
    await ingest(ctx.db, [{ ...lost, status: 'FAILURE', finishedAt: iso(clock.now()) }]);
    await step();
    const [, , resolved] = await receiver.waitFor(3);
    assert.equal(resolved!.json.type, 'execution_stuck.resolved');
    assert.equal(resolved!.json.data.execution.uuid, lost.uuid);
    assert.equal(resolved!.json.data.execution.status, 'FAILURE');
    await step();
    assert.equal((await deliveryTypes(created.rule.id)).length, 3);
    const open = await ctx.db.query<{ execution_uuid: string }>(
      'select execution_uuid from stuck_executions where rule_id = $1',
      [created.rule.id],
    );
    assert.deepEqual(
      open.map((row) => row.execution_uuid),
      [slow.uuid],
    );
  });

  it('refuses SLO_BURN without an objective of the organization, and the parameters of other conditions', async () => {
    const tenant = await createTenant(ctx.db);
    const other = await createTenant(ctx.db);
    const theirs = await createObjective(ctx.server.url, {
      organizationId: other.organizationId,
      name: 'theirs',
      indicator: 'SUCCESS',
      target: 0.9,
    });
    const create = (input: Record<string, unknown>) =>
      adminGql(ctx.server.url, CREATE_ALERT_RULE, {
        input: {
          organizationId: tenant.organizationId,
          name: 'r',
          target: 'WEBHOOK',
          url: receiver.url,
          ...input,
        },
      });
    assertOneError(
      await create({ condition: 'SLO_BURN' }),
      'BAD_USER_INPUT',
      /serviceLevelObjectiveId is required/,
    );
    assertOneError(
      await create({ condition: 'SLO_BURN', serviceLevelObjectiveId: theirs.id }),
      'BAD_USER_INPUT',
      /not a service level objective of organization/,
    );
    assertOneError(
      await create({ condition: 'EXECUTION_FAILED', factor: 2 }),
      'BAD_USER_INPUT',
      /factor applies only to EXECUTION_STUCK/,
    );
    assertOneError(
      await create({ condition: 'EXECUTION_STUCK', minDuration: '10s' }),
      'BAD_USER_INPUT',
      /minDuration must be between 1m and 7d/,
    );
    assertOneError(await create({ condition: 'EXECUTION_STUCK', factor: 0.5 }), 'BAD_USER_INPUT', /factor/);
  });
});
