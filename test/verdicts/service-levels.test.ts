import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { binOf, LOWER_BOUNDS } from '../../src/rollups/duration-bins.js';
import { ADMIN_TOKEN, adminGql } from '../admin/admin-request.js';
import { createTenant, execution, ingest, type Tenant, workflow } from '../harness/fixtures.js';
import { ManualClock } from '../harness/manual-clock.js';
import { useServer } from '../harness/suite.js';
import { DAY, HOUR, iso, MINUTE } from '../insight/reference.js';
import { dataOf } from '../read-api/graphql-assertions.js';
import { createObjective, SERVICE_LEVELS, UPDATE_OBJECTIVE } from './objectives-request.js';

/** "Now" for the server: not on a minute, so that every window's edges fall inside rollup buckets. */
const NOW = Date.parse('2026-06-10T12:03:27.250Z');
const WINDOWS = [
  ['5m', 5 * MINUTE],
  ['30m', 30 * MINUTE],
  ['1h', HOUR],
  ['2h', 2 * HOUR],
  ['6h', 6 * HOUR],
  ['1d', DAY],
  ['3d', 3 * DAY],
] as const;

interface Run {
  readonly status: string;
  readonly startedAt: number;
  /** null: not finished (no finishedAt). */
  readonly ms: number | null;
}

/** Executions of one workflow, from the reference runs. */
const runsOf = (tenant: Tenant, workflowUuid: string, runs: readonly Run[]) =>
  runs.map((run) =>
    execution(tenant.organizationId, workflowUuid, {
      status: run.status,
      startedAt: iso(run.startedAt),
      ...(run.ms === null ? {} : { finishedAt: iso(run.startedAt + run.ms) }),
    }),
  );

const finished = (run: Run) => run.status === 'SUCCESS' || run.status === 'FAILURE';
const inside = (run: Run, ms: number) => run.startedAt >= NOW - ms && run.startedAt <= NOW;

/** The reference figures of a SUCCESS objective over runs. */
function successCounts(runs: readonly Run[], ms: number) {
  const within = runs.filter((run) => finished(run) && inside(run, ms));
  return { total: within.length, good: within.filter((run) => run.status === 'SUCCESS').length };
}

const r = (status: string, startedAt: number, ms: number | null = 1000): Run => ({ status, startedAt, ms });
const many = (count: number, status: string, startedAt: number) =>
  Array.from({ length: count }, () => r(status, startedAt));

