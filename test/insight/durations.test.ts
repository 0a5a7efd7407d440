import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { createTenant, event, execution, ingest, type Tenant, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { seeded } from '../ingest/dataset.js';
import { assertFieldError, dataOf } from '../read-api/graphql-assertions.js';
import { assertWithin, DAY, HOUR, iso, MINUTE, nearestRank, SECOND } from './reference.js';

const STATS = `query ($input: DurationStatsInput!) { durationStats(input: $input) {
  data { count minMs maxMs meanMs p50Ms p90Ms p95Ms p99Ms histogram { fromMs toMs count } } } }`;

const T0 = Date.parse('2026-06-01T00:00:00Z');
/**
 * The days the data of the exact checks lies in: the duration rollups keep their one-minute rung
 * for the last days only (src/rollups/grains.ts), so a window is read from one-minute rows, from
 * five-minute ones, or (across the cut at the start of the day eight days back) from both.
 */
const CUT = Math.floor(Date.now() / DAY) * DAY - 8 * DAY;
const DAYS = [
  ['an old day', T0],
  ['a recent day', CUT + 6 * DAY],
  ['the day the one-minute rows begin', CUT - 3 * HOUR],
] as const;
const PERCENTILES = [
  ['p50Ms', 50],
  ['p90Ms', 90],
  ['p95Ms', 95],
  ['p99Ms', 99],
] as const;

interface Stats {
  count: number;
  minMs: number | null;
  maxMs: number | null;
  meanMs: number | null;
  p50Ms: number | null;
  p90Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
  histogram: Array<{ fromMs: number; toMs: number; count: number }>;
}

/** What the reference model keeps of an execution (capability null) or a capability call. */
interface Item {
  workflow: string;
  capability: string | null;
  /** The execution's status, or the call's outcome (SUCCESS or FAILURE). */
  status: string;
  startedAt: number;
  ms: number | null;
}

interface Query {
  from: number;
  to: number;
  workflowUUID?: string;
  capabilityID?: string;
  status?: string[];
}

/** The durations a query covers, computed from the stored rows. */
function durationsOf(items: readonly Item[], visible: ReadonlySet<string>, query: Query): number[] {
  return items
    .filter(
      (item) =>
        visible.has(item.workflow) &&
        item.ms !== null &&
        item.startedAt >= query.from &&
        item.startedAt <= query.to &&
        item.capability === (query.capabilityID ?? null) &&
        (query.workflowUUID === undefined || item.workflow === query.workflowUUID) &&
        (query.status === undefined || query.status.includes(item.status)),
    )
    .map((item) => item.ms!);
}

/** Asserts an answer against the exact figures of `durations`. */
function assertStats(stats: Stats, durations: readonly number[], what: string): void {
  assert.equal(stats.count, durations.length, `${what}: count`);
  if (durations.length === 0) {
    assert.deepEqual(stats, {
      count: 0,
      minMs: null,
      maxMs: null,
      meanMs: null,
      p50Ms: null,
      p90Ms: null,
      p95Ms: null,
      p99Ms: null,
      histogram: [],
    });
    return;
  }
  assert.equal(stats.minMs, Math.min(...durations), `${what}: minMs`);
  assert.equal(stats.maxMs, Math.max(...durations), `${what}: maxMs`);
  const mean = durations.reduce((sum, ms) => sum + ms, 0) / durations.length;
  assertWithin(stats.meanMs, mean, 1e-12, `${what}: meanMs`);
  for (const [field, p] of PERCENTILES) {
    assertWithin(stats[field], nearestRank(durations, p), 0.02, `${what}: ${field}`);
  }
  // Non-empty buckets, ascending and apart, holding exactly the durations that fall in them.
  const buckets = stats.histogram;
  for (const [i, bucket] of buckets.entries()) {
    assert.ok(bucket.count > 0 && bucket.fromMs < bucket.toMs, `${what}: bucket ${i}`);
    if (i > 0) assert.ok(buckets[i - 1]!.toMs <= bucket.fromMs, `${what}: buckets ascend`);
    const inside = durations.filter((ms) => ms >= bucket.fromMs && ms < bucket.toMs).length;
    assert.equal(bucket.count, inside, `${what}: bucket ${bucket.fromMs}..${bucket.toMs}`);
  }
  assert.equal(
    buckets.reduce((sum, bucket) => sum + bucket.count, 0),
    durations.length,
    `${what}: the histogram counts every duration`,
  );
}

describe('durationStats', () => {
  const ctx = useServer({ rateLimit: { burst: 1_000_000, perSecond: 1_000_000 } });

  async function stats(key: string, input: Record<string, unknown>): Promise<Stats> {
    return dataOf(await ctx.server.gql(key, STATS, { input })).durationStats.data;
  }

  const toInput = (query: Query) => ({ ...query, from: iso(query.from), to: iso(query.to) });

  /**
   * A few hundred executions and their calls, with durations from 1 ms to minutes, stored in
   * several batches: earlier states first (finished too, in an earlier bucket, so that replacing
   * them takes durations away), one workflow only after its executions, and one never.
   */
  async function seedMany(t: Tenant, t0: number) {
    const random = seeded(20260601);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
    const logUniform = () => Math.round(Math.exp(random() * Math.log(10 * MINUTE)));
    const [early, late, never] = [0, 1, 2].map((n) => workflow(t.organizationId, { name: `flow-${n}` }));
    const uuids = [early, late, never].map((w) => w!.uuid as string);
    const items: Item[] = [];
    const earlier: Record<string, unknown>[] = [];
    const final: Record<string, unknown>[] = [];
    for (let i = 0; i < 300; i++) {
      const wf = i % 37 === 5 ? uuids[2]! : i % 3 === 0 ? uuids[1]! : uuids[0]!;
      const startedAt = t0 + Math.floor(random() * 6 * HOUR);
      const status = pick(['SUCCESS', 'SUCCESS', 'FAILURE', 'IN_PROGRESS']);
      // A few finish "before" they start: they count as 0 ms.
      const ms = status === 'IN_PROGRESS' ? null : i % 61 === 0 ? -5 * SECOND : logUniform();
      const uuid = randomUUID();
      if (ms !== null && random() < 0.3) {
        earlier.push(
          execution(t.organizationId, wf, {
            uuid,
            status: 'TRIGGERED',
            startedAt: iso(startedAt - 7 * MINUTE),
            finishedAt: iso(startedAt - 7 * MINUTE + logUniform()),
          }),
        );
      }
      final.push(
        execution(t.organizationId, wf, {
          uuid,
          status,
          startedAt: iso(startedAt),
          ...(ms === null ? {} : { finishedAt: iso(startedAt + ms) }),
        }),
      );
      items.push({
        workflow: wf,
        capability: null,
        status,
        startedAt,
        ms: ms === null ? null : Math.max(0, ms),
      });
      for (let k = Math.floor(random() * 3); k > 0; k--) {
        const capability = pick(['cap-a@1', 'cap-b@1']);
        const callStart = startedAt + Math.floor(random() * MINUTE);
        const callStatus = pick(['COMPLETED', 'SUCCESS', 'FAILED', 'COMPLETED']);
        const errors = random() < 0.2 ? [{ error: 'call failed', count: 1 }] : [];
        const callMs = random() < 0.9 ? logUniform() : null;
        final.push(
          event(t.organizationId, uuid, {
            capabilityID: capability,
            status: callStatus,
            startedAt: iso(callStart),
            ...(callMs === null ? {} : { finishedAt: iso(callStart + callMs) }),
            ...(errors.length ? { errors } : {}),
          }),
        );
        const outcome =
          errors.length || !['COMPLETED', 'SUCCESS'].includes(callStatus) ? 'FAILURE' : 'SUCCESS';
        items.push({ workflow: wf, capability, status: outcome, startedAt: callStart, ms: callMs });
      }
    }
    // Shuffled, so calls may come before their execution.
    for (let i = final.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [final[i], final[j]] = [final[j]!, final[i]!];
    }
    await ingest(ctx.db, [early!, ...earlier]);
    for (let i = 0; i < final.length; i += 200) await ingest(ctx.db, final.slice(i, i + 200));
    await ingest(ctx.db, [late!]);
    return { items, uuids, visible: new Set([uuids[0]!, uuids[1]!]) };
  }

  for (const [day, T0] of DAYS)
    it(`answers exact count, min, max and mean, and percentiles within 2% of the exact nearest-rank ones, over any window and filter (${day})`, async () => {
      const t = await createTenant(ctx.db);
      const { items, uuids, visible } = await seedMany(t, T0);
      const windows = [
        { from: T0, to: T0 + 6 * HOUR },
        { from: T0 + 7 * MINUTE + 13 * SECOND + 457, to: T0 + 4 * HOUR + 2 * MINUTE + 1999 },
        { from: T0 + 61 * MINUTE + 30 * SECOND, to: T0 + 63 * MINUTE + 10 * SECOND },
        { from: T0 - DAY, to: T0 + 2 * DAY },
      ];
      const filters: Array<Omit<Query, 'from' | 'to'>> = [
        {},
        { status: ['SUCCESS'] },
        { status: ['SUCCESS', 'FAILURE'] },
        { status: ['TRIGGERED', 'IN_PROGRESS'] },
        { workflowUUID: uuids[0] },
        { workflowUUID: uuids[1], status: ['FAILURE'] },
        { workflowUUID: uuids[2] },
        { capabilityID: 'cap-a@1' },
        { capabilityID: 'cap-b@1', status: ['FAILURE'] },
        { capabilityID: 'cap-a@1', status: ['SUCCESS'], workflowUUID: uuids[1] },
        { capabilityID: 'cap-a@1', status: ['IN_PROGRESS'] },
        { capabilityID: 'cap-z@1' },
      ];
      let nonEmpty = 0;
      for (const window of windows) {
        for (const filter of filters) {
          const query = { ...window, ...filter };
          const durations = durationsOf(items, visible, query);
          if (durations.length > 0) nonEmpty++;
          assertStats(await stats(t.key, toInput(query)), durations, JSON.stringify(toInput(query)));
        }
      }
      // The cases are not all empty: the wide windows hold hundreds of durations.
      assert.ok(nonEmpty >= 30, `${nonEmpty} non-empty cases`);
      assert.ok(durationsOf(items, visible, { ...windows[0]! }).length > 150);
    });

  it("counts every duration of a window's partial edges, however many share a histogram bin", async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    // Four executions a minute from T0, in the first three 5-minute buckets; most share a duration,
    // so that a bin holds ten and more of them both in a whole bucket's row and in an edge.
    const shape = [250, 250, 4000, 250, 250, 251, 17, 250];
    const runs = Array.from({ length: 50 }, (_, i) => ({
      ms: shape[i % shape.length]!,
      startedAt: T0 + 30 * SECOND + i * 15 * SECOND,
      uuid: randomUUID(),
    }));
    const calls = runs.map((run, i) => ({ ...run, ms: i % 3 === 0 ? 80 : 81 }));
    await ingest(ctx.db, [
      wf,
      ...runs.map((run) =>
        execution(t.organizationId, wf.uuid as string, {
          uuid: run.uuid,
          status: 'SUCCESS',
          startedAt: iso(run.startedAt),
          finishedAt: iso(run.startedAt + run.ms),
        }),
      ),
      ...calls.map((call) =>
        event(t.organizationId, call.uuid, {
          capabilityID: 'cap-a@1',
          status: 'COMPLETED',
          startedAt: iso(call.startedAt + SECOND),
          finishedAt: iso(call.startedAt + SECOND + call.ms),
        }),
      ),
    ]);
    const windows = [
      { from: T0 + 10 * SECOND, to: T0 + 4 * MINUTE }, // inside one bucket: all raw
      { from: T0 + MINUTE, to: T0 + 13 * MINUTE }, // two raw edges around a whole bucket
    ];
    for (const window of windows) {
      const inside = (at: number) => at >= window.from && at <= window.to;
      const durations = runs.filter((run) => inside(run.startedAt)).map((run) => run.ms);
      const callDurations = calls.filter((call) => inside(call.startedAt + SECOND)).map((call) => call.ms);
      assert.ok(durations.length >= 3 && callDurations.length >= 3);
      const input = { from: iso(window.from), to: iso(window.to) };
      assertStats(await stats(t.key, input), durations, `executions ${JSON.stringify(input)}`);
      assertStats(
        await stats(t.key, { ...input, capabilityID: 'cap-a@1' }),
        callDurations,
        `calls ${JSON.stringify(input)}`,
      );
    }
  });

  it("answers an edge from its minute's rollup row while the rest of the minute is empty, and leaves out what then arrives there", async () => {
    const t = await createTenant(ctx.db);
    const [wf, other] = [workflow(t.organizationId), workflow(t.organizationId)];
    const items: Item[] = [];
    const visible = new Set([wf.uuid as string, other.uuid as string]);
    // Executions with one call each: `ms` for the execution, `ms + 1` for its call, which fails
    // when the execution does.
    const runs = (list: Array<{ at: number; ms: number; status?: string; workflow?: string }>) =>
      list.flatMap(({ at, ms, status = 'SUCCESS', workflow: wfUuid = wf.uuid as string }) => {
        const uuid = randomUUID();
        const outcome = status === 'SUCCESS' ? 'SUCCESS' : 'FAILURE';
        items.push({ workflow: wfUuid, capability: null, status, startedAt: at, ms });
        items.push({
          workflow: wfUuid,
          capability: 'cap-e@1',
          status: outcome,
          startedAt: at + 100,
          ms: ms + 1,
        });
        return [
          execution(t.organizationId, wfUuid, { uuid, status, startedAt: iso(at), finishedAt: iso(at + ms) }),
          event(t.organizationId, uuid, {
            capabilityID: 'cap-e@1',
            status: outcome === 'SUCCESS' ? 'COMPLETED' : 'FAILED',
            startedAt: iso(at + 100),
            finishedAt: iso(at + 100 + ms + 1),
          }),
        ];
      });
    // Three minutes, each with rows on one side of a window's edge only: the minute the window
    // ends in (rows before its end), the minute it starts in (rows after its start), and a minute
    // a short window lies inside.
    const end = T0 + 9 * HOUR + 7 * MINUTE;
    const start = T0 + 8 * HOUR + 3 * MINUTE;
    const inside = T0 + 10 * HOUR;
    await ingest(ctx.db, [
      wf,
      other,
      ...runs([
        { at: start + 31 * SECOND, ms: 700 },
        { at: start + 50 * SECOND, ms: 40, status: 'FAILURE', workflow: other.uuid as string },
        { at: start + 2 * MINUTE, ms: 300 },
        { at: end + 5 * SECOND, ms: 650 },
        { at: end + 20 * SECOND, ms: 45, workflow: other.uuid as string },
        { at: inside + 20 * SECOND, ms: 1200, status: 'FAILURE' },
      ]),
    ]);
    const queries: Query[] = [
      { from: start + 30 * SECOND, to: end + 30 * SECOND },
      { from: inside + 15 * SECOND, to: inside + 25 * SECOND },
    ].flatMap((window) => [
      window,
      { ...window, workflowUUID: wf.uuid as string },
      { ...window, capabilityID: 'cap-e@1' },
      { ...window, capabilityID: 'cap-e@1', status: ['FAILURE'] },
    ]);
    const check = async (stage: string) => {
      for (const query of queries) {
        const durations = durationsOf(items, visible, query);
        assert.ok(durations.length > 0, `${stage}: ${JSON.stringify(query)} holds durations`);
        assertStats(
          await stats(t.key, toInput(query)),
          durations,
          `${stage}: ${JSON.stringify(toInput(query))}`,
        );
      }
    };
    await check('the rest of each minute empty');
    // Now the rest of each minute holds executions and calls, shortest and longest among them.
    await ingest(ctx.db, [
      ...runs([
        { at: start + 10 * SECOND, ms: 1 },
        { at: start + 29 * SECOND, ms: 90_000, status: 'FAILURE' },
        { at: end + 45 * SECOND, ms: 2, workflow: other.uuid as string },
        { at: end + 59 * SECOND, ms: 80_000 },
        { at: inside + 5 * SECOND, ms: 3, status: 'FAILURE' },
        { at: inside + 40 * SECOND, ms: 70_000 },
      ]),
    ]);
    await check('the rest of each minute filled');
  });

  for (const [day, T0] of DAYS)
    it(`takes a replaced duration away from min and max at every grain, organization-wide and per workflow (${day})`, async () => {
      const t = await createTenant(ctx.db);
      const wf = workflow(t.organizationId);
      const other = workflow(t.organizationId);
      const base = T0 + 3 * HOUR + 10 * MINUTE;
      const run = (uuid: string, status: string, offset: number, ms: number, workflowUuid = wf.uuid) =>
        execution(t.organizationId, workflowUuid as string, {
          uuid,
          status,
          startedAt: iso(base + offset),
          finishedAt: iso(base + offset + ms),
        });
      const [x, y, z] = [randomUUID(), randomUUID(), randomUUID()];
      await ingest(ctx.db, [
        wf,
        other,
        run(x, 'SUCCESS', 0, 10),
        run(y, 'SUCCESS', SECOND, 500),
        run(z, 'SUCCESS', 2 * SECOND, 900),
      ]);
      // Windows answered by one 5-minute, one hour and one day bucket, and by raw rows.
      const windows = [
        [base, base + 5 * MINUTE - 1],
        [T0 + 3 * HOUR, T0 + 4 * HOUR - 1],
        [T0, T0 + DAY - 1],
        [base - 1, base + 3 * SECOND],
      ] as const;
      const extremes = async (status: string, workflowUUID?: string) => {
        const answers = [];
        for (const [from, to] of windows) {
          const s = await stats(t.key, { from: iso(from), to: iso(to), status: [status], workflowUUID });
          answers.push([s.count, s.minMs, s.maxMs]);
        }
        return answers;
      };
      const everywhere = (count: number, min: number | null, max: number | null) =>
        windows.map(() => [count, min, max]);
      for (const scope of [undefined, wf.uuid as string]) {
        assert.deepEqual(await extremes('SUCCESS', scope), everywhere(3, 10, 900));
      }
      // The shortest becomes a long failure: SUCCESS loses its min, FAILURE gains it.
      await ingest(ctx.db, [run(x, 'FAILURE', 0, 2000)]);
      // The longest becomes a short failure: SUCCESS loses its max.
      await ingest(ctx.db, [run(z, 'FAILURE', 2 * SECOND, 5)]);
      for (const scope of [undefined, wf.uuid as string]) {
        assert.deepEqual(await extremes('SUCCESS', scope), everywhere(1, 500, 500));
        assert.deepEqual(await extremes('FAILURE', scope), everywhere(2, 5, 2000));
      }
      // The last success moves to another workflow, then out of every window but the day.
      await ingest(ctx.db, [run(y, 'SUCCESS', SECOND, 500, other.uuid)]);
      assert.deepEqual(await extremes('SUCCESS', wf.uuid as string), everywhere(0, null, null));
      assert.deepEqual(await extremes('SUCCESS', other.uuid as string), everywhere(1, 500, 500));
      await ingest(ctx.db, [run(y, 'SUCCESS', 5 * HOUR, 500, other.uuid)]);
      assert.deepEqual(await extremes('SUCCESS'), [
        ...everywhere(0, null, null).slice(0, 2),
        [1, 500, 500],
        [0, null, null],
      ]);
      assert.deepEqual(await extremes('FAILURE'), everywhere(2, 5, 2000));
    });

  it('counts an execution of a workflow only once the workflow arrives, its extremes included', async () => {
    const t = await createTenant(ctx.db);
    const known = workflow(t.organizationId);
    const late = workflow(t.organizationId);
    const window = { from: iso(T0), to: iso(T0 + HOUR) };
    const finished = (workflowUuid: string, offset: number, ms: number) =>
      execution(t.organizationId, workflowUuid, {
        startedAt: iso(T0 + offset),
        finishedAt: iso(T0 + offset + ms),
      });
    const shortest = finished(late.uuid as string, 2 * MINUTE, 7);
    await ingest(ctx.db, [known, finished(known.uuid as string, MINUTE, 300), shortest]);
    await ingest(ctx.db, [finished(late.uuid as string, 3 * MINUTE, 90_000)]);
    const figures = async (input: Record<string, unknown>) => {
      const s = await stats(t.key, { ...window, ...input });
      return [s.count, s.minMs, s.maxMs, s.meanMs];
    };
    assert.deepEqual(await figures({}), [1, 300, 300, 300]);
    assert.deepEqual(await figures({ workflowUUID: late.uuid }), [0, null, null, null]);
    await ingest(ctx.db, [late]);
    assert.deepEqual(await figures({}), [3, 7, 90_000, 90_307 / 3]);
    assert.deepEqual(await figures({ workflowUUID: late.uuid }), [2, 7, 90_000, 90_007 / 2]);
    // The shortest is corrected after its workflow joined: the organization-wide extremes follow.
    await ingest(ctx.db, [{ ...shortest, finishedAt: iso(T0 + 2 * MINUTE + 1000) }]);
    assert.deepEqual(await figures({}), [3, 300, 90_000, 91_300 / 3]);
    assert.deepEqual(await figures({ workflowUUID: late.uuid }), [2, 1000, 90_000, 91_000 / 2]);
  });

  it("never counts another organization's durations", async () => {
    const a = await createTenant(ctx.db, 'Acme');
    const b = await createTenant(ctx.db, 'Beta');
    const window = { from: iso(T0), to: iso(T0 + HOUR) };
    const seed = async (t: Tenant, durations: number[]) => {
      const wf = workflow(t.organizationId);
      const runs = durations.map((ms, i) =>
        execution(t.organizationId, wf.uuid as string, {
          startedAt: iso(T0 + i * MINUTE),
          finishedAt: iso(T0 + i * MINUTE + ms),
        }),
      );
      await ingest(ctx.db, [
        wf,
        ...runs,
        ...runs.map((run, i) =>
          event(t.organizationId, run.uuid as string, {
            capabilityID: 'shared@1',
            startedAt: iso(T0 + i * MINUTE),
            finishedAt: iso(T0 + i * MINUTE + durations[i]!),
          }),
        ),
      ]);
      return wf.uuid as string;
    };
    await seed(a, [100, 200, 300]);
    const before = [await stats(a.key, window), await stats(a.key, { ...window, capabilityID: 'shared@1' })];
    const bWorkflow = await seed(b, [0, 1, 600_000, 42]);
    assert.deepEqual(
      [await stats(a.key, window), await stats(a.key, { ...window, capabilityID: 'shared@1' })],
      before,
    );
    assertStats(before[0]!, [100, 200, 300], 'A');
    assert.equal((await stats(a.key, { ...window, workflowUUID: bWorkflow })).count, 0);
    assert.equal((await stats(b.key, window)).count, 4);
  });

  it('covers the 24 hours before now when the window is not given', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const now = Date.now();
    const run = (startedAt: number, ms: number) =>
      execution(t.organizationId, wf.uuid as string, {
        startedAt: iso(startedAt),
        finishedAt: iso(startedAt + ms),
      });
    await ingest(ctx.db, [
      wf,
      run(now - 25 * HOUR, 1),
      run(now - 23 * HOUR, 20),
      run(now - MINUTE, 30),
      run(now + HOUR, 4),
    ]);
    const answer = await stats(t.key, {});
    assert.deepEqual([answer.count, answer.minMs, answer.maxMs], [2, 20, 30]);
    // With only `to`, the window is the 24 hours before it.
    const untilThen = await stats(t.key, { to: iso(now - 22 * HOUR) });
    assert.deepEqual([untilThen.count, untilThen.minMs, untilThen.maxMs], [2, 1, 20]);
  });

  it('refuses more than 10 statuses and a window whose from is later than its to', async () => {
    const t = await createTenant(ctx.db);
    assertFieldError(
      await ctx.server.gql(t.key, STATS, { input: { status: Array(11).fill('SUCCESS') } }),
      'BAD_USER_INPUT',
      'status must have at most 10 values',
    );
    assertFieldError(
      await ctx.server.gql(t.key, STATS, { input: { from: iso(T0 + 1), to: iso(T0) } }),
      'BAD_USER_INPUT',
      'from must not be later than to',
    );
    assert.equal((await stats(t.key, { workflowUUID: 'not-a-uuid' })).count, 0);
  });
});
