import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { binOf } from '../../src/rollups/duration-bins.js';
import { errorGroupOf } from '../../src/rollups/fingerprint.js';
import { twoSidedNormalP } from '../../src/stats/normal.js';
import { createTenant, deployment, execution, ingest, type Tenant, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { assertWithin, DAY, HOUR, iso, nearestRank, timeText } from '../insight/reference.js';
import { assertFieldError, dataOf } from '../read-api/graphql-assertions.js';
import { fisherByEnumeration, mannWhitneyLongWay } from '../stats/reference.js';

const SIDE = 'from to executions failures failureRate p50Ms p95Ms';
const IMPACT = `query ($input: DeploymentImpactInput!) { deploymentImpact(input: $input) { count data {
  deployment { uuid deployedAt } verdict before { ${SIDE} } after { ${SIDE} }
  failureRateChange failureRatePValue durationChange durationPValue
  newErrorGroups { fingerprint occurrences executionCount sampleMessage workflowCount }
  resolvedErrorGroups { fingerprint occurrences executionCount }
} } }`;

/** A deployment instant off every bucket boundary, so window edges are read exactly from raw rows. */
const T0 = Date.parse('2026-05-04T10:07:13.250Z');

type Raw = Record<string, unknown>;

interface Side {
  from: string;
  to: string;
  executions: number;
  failures: number;
  failureRate: number | null;
  p50Ms: number | null;
  p95Ms: number | null;
}

interface Impact {
  deployment: { uuid: string; deployedAt: string };
  verdict: string;
  before: Side;
  after: Side;
  failureRateChange: number | null;
  failureRatePValue: number | null;
  durationChange: number | null;
  durationPValue: number | null;
  newErrorGroups: Array<{
    fingerprint: string;
    occurrences: number;
    executionCount: number;
    sampleMessage: string;
  }>;
  resolvedErrorGroups: Array<{ fingerprint: string; occurrences: number; executionCount: number }>;
}

interface Runs {
  readonly n: number;
  readonly failures?: number;
  readonly durationMs?: (i: number) => number;
  readonly errors?: (i: number) => Array<{ error: string; count: number }> | undefined;
}

describe('deploymentImpact', () => {
  const ctx = useServer({ rateLimit: { burst: 1_000_000, perSecond: 1_000_000 } });

  async function impact(
    key: string,
    input: Record<string, unknown>,
  ): Promise<{ count: number; data: Impact[] }> {
    return dataOf(await ctx.server.gql(key, IMPACT, { input })).deploymentImpact;
  }

  /** `n` finished executions spread evenly over [from, to): the first `failures` FAILURE, the rest SUCCESS. */
  function runs(t: Tenant, wf: string, from: number, to: number, spec: Runs): Raw[] {
    return Array.from({ length: spec.n }, (_, i) => {
      const startedAt = from + Math.floor(((i + 0.5) * (to - from)) / spec.n);
      const errors = spec.errors?.(i);
      return execution(t.organizationId, wf, {
        status: i < (spec.failures ?? 0) ? 'FAILURE' : 'SUCCESS',
        startedAt: iso(startedAt),
        finishedAt: iso(startedAt + (spec.durationMs?.(i) ?? 1000)),
        ...(errors ? { errors } : {}),
      });
    });
  }

  /** A workflow with one deployment at T0 and `before`/`after` runs over the 7 days on each side. */
  async function deployedOnce(t: Tenant, before: Runs, after: Runs) {
    const wf = workflow(t.organizationId);
    const uuid = wf.uuid as string;
    const d = deployment(t.organizationId, uuid, { deployedAt: iso(T0) });
    await ingest(ctx.db, [
      wf,
      d,
      ...runs(t, uuid, T0 - 7 * DAY, T0, before),
      ...runs(t, uuid, T0, T0 + 7 * DAY, after),
    ]);
    const answer = await impact(t.key, { workflowUUID: uuid });
    assert.equal(answer.count, 1);
    return answer.data[0]!;
  }

  it('bounds each side by the neighbouring deployments of the workflow, 7 days at most, from inclusive and to exclusive', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const other = workflow(t.organizationId);
    const uuid = wf.uuid as string;
    const [d1, d2, d3] = [T0 - 20 * DAY, T0, T0 + 3 * DAY].map((at, i) =>
      deployment(t.organizationId, uuid, { deployedAt: iso(at), status: i === 1 ? 'FAILED' : 'ACTIVE' }),
    );
    const run = (at: number, status = 'SUCCESS') =>
      execution(t.organizationId, uuid, { startedAt: iso(at), finishedAt: iso(at + 500), status });
    await ingest(ctx.db, [
      wf,
      other,
      d1!,
      d2!,
      d3!,
      // Another workflow's deployment inside d2's span bounds nothing.
      deployment(t.organizationId, other.uuid as string, { deployedAt: iso(T0 + DAY) }),
      run(T0 - 20 * DAY + 7 * DAY - 1), // d1.after's last instant
      run(T0 - 20 * DAY + 7 * DAY), // past d1.after (7 days), before d2.before
      run(T0 - 7 * DAY - 1), // just before d2.before
      run(T0 - 7 * DAY), // d2.before's first instant
      run(T0 - 1, 'FAILURE'), // d2.before's last instant
      run(T0), // d2.after's first instant
      execution(t.organizationId, uuid, { startedAt: iso(T0 + HOUR), status: 'IN_PROGRESS' }), // not finished
      run(T0 + 3 * DAY - 1), // d2.after's last instant
      run(T0 + 3 * DAY), // d3.after's first instant
    ]);
    const answer = await impact(t.key, { workflowUUID: uuid });
    assert.equal(answer.count, 3);
    assert.deepEqual(
      answer.data.map((d) => d.deployment.uuid),
      [d3!.uuid, d2!.uuid, d1!.uuid],
      'deployedAt DESC',
    );
    const [i3, i2, i1] = answer.data as [Impact, Impact, Impact];
    const window = (from: number, to: number) => ({ from: timeText(from), to: timeText(to) });
    assert.deepEqual({ from: i1.before.from, to: i1.before.to }, window(T0 - 27 * DAY, T0 - 20 * DAY));
    assert.deepEqual({ from: i1.after.from, to: i1.after.to }, window(T0 - 20 * DAY, T0 - 13 * DAY));
    assert.deepEqual({ from: i2.before.from, to: i2.before.to }, window(T0 - 7 * DAY, T0));
    assert.deepEqual({ from: i2.after.from, to: i2.after.to }, window(T0, T0 + 3 * DAY));
    // d3's previous record is d2, 3 days earlier: closer than 7 days.
    assert.deepEqual({ from: i3.before.from, to: i3.before.to }, window(T0, T0 + 3 * DAY));
    assert.deepEqual({ from: i3.after.from, to: i3.after.to }, window(T0 + 3 * DAY, T0 + 10 * DAY));
    assert.deepEqual(
      answer.data.map((d) => [d.before.executions, d.before.failures, d.after.executions, d.after.failures]),
      [
        [2, 0, 1, 0],
        [2, 1, 2, 0],
        [0, 0, 1, 0],
      ],
    );
    assert.equal(i2.before.failureRate, 0.5);
    assert.equal(i2.after.failureRate, 0);
    assert.equal(i2.failureRateChange, -0.5);
    // after = [[failures, successes]], before = [[failures, successes]].
    assert.equal(i2.failureRatePValue, fisherByEnumeration(0, 2, 1, 1));
    assert.equal(i2.before.p50Ms, 500);
    assert.equal(i2.durationChange, 0);
    // Nothing before d1: no rate, no p-value, no duration change; too little data everywhere.
    assert.equal(i1.before.failureRate, null);
    assert.equal(i1.before.p50Ms, null);
    assert.equal(i1.failureRateChange, null);
    assert.equal(i1.failureRatePValue, null);
    assert.equal(i1.durationChange, null);
    assert.equal(i1.durationPValue, null);
    assert.deepEqual(
      answer.data.map((d) => d.verdict),
      ['INSUFFICIENT_DATA', 'INSUFFICIENT_DATA', 'INSUFFICIENT_DATA'],
    );
    // Pages follow the same order.
    const second = await impact(t.key, { workflowUUID: uuid, page: { number: 1, size: 1 } });
    assert.equal(second.count, 3);
    assert.deepEqual(
      second.data.map((d) => d.deployment.uuid),
      [d2!.uuid],
    );
  });

  it("ends the latest deployment's after side now", async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const deployedAt = Date.now() - 2 * HOUR;
    await ingest(ctx.db, [
      wf,
      deployment(t.organizationId, wf.uuid as string, { deployedAt: iso(deployedAt) }),
    ]);
    const asked = Date.now();
    const [row] = (await impact(t.key, { workflowUUID: wf.uuid })).data;
    const to = Date.parse(row!.after.to);
    assert.ok(to >= asked && to <= Date.now(), row!.after.to);
    assert.equal(Date.parse(row!.before.from), deployedAt - 7 * DAY);
  });

  it('finds REGRESSED when the failure rate rose significantly (Fisher p < 0.01)', async () => {
    const t = await createTenant(ctx.db);
    const row = await deployedOnce(t, { n: 60, failures: 2 }, { n: 60, failures: 20 });
    assert.equal(row.verdict, 'REGRESSED');
    assert.deepEqual(
      [row.before.executions, row.before.failures, row.after.executions, row.after.failures],
      [60, 2, 60, 20],
    );
    assert.ok(Math.abs(row.failureRateChange! - (20 / 60 - 2 / 60)) < 1e-12);
    const p = fisherByEnumeration(20, 40, 2, 58);
    assert.ok(Math.abs(row.failureRatePValue! - p) <= 1e-9 * p, `${row.failureRatePValue} vs ${p}`);
    assert.ok(p < 0.01);
    // Every duration alike: no change, and the rank test sees only ties.
    assert.equal(row.durationChange, 0);
    assert.equal(row.durationPValue, 1);
  });

  it('finds REGRESSED when the median duration rose by 20% or more (Mann-Whitney p < 0.01)', async () => {
    const t = await createTenant(ctx.db);
    const beforeMs = (i: number) => 1000 + (i % 10) * 10;
    const afterMs = (i: number) => 1500 + (i % 10) * 10;
    const row = await deployedOnce(t, { n: 60, durationMs: beforeMs }, { n: 60, durationMs: afterMs });
    assert.equal(row.verdict, 'REGRESSED');
    assert.equal(row.failureRateChange, 0);
    assert.equal(row.failureRatePValue, 1);
    const before = Array.from({ length: 60 }, (_, i) => beforeMs(i));
    const after = Array.from({ length: 60 }, (_, i) => afterMs(i));
    assertWithin(row.before.p50Ms, nearestRank(before, 50), 0.02, 'before p50');
    assertWithin(row.after.p50Ms, nearestRank(after, 50), 0.02, 'after p50');
    assertWithin(row.before.p95Ms, nearestRank(before, 95), 0.02, 'before p95');
    assert.ok(Math.abs(row.durationChange! - (row.after.p50Ms! / row.before.p50Ms! - 1)) < 1e-12);
    assert.ok(row.durationChange! >= 0.2);
    // Durations compared by bin: each bin one group of ties.
    const { z } = mannWhitneyLongWay(after.map(binOf), before.map(binOf));
    const p = twoSidedNormalP(z);
    assert.ok(Math.abs(row.durationPValue! - p) <= 1e-9 * p, `${row.durationPValue} vs ${p}`);
  });

  it('finds IMPROVED when the failure rate fell significantly, NO_CHANGE when nothing moved', async () => {
    const t = await createTenant(ctx.db);
    const improved = await deployedOnce(t, { n: 60, failures: 20 }, { n: 60, failures: 2 });
    assert.equal(improved.verdict, 'IMPROVED');
    assert.ok(improved.failureRatePValue! < 0.01);
    const faster = await deployedOnce(
      t,
      { n: 60, durationMs: (i) => 2000 + i },
      { n: 60, durationMs: (i) => 1000 + i },
    );
    assert.equal(faster.verdict, 'IMPROVED');
    assert.ok(faster.durationChange! <= -0.2 && faster.durationPValue! < 0.01);
    const same = await deployedOnce(
      t,
      { n: 60, failures: 3, durationMs: (i) => 1000 + i },
      { n: 60, failures: 4, durationMs: (i) => 1000 + i },
    );
    assert.equal(same.verdict, 'NO_CHANGE');
    assert.ok(same.failureRatePValue! > 0.01);
    // A small rise that is significant but under 20% is no regression.
    const slower = await deployedOnce(
      t,
      { n: 200, durationMs: () => 1000 },
      { n: 200, durationMs: () => 1100 },
    );
    assert.ok(slower.durationPValue! < 0.01 && slower.durationChange! < 0.2);
    assert.equal(slower.verdict, 'NO_CHANGE');
  });

  it('finds INSUFFICIENT_DATA when either side has fewer than 50 finished executions', async () => {
    const t = await createTenant(ctx.db);
    const few = await deployedOnce(t, { n: 60, failures: 0 }, { n: 49, failures: 30 });
    assert.equal(few.verdict, 'INSUFFICIENT_DATA');
    assert.ok(few.failureRatePValue! < 0.01, 'the test is still reported');
    const fewBefore = await deployedOnce(t, { n: 49 }, { n: 60, failures: 30 });
    assert.equal(fewBefore.verdict, 'INSUFFICIENT_DATA');
    const enough = await deployedOnce(t, { n: 50 }, { n: 50, failures: 30 });
    assert.equal(enough.verdict, 'REGRESSED');
  });

  it('lists the error groups a deployment brought and those it ended, scoped to the workflow', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const neighbour = workflow(t.organizationId);
    const uuid = wf.uuid as string;
    const older = deployment(t.organizationId, uuid, { deployedAt: iso(T0 - 10 * DAY) });
    const d = deployment(t.organizationId, uuid, { deployedAt: iso(T0) });
    const error = (message: string, count = 1) => [{ error: message, count }];
    await ingest(ctx.db, [
      wf,
      neighbour,
      older,
      d,
      // Seen by this workflow before `before` began: never new afterwards.
      ...runs(t, uuid, T0 - 9 * DAY, T0 - 8 * DAY, {
        n: 2,
        failures: 2,
        errors: () => error('old timeout 5'),
      }),
      // before: the kept group and the one the deployment ends.
      ...runs(t, uuid, T0 - 7 * DAY, T0, {
        n: 60,
        failures: 10,
        errors: (i) =>
          i < 4 ? error(`kept failure ${i}`) : i < 10 ? error(`ended failure ${i}`, 2) : undefined,
      }),
      // The neighbour had the new group long before: it is new to this workflow all the same.
      ...runs(t, neighbour.uuid as string, T0 - 9 * DAY, T0 - 8 * DAY, {
        n: 1,
        failures: 1,
        errors: () => error('brand new 1'),
      }),
      // after: the kept group, the old one, and a new one.
      ...runs(t, uuid, T0, T0 + 7 * DAY, {
        n: 60,
        failures: 9,
        errors: (i) =>
          i < 3
            ? error(`kept failure ${i}`)
            : i < 5
              ? error('old timeout 7')
              : i < 9
                ? error(`brand new ${i}`, 3)
                : undefined,
      }),
    ]);
    const fp = (message: string) => errorGroupOf(message).fingerprint;
    const answer = await impact(t.key, { workflowUUID: uuid, deploymentUUID: d.uuid });
    assert.equal(answer.count, 1);
    const [row] = answer.data as [Impact];
    assert.deepEqual(
      row.newErrorGroups.map((g) => [g.fingerprint, g.occurrences, g.executionCount]),
      [[fp('brand new 1'), 12, 4]],
    );
    assert.equal(row.newErrorGroups[0]!.sampleMessage, 'brand new 8');
    assert.deepEqual(
      row.resolvedErrorGroups.map((g) => [g.fingerprint, g.occurrences, g.executionCount]),
      [[fp('ended failure 1'), 12, 6]],
      'figures over before',
    );
    // Fewer than 50 finished after: nothing is called resolved yet.
    const t2 = await createTenant(ctx.db, 'Early');
    const early = workflow(t2.organizationId);
    const d2 = deployment(t2.organizationId, early.uuid as string, { deployedAt: iso(T0) });
    await ingest(ctx.db, [
      early,
      d2,
      ...runs(t2, early.uuid as string, T0 - DAY, T0, { n: 60, failures: 5, errors: () => error('gone 1') }),
      ...runs(t2, early.uuid as string, T0, T0 + DAY, { n: 49 }),
    ]);
    const [earlyRow] = (await impact(t2.key, { workflowUUID: early.uuid })).data;
    assert.deepEqual(earlyRow!.resolvedErrorGroups, []);
    assert.deepEqual(earlyRow!.newErrorGroups, []);
  });

  it("answers NOT_FOUND for an unknown, malformed or other organization's workflow, and for a deployment not of the workflow", async () => {
    const t = await createTenant(ctx.db);
    const stranger = await createTenant(ctx.db, 'Other');
    const wf = workflow(t.organizationId);
    const second = workflow(t.organizationId);
    const d = deployment(t.organizationId, wf.uuid as string, { deployedAt: iso(T0) });
    const elsewhere = deployment(t.organizationId, second.uuid as string, { deployedAt: iso(T0) });
    await ingest(ctx.db, [wf, second, d, elsewhere]);
    const ask = (key: string, input: Record<string, unknown>) => ctx.server.gql(key, IMPACT, { input });
    for (const [key, input] of [
      [stranger.key, { workflowUUID: wf.uuid }],
      [t.key, { workflowUUID: randomUUID() }],
      [t.key, { workflowUUID: 'not-a-uuid' }],
    ] as const) {
      assertFieldError(await ask(key, input), 'NOT_FOUND', 'workflow not found');
    }
    for (const deploymentUUID of [randomUUID(), elsewhere.uuid, 'nope']) {
      assertFieldError(
        await ask(t.key, { workflowUUID: wf.uuid, deploymentUUID }),
        'NOT_FOUND',
        'deployment not found',
      );
    }
    const narrowed = await impact(t.key, { workflowUUID: wf.uuid, deploymentUUID: d.uuid });
    assert.equal(narrowed.count, 1);
    assert.equal(narrowed.data[0]!.deployment.uuid, d.uuid);
    // A workflow without deployments has none to judge.
    const bare = workflow(t.organizationId);
    await ingest(ctx.db, [bare]);
    assert.deepEqual(await impact(t.key, { workflowUUID: bare.uuid }), { count: 0, data: [] });
    assertFieldError(await ask(t.key, { workflowUUID: wf.uuid, page: { size: 101 } }), 'BAD_USER_INPUT');
  });
});