describe('serviceLevels', () => {
  const clock = new ManualClock(NOW);
  const ctx = useServer({ adminToken: ADMIN_TOKEN }, { now: clock.read });

  async function tenantWith(runs: readonly Run[], objective: Record<string, unknown> = {}) {
    const tenant = await createTenant(ctx.db);
    const flow = workflow(tenant.organizationId, { name: 'settlement' });
    const workflowUuid = flow.uuid as string;
    await ingest(ctx.db, [flow, ...runsOf(tenant, workflowUuid, runs)]);
    const created = await createObjective(ctx.server.url, {
      organizationId: tenant.organizationId,
      name: 'availability',
      workflowUUID: workflowUuid,
      indicator: 'SUCCESS',
      target: 0.99,
      ...objective,
    });
    return { tenant, workflowUuid, objective: created };
  }

  async function levels(tenant: Tenant, input: Record<string, unknown> = {}) {
    return dataOf(await ctx.server.gql(tenant.key, SERVICE_LEVELS, { input })).serviceLevels.data;
  }

  it('counts the finished executions of the period and the good ones per indicator, the threshold rounded down to a bin bound', async () => {
    const requested = 1240;
    const bound = LOWER_BOUNDS[binOf(requested)]!;
    assert.ok(bound < requested, 'a threshold between bounds');
    const period = 28 * DAY;
    const runs: Run[] = [
      ...Array.from({ length: 6 }, (_, i) => r('SUCCESS', NOW - (i + 1) * HOUR, 100)),
      r('SUCCESS', NOW - 2 * DAY, bound - 1),
      r('SUCCESS', NOW - 3 * DAY, bound),
      r('SUCCESS', NOW - 4 * DAY, 5000),
      r('FAILURE', NOW - 5 * DAY, 200),
      r('FAILURE', NOW - 6 * DAY, 9000),
      r('FAILURE', NOW - period, 50),
      r('IN_PROGRESS', NOW - HOUR, null),
      r('TRIGGERED', NOW - 2 * HOUR, null),
      r('SUCCESS', NOW - period - 1, 100),
      r('FAILURE', NOW + 1, 100),
    ];
    const { tenant, workflowUuid } = await tenantWith(runs, { target: 0.9 });
    const latency = await createObjective(ctx.server.url, {
      organizationId: tenant.organizationId,
      name: 'latency',
      workflowUUID: workflowUuid,
      indicator: 'LATENCY',
      target: 0.5,
      thresholdMs: requested,
    });
    assert.equal(latency.thresholdMs, bound);
    const [availability, fast] = await levels(tenant);
    const expected = successCounts(runs, period);
    assert.deepEqual([availability.total, availability.good], [expected.total, expected.good]);
    assert.deepEqual([expected.total, expected.good], [12, 9]);
    assert.equal(availability.workflowName, 'settlement');
    assert.equal(availability.periodDays, 28);
    assert.equal(availability.attainment, 0.75);
    // 3 bad of 12 against a budget of 10%: spent two and a half times over.
    assert.ok(
      Math.abs(availability.errorBudgetRemaining - -1.5) < 1e-9,
      String(availability.errorBudgetRemaining),
    );
    // LATENCY: durations strictly below the bound are good, failures included; the bound itself is not.
    assert.equal(fast.name, 'latency');
    assert.equal(fast.thresholdMs, bound);
    assert.equal(fast.total, 12);
    assert.equal(fast.good, 6 + 1 + 1 + 1);
    assert.equal(fast.attainment, 0.75);
    assert.ok(Math.abs(fast.errorBudgetRemaining - 0.5) < 1e-9, String(fast.errorBudgetRemaining));
  });

  it('answers a negative error budget once it is spent, and nulls without finished executions', async () => {
    const runs = [...many(6, 'SUCCESS', NOW - DAY), ...many(4, 'FAILURE', NOW - DAY)];
    const { tenant } = await tenantWith(runs, { target: 0.9, periodDays: 7 });
    await createObjective(ctx.server.url, {
      organizationId: tenant.organizationId,
      name: 'zz quiet',
      indicator: 'SUCCESS',
      target: 0.95,
      periodDays: 1,
    });
    const [spent, quiet] = await levels(tenant);
    assert.equal(spent.total, 10);
    assert.equal(spent.good, 6);
    // 4 bad against a budget of 1: 1 - 4 / (0.1 x 10) = -3.
    assert.ok(Math.abs(spent.errorBudgetRemaining - -3) < 1e-9, String(spent.errorBudgetRemaining));
    // The organization as a whole over its last day: the runs started exactly a day ago, inside.
    assert.equal(quiet.workflowUUID, null);
    assert.equal(quiet.workflowName, null);
    assert.equal(quiet.total, 10);
  });

  it("answers every objective of an organization at once, workflows' and the organization's, each indicator and period with its own counts", async () => {
    // Two workflows with runs across 30 days, on and around the edges of the shorter periods and
    // windows, and objectives of both indicators for each workflow and for the organization:
    // every answer equals the counts of its own scope's runs.
    const spread = (status: (i: number) => string, offset: number): Run[] =>
      Array.from({ length: 40 }, (_, i) =>
        r(status(i), NOW - offset - i * 17 * HOUR - (i % 5) * MINUTE, 100 + ((i * 379) % 4000)),
      );
    const ingestRuns = spread((i) => (i % 4 === 0 ? 'FAILURE' : 'SUCCESS'), 0);
    const billingRuns = [
      ...spread((i) => (i % 3 === 0 ? 'FAILURE' : 'SUCCESS'), 7 * MINUTE),
      r('SUCCESS', NOW - 7 * DAY, 50),
      r('FAILURE', NOW - 7 * DAY - 1, 50),
    ];
    const tenant = await createTenant(ctx.db);
    const ingestFlow = workflow(tenant.organizationId, { name: 'ingest' });
    const billingFlow = workflow(tenant.organizationId, { name: 'billing' });
    await ingest(ctx.db, [
      ingestFlow,
      billingFlow,
      ...runsOf(tenant, ingestFlow.uuid as string, ingestRuns),
      ...runsOf(tenant, billingFlow.uuid as string, billingRuns),
    ]);
    const threshold = LOWER_BOUNDS[binOf(1500)]!;
    const objectives = [
      { name: 'o1 ingest success 7d', workflowUUID: ingestFlow.uuid, indicator: 'SUCCESS', periodDays: 7 },
      { name: 'o2 ingest latency 28d', workflowUUID: ingestFlow.uuid, indicator: 'LATENCY', periodDays: 28 },
      {
        name: 'o3 billing success 28d',
        workflowUUID: billingFlow.uuid,
        indicator: 'SUCCESS',
        periodDays: 28,
      },
      { name: 'o4 billing latency 7d', workflowUUID: billingFlow.uuid, indicator: 'LATENCY', periodDays: 7 },
      { name: 'o5 organization success 30d', indicator: 'SUCCESS', periodDays: 30 },
      { name: 'o6 organization latency 7d', indicator: 'LATENCY', periodDays: 7 },
    ];
    for (const objective of objectives)
      await createObjective(ctx.server.url, {
        organizationId: tenant.organizationId,
        target: 0.9,
        ...(objective.indicator === 'LATENCY' ? { thresholdMs: threshold } : {}),
        ...objective,
      });
    const runsOfScope = (uuid: unknown) =>
      uuid === ingestFlow.uuid
        ? ingestRuns
        : uuid === billingFlow.uuid
          ? billingRuns
          : [...ingestRuns, ...billingRuns];
    const reference = (indicator: string, runs: readonly Run[], ms: number) => {
      const within = runs.filter((run) => finished(run) && inside(run, ms));
      const good =
        indicator === 'LATENCY' ? (run: Run) => run.ms! < threshold : (run: Run) => run.status === 'SUCCESS';
      return { total: within.length, good: within.filter(good).length };
    };
    const answered = await levels(tenant);
    assert.deepEqual(
      answered.map((level: { name: string }) => level.name),
      objectives.map((objective) => objective.name),
    );
    for (const [i, objective] of objectives.entries()) {
      const level = answered[i];
      const runs = runsOfScope(objective.workflowUUID);
      const period = reference(objective.indicator, runs, objective.periodDays * DAY);
      assert.ok(
        period.total > 0 && period.good < period.total,
        `${objective.name}: the reference has good and bad`,
      );
      assert.deepEqual([level.total, level.good], [period.total, period.good], `${objective.name} period`);
      for (const [j, [name, ms]] of WINDOWS.entries()) {
        const window = reference(objective.indicator, runs, ms);
        assert.deepEqual(
          [level.burnRates[j].total, level.burnRates[j].bad],
          [window.total, window.total - window.good],
          `${objective.name} ${name}`,
        );
      }
    }
  });

  it("counts each burn window's executions started in [now - window, now], both ends inclusive", async () => {
    // At each window's two edges: one FAILURE exactly on `now - window`, one SUCCESS a millisecond before it.
    const runs: Run[] = [r('FAILURE', NOW), r('SUCCESS', NOW + 1)];
    for (const [, ms] of WINDOWS) runs.push(r('FAILURE', NOW - ms), r('SUCCESS', NOW - ms - 1));
    const { tenant } = await tenantWith(runs, { target: 0.99 });
    const [level] = await levels(tenant);
    assert.deepEqual(
      level.burnRates.map((rate: { window: string }) => rate.window),
      WINDOWS.map(([name]) => name),
    );
    for (const [i, [name, ms]] of WINDOWS.entries()) {
      const expected = successCounts(runs, ms);
      const rate = level.burnRates[i];
      assert.equal(rate.total, expected.total, `${name} total`);
      assert.equal(rate.bad, expected.total - expected.good, `${name} bad`);
      assert.ok(Math.abs(rate.rate - rate.bad / rate.total / 0.01) < 1e-9, `${name} rate`);
    }
    // 5m: `now` and its lower edge; each longer window adds its edge and the previous one's outside run.
    assert.deepEqual(
      level.burnRates.map((rate: { total: number; bad: number }) => [rate.total, rate.bad]),
      [
        [2, 2],
        [4, 3],
        [6, 4],
        [8, 5],
        [10, 6],
        [12, 7],
        [14, 8],
      ],
    );
  });

  it('pages when 1h and 5m both burn above 14.4, with 6h and 30m below 6', async () => {
    const runs = [
      ...many(2, 'FAILURE', NOW - MINUTE),
      ...many(40, 'SUCCESS', NOW - 10 * MINUTE),
      ...many(20, 'FAILURE', NOW - 45 * MINUTE),
    ];
    const { tenant } = await tenantWith(runs);
    const [level] = await levels(tenant);
    const rate = (name: string) => level.burnRates.find((b: { window: string }) => b.window === name).rate;
    assert.ok(rate('5m') > 14.4 && rate('1h') > 14.4);
    assert.ok(rate('30m') <= 6, String(rate('30m')));
    assert.equal(level.status, 'PAGE');
  });

  it('pages when 6h and 30m both burn above 6, with nothing in the last 5 minutes', async () => {
    const { tenant } = await tenantWith(many(10, 'FAILURE', NOW - 20 * MINUTE));
    const [level] = await levels(tenant);
    assert.equal(level.burnRates[0].rate, null);
    assert.equal(level.burnRates[0].total, 0);
    assert.equal(level.status, 'PAGE');
  });

  it('opens a ticket when 1d and 2h both burn above 3, with 6h below 1 and nothing in the last 30 minutes', async () => {
    const runs = [
      ...many(1, 'FAILURE', NOW - 90 * MINUTE),
      ...many(9, 'SUCCESS', NOW - 90 * MINUTE),
      ...many(200, 'SUCCESS', NOW - 4 * HOUR),
      ...many(30, 'FAILURE', NOW - 12 * HOUR),
    ];
    const { tenant } = await tenantWith(runs);
    const [level] = await levels(tenant);
    const rate = (name: string) => level.burnRates.find((b: { window: string }) => b.window === name).rate;
    assert.ok(rate('2h') > 3 && rate('1d') > 3);
    assert.ok(rate('6h') <= 1, String(rate('6h')));
    assert.equal(level.status, 'TICKET');
  });

  it('opens a ticket when 3d and 6h both burn above 1, with nothing in the last 2 hours', async () => {
    const runs = [...many(1, 'FAILURE', NOW - 3 * HOUR), ...many(9, 'SUCCESS', NOW - 3 * HOUR)];
    const { tenant } = await tenantWith(runs);
    const [level] = await levels(tenant);
    assert.equal(level.burnRates[3].total, 0, '2h is empty');
    assert.equal(level.status, 'TICKET');
  });

  it('is OK while the budget burns slowly, and NO_DATA without finished executions in the period', async () => {
    const runs = [...many(20, 'SUCCESS', NOW - 10 * MINUTE), r('IN_PROGRESS', NOW - MINUTE, null)];
    const { tenant } = await tenantWith(runs);
    await createObjective(ctx.server.url, {
      organizationId: tenant.organizationId,
      name: 'b none',
      indicator: 'LATENCY',
      thresholdMs: 1000,
      target: 0.99,
      periodDays: 1,
      workflowUUID: (
        await ctx.db.query<{ uuid: string }>('select uuid from workflows where organization_id = $1', [
          tenant.organizationId,
        ])
      )[0]!.uuid,
    });
    const [ok] = await levels(tenant);
    assert.equal(ok.status, 'OK');
    assert.equal(ok.burnRates[1].rate, 0);
    // The period's edge: nothing finished in the last day of a workflow whose runs are older.
    clock.advance(2 * DAY);
    try {
      const [later, none] = await levels(tenant);
      assert.equal(later.status, 'OK', 'the 28-day period still holds the runs');
      assert.deepEqual(
        [none.total, none.good, none.attainment, none.errorBudgetRemaining, none.status],
        [0, 0, null, null, 'NO_DATA'],
      );
      // NO_DATA is the period's verdict: the 3-day window still sees the runs of two days ago.
      assert.deepEqual(
        none.burnRates.map((rate: { total: number }) => rate.total),
        [0, 0, 0, 0, 0, 0, 20],
      );
    } finally {
      clock.advance(-2 * DAY);
    }
  });

  it('considers a pair only when its longer window holds at least 10 finished executions', async () => {
    const { tenant, workflowUuid } = await tenantWith(many(9, 'FAILURE', NOW - MINUTE));
    const [guarded] = await levels(tenant);
    assert.ok(Math.abs(guarded.burnRates[0].rate - 100) < 1e-9);
    assert.equal(guarded.status, 'OK');
    await ingest(ctx.db, runsOf(tenant, workflowUuid, [r('FAILURE', NOW - 2 * MINUTE)]));
    const [paged] = await levels(tenant);
    assert.equal(paged.status, 'PAGE');
  });

  it('answers a repeated request as it answered, and an updated objective or a new execution with figures of their own', async () => {
    const runs = [...many(8, 'SUCCESS', NOW - 10 * MINUTE), r('FAILURE', NOW - 2 * MINUTE)];
    const { tenant, workflowUuid, objective } = await tenantWith(runs);
    const first = await levels(tenant);
    assert.equal(first[0].total, 9);
    assert.deepEqual(await levels(tenant), first);
    const updated = await adminGql(ctx.server.url, UPDATE_OBJECTIVE, {
      input: { id: objective.id, target: 0.5 },
    });
    assert.equal(updated.body.errors, undefined, JSON.stringify(updated.body.errors));
    const retargeted = await levels(tenant);
    assert.equal(retargeted[0].target, 0.5);
    assert.equal(retargeted[0].errorBudgetRemaining, 1 - 1 / (0.5 * 9));
    await ingest(ctx.db, runsOf(tenant, workflowUuid, [r('FAILURE', NOW - MINUTE)]));
    const failed = await levels(tenant);
    assert.equal(failed[0].total, 10);
    assert.deepEqual(failed[0].burnRates[0], { window: '5m', total: 2, bad: 2, rate: 2 / 2 / 0.5 });
  });

  it("lists by name, then id, answers only the key's organization, and filters by workflow", async () => {
    const { tenant, workflowUuid } = await tenantWith([r('SUCCESS', NOW - MINUTE)], { name: 'b' });
    const other = await tenantWith([r('FAILURE', NOW - MINUTE)], { name: 'a' });
    const a1 = await createObjective(ctx.server.url, {
      organizationId: tenant.organizationId,
      name: 'a',
      indicator: 'SUCCESS',
      target: 0.9,
    });
    const a2 = await createObjective(ctx.server.url, {
      organizationId: tenant.organizationId,
      name: 'a',
      indicator: 'SUCCESS',
      target: 0.9,
    });
    const all = await levels(tenant);
    assert.deepEqual(
      all.map((level: { name: string }) => level.name),
      ['a', 'a', 'b'],
    );
    assert.deepEqual(
      all.slice(0, 2).map((level: { id: string }) => level.id),
      [a1.id, a2.id].sort(),
    );
    const mine = await levels(tenant, { workflowUUID: workflowUuid });
    assert.deepEqual(
      mine.map((level: { name: string }) => level.name),
      ['b'],
    );
    // Another organization's workflow, or no uuid at all: nothing.
    assert.deepEqual(await levels(tenant, { workflowUUID: other.workflowUuid }), []);
    assert.deepEqual(await levels(tenant, { workflowUUID: 'not-a-uuid' }), []);
    const theirs = await levels(other.tenant);
    assert.deepEqual(
      theirs.map((level: { id: string }) => level.id),
      [other.objective.id],
    );
  });
});
