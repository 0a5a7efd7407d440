import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { createTenant, event, execution, ingest, type Tenant, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { seeded } from '../ingest/dataset.js';
import { INGEST_TOKEN, postIngest } from '../ingest/http.js';
import { assertFieldError, dataOf } from '../read-api/graphql-assertions.js';
import { assertWithin, HOUR, iso, MINUTE, nearestRank, SECOND } from './reference.js';

const STATS = `query ($input: CapabilityStatsInput!) { capabilityStats(input: $input) {
  count data { capabilityID calls failures failureRate p50Ms p95Ms } } }`;

const T0 = Date.parse('2026-07-01T08:00:00Z');

interface CapabilityStats {
  capabilityID: string;
  calls: number;
  failures: number;
  failureRate: number;
  p50Ms: number | null;
  p95Ms: number | null;
}

/** A call as the reference model keeps it. */
interface Call {
  workflow: string;
  capability: string;
  startedAt: number;
  failed: boolean;
  ms: number | null;
}

describe('capabilityStats', () => {
  const ctx = useServer({ ingestToken: INGEST_TOKEN, rateLimit: { burst: 1_000_000, perSecond: 1_000_000 } });

  async function capabilityStats(key: string, input: Record<string, unknown>) {
    return dataOf(await ctx.server.gql(key, STATS, { input })).capabilityStats as {
      count: number;
      data: CapabilityStats[];
    };
  }

  /** Every capability of a window with its exact figures, in the contract's order. */
  function expected(calls: readonly Call[], from: number, to: number, workflowUuid?: string) {
    const byCapability = new Map<string, Call[]>();
    for (const call of calls) {
      if (call.startedAt < from || call.startedAt > to) continue;
      if (workflowUuid !== undefined && call.workflow !== workflowUuid) continue;
      byCapability.set(call.capability, [...(byCapability.get(call.capability) ?? []), call]);
    }
    return [...byCapability]
      .map(([capabilityID, list]) => ({
        capabilityID,
        calls: list.length,
        failures: list.filter((c) => c.failed).length,
        durations: list.filter((c) => c.ms !== null).map((c) => c.ms!),
      }))
      .sort((a, b) => b.failures - a.failures || (a.capabilityID < b.capabilityID ? -1 : 1));
  }

  function assertCapabilities(answer: CapabilityStats[], exact: ReturnType<typeof expected>, what: string) {
    assert.deepEqual(
      answer.map((c) => [c.capabilityID, c.calls, c.failures]),
      exact.map((c) => [c.capabilityID, c.calls, c.failures]),
      what,
    );
    for (const [i, c] of exact.entries()) {
      const got = answer[i]!;
      assert.equal(got.failureRate, c.failures / c.calls, `${what}: ${c.capabilityID} failureRate`);
      if (c.durations.length === 0) {
        assert.deepEqual(
          [got.p50Ms, got.p95Ms],
          [null, null],
          `${what}: ${c.capabilityID} has no finished call`,
        );
      } else {
        assertWithin(got.p50Ms, nearestRank(c.durations, 50), 0.02, `${what}: ${c.capabilityID} p50Ms`);
        assertWithin(got.p95Ms, nearestRank(c.durations, 95), 0.02, `${what}: ${c.capabilityID} p95Ms`);
      }
    }
  }

  /**
   * Calls of several capabilities over three hours, with statuses that succeed (COMPLETED,
   * SUCCESS) and others that do not (FAILED, TIMEOUT, a lower-case `completed`), some with errors,
   * some unfinished; their executions start up to ten minutes before them and finish after them
   * (so that the executions' own durations are stored beside the calls', and must stay apart).
   */
  async function seedMany(t: Tenant) {
    const random = seeded(20260701);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
    const workflows = [workflow(t.organizationId), workflow(t.organizationId)];
    const uuids = workflows.map((w) => w.uuid as string);
    const records: Record<string, unknown>[] = [...workflows];
    const calls: Call[] = [];
    for (let i = 0; i < 120; i++) {
      const wf = uuids[i % 2]!;
      const callStart = T0 + Math.floor(random() * 3 * HOUR);
      const run = execution(t.organizationId, wf, {
        status: 'SUCCESS',
        startedAt: iso(callStart - Math.floor(random() * 10 * MINUTE)),
        finishedAt: iso(callStart + 20 * MINUTE),
      });
      records.push(run);
      for (let k = 1 + Math.floor(random() * 3); k > 0; k--) {
        // cap-e is never unfinished-free: every call of it is unfinished.
        const capability = pick(['cap-a@1', 'cap-b@1', 'cap-c@2', 'cap-d@1', 'cap-e@1']);
        const status = pick(['COMPLETED', 'SUCCESS', 'COMPLETED', 'FAILED', 'TIMEOUT', 'completed']);
        const errors = random() < 0.15 ? [{ error: `call ${i} failed`, count: 1 + k }] : [];
        const ms = capability === 'cap-e@1' || random() < 0.1 ? null : Math.round(Math.exp(random() * 11));
        const startedAt = callStart + k * SECOND;
        records.push(
          event(t.organizationId, run.uuid as string, {
            capabilityID: capability,
            status,
            startedAt: iso(startedAt),
            ...(ms === null ? {} : { finishedAt: iso(startedAt + ms) }),
            ...(errors.length ? { errors } : {}),
          }),
        );
        calls.push({
          workflow: wf,
          capability,
          startedAt,
          failed: errors.length > 0 || !['COMPLETED', 'SUCCESS'].includes(status),
          ms,
        });
      }
    }
    await ingest(ctx.db, records);
    return { calls, uuids };
  }

  it('counts calls and failures, the failure rate and the p50 and p95 of finished calls, in failures-then-id order', async () => {
    const t = await createTenant(ctx.db);
    const { calls, uuids } = await seedMany(t);
    const windows = [
      [T0, T0 + 3 * HOUR],
      [T0 + 17 * MINUTE + 3 * SECOND + 1, T0 + 2 * HOUR + 4 * MINUTE + 59 * SECOND],
      [T0 + 30 * MINUTE + 10 * SECOND, T0 + 33 * MINUTE],
    ] as const;
    for (const [from, to] of windows) {
      for (const workflowUUID of [undefined, uuids[0], uuids[1]]) {
        const what = `${iso(from)}..${iso(to)} ${workflowUUID ?? 'all'}`;
        const exact = expected(calls, from, to, workflowUUID);
        const answer = await capabilityStats(t.key, { from: iso(from), to: iso(to), workflowUUID });
        assert.equal(answer.count, exact.length, `${what}: count`);
        assertCapabilities(answer.data, exact, what);
      }
    }
    // cap-e's calls never finished: counted as calls (and failures, when they fail), with no percentile.
    const all = expected(calls, T0, T0 + 3 * HOUR);
    assert.ok(all.find((c) => c.capabilityID === 'cap-e@1')!.calls > 0);
    assert.equal(all.length, 5);
  });

  it('pages the capabilities with the total in count', async () => {
    const t = await createTenant(ctx.db);
    const { calls } = await seedMany(t);
    const exact = expected(calls, T0, T0 + 3 * HOUR);
    const window = { from: iso(T0), to: iso(T0 + 3 * HOUR) };
    const seen: CapabilityStats[] = [];
    for (let number = 0; number < 4; number++) {
      const page = await capabilityStats(t.key, { ...window, page: { number, size: 2 } });
      assert.equal(page.count, exact.length);
      seen.push(...page.data);
    }
    assertCapabilities(seen, exact, 'pages');
    assertFieldError(
      await ctx.server.gql(t.key, STATS, { input: { ...window, page: { number: -1 } } }),
      'BAD_USER_INPUT',
      'page.number must be at least 0',
    );
  });

  it('fails a call for an error or a status other than COMPLETED and SUCCESS, and orders ties by capability id', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const run = execution(t.organizationId, wf.uuid as string, { startedAt: iso(T0) });
    const call = (capabilityID: string, status: string, errors?: Array<{ error: string; count: number }>) =>
      event(t.organizationId, run.uuid as string, {
        capabilityID,
        status,
        startedAt: iso(T0 + Math.floor(Math.random() * HOUR)),
        finishedAt: iso(T0 + 2 * HOUR),
        ...(errors ? { errors } : {}),
      });
    await ingest(ctx.db, [
      wf,
      run,
      call('ok@1', 'COMPLETED'),
      call('ok@1', 'SUCCESS'),
      call('ok@1', 'SUCCESS', []),
      call('b-errors@1', 'COMPLETED', [{ error: 'x', count: 1 }]),
      call('b-errors@1', 'SUCCESS'),
      call('a-status@1', 'FAILED'),
      call('a-status@1', 'COMPLETED'),
      call('c-status@1', 'IN_PROGRESS'),
      call('c-status@1', 'Completed'),
    ]);
    const answer = await capabilityStats(t.key, { from: iso(T0), to: iso(T0 + HOUR) });
    assert.deepEqual(
      answer.data.map((c) => [c.capabilityID, c.calls, c.failures, c.failureRate]),
      [
        ['c-status@1', 2, 2, 1],
        ['a-status@1', 2, 1, 0.5],
        ['b-errors@1', 2, 1, 0.5],
        ['ok@1', 3, 0, 0],
      ],
    );
  });

  it('bounds the window by the start of each call, not of its execution', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const from = T0 + 2 * MINUTE + 30 * SECOND;
    const to = T0 + HOUR + 2 * MINUTE + 30 * SECOND;
    // The execution starts before the window, its calls on both sides of each edge.
    const run = execution(t.organizationId, wf.uuid as string, { startedAt: iso(T0) });
    const at = (startedAt: number, ms: number) =>
      event(t.organizationId, run.uuid as string, {
        capabilityID: 'edge@1',
        status: 'COMPLETED',
        startedAt: iso(startedAt),
        finishedAt: iso(startedAt + ms),
      });
    await ingest(ctx.db, [
      wf,
      run,
      at(from - 1, 1),
      at(from, 2),
      at(from + 1, 4),
      at(to - 1, 8),
      at(to, 16),
      at(to + 1, 32),
    ]);
    const [edge] = (await capabilityStats(t.key, { from: iso(from), to: iso(to) })).data;
    assert.deepEqual(edge && [edge.calls, edge.p50Ms, edge.p95Ms], [4, 4, 16]);
    const early = await capabilityStats(t.key, { from: iso(T0), to: iso(from - 1) });
    assert.deepEqual(
      early.data.map((c) => c.calls),
      [1],
    );
  });

  it('reads an edge covering most of its minute as that minute less the calls outside the window, exactly', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const run = execution(t.organizationId, wf.uuid as string, { startedAt: iso(T0) });
    const minute = T0 + 10 * MINUTE;
    // Calls at these seconds of one minute, each of a different duration; every third fails.
    const seconds = [0, 0.5, 5, 10, 20, 30, 40, 50, 59.5, 59.999];
    const calls: Call[] = seconds.map((s, i) => ({
      workflow: wf.uuid as string,
      capability: i % 2 === 0 ? 'even@1' : 'odd@1',
      startedAt: minute + s * SECOND,
      failed: i % 3 === 0,
      ms: 100 * 2 ** i,
    }));
    await ingest(ctx.db, [
      wf,
      run,
      ...calls.map((c) =>
        event(t.organizationId, run.uuid as string, {
          capabilityID: c.capability,
          status: c.failed ? 'FAILED' : 'COMPLETED',
          startedAt: iso(c.startedAt),
          finishedAt: iso(c.startedAt + c.ms!),
        }),
      ),
    ]);
    const windows = [
      // The start edge covers 45 of the minute's 60 seconds: the calls at 0 to 10 s are subtracted.
      [minute + 15 * SECOND, minute + HOUR],
      // The end edge covers [0, 45 s]: the calls from 50 s on are subtracted.
      [minute - HOUR, minute + 45 * SECOND],
      // Both bounds inside the minute: subtracted on both sides of it.
      [minute + SECOND, minute + 59 * SECOND],
      // Edges of half a minute or less are read call by call.
      [minute + 30 * SECOND + 1, minute + 59 * SECOND],
      [minute + 20 * SECOND, minute + 50 * SECOND],
    ] as const;
    for (const [from, to] of windows) {
      for (const workflowUUID of [undefined, wf.uuid as string]) {
        const what = `${iso(from)}..${iso(to)} ${workflowUUID ?? 'all'}`;
        const exact = expected(calls, from, to, workflowUUID);
        assert.ok(exact.length > 0, what);
        const answer = await capabilityStats(t.key, { from: iso(from), to: iso(to), workflowUUID });
        assert.equal(answer.count, exact.length, `${what}: count`);
        assertCapabilities(answer.data, exact, what);
      }
    }
  });

  it('counts calls once their execution and its workflow are stored, under the workflow the execution has now', async () => {
    const t = await createTenant(ctx.db);
    const [wf1, wf2] = [workflow(t.organizationId), workflow(t.organizationId)];
    const window = { from: iso(T0), to: iso(T0 + HOUR) };
    const uuid = randomUUID();
    const calls = [1, 2, 3].map((n) =>
      event(t.organizationId, uuid, {
        capabilityID: 'late@1',
        status: n === 3 ? 'FAILED' : 'COMPLETED',
        startedAt: iso(T0 + n * MINUTE),
        finishedAt: iso(T0 + n * MINUTE + n * 100),
      }),
    );
    const calls1 = async (workflowUUID?: string) =>
      (await capabilityStats(t.key, { ...window, workflowUUID })).data.map((c) => [
        c.calls,
        c.failures,
        c.p95Ms,
      ]);
    await ingest(ctx.db, [wf1, ...calls]);
    assert.deepEqual(await calls1(), []);
    // The execution arrives, of a workflow not stored yet.
    await ingest(ctx.db, [execution(t.organizationId, wf2.uuid as string, { uuid, startedAt: iso(T0) })]);
    assert.deepEqual(await calls1(), []);
    await ingest(ctx.db, [wf2]);
    assert.deepEqual(await calls1(), [[3, 1, 300]]);
    assert.deepEqual(await calls1(wf2.uuid as string), [[3, 1, 300]]);
    // It moves to the other workflow, its calls with it; a re-send changes nothing.
    for (let send = 0; send < 2; send++) {
      await ingest(ctx.db, [
        execution(t.organizationId, wf1.uuid as string, { uuid, startedAt: iso(T0) }),
        ...calls,
      ]);
      assert.deepEqual(await calls1(wf2.uuid as string), []);
      assert.deepEqual(await calls1(wf1.uuid as string), [[3, 1, 300]]);
      assert.deepEqual(await calls1(), [[3, 1, 300]]);
    }
    assert.deepEqual(await capabilityStats(t.key, { ...window, workflowUUID: 'nope' }), {
      count: 0,
      data: [],
    });
  });

  it('refuses ingesting the capability id *, which stands for any level in the rollups', async () => {
    const t = await createTenant(ctx.db);
    const answer = await postIngest(ctx.server.url, [
      event(t.organizationId, randomUUID(), { capabilityID: '*' }),
    ]);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.accepted, 0);
    assert.deepEqual(answer.body.rejected, [{ line: 1, error: 'capabilityID must not be "*" (reserved)' }]);
  });

  it("never counts another organization's calls", async () => {
    const a = await createTenant(ctx.db, 'Acme');
    const b = await createTenant(ctx.db, 'Beta');
    const window = { from: iso(T0), to: iso(T0 + HOUR) };
    const seed = async (t: Tenant, statuses: string[]) => {
      const wf = workflow(t.organizationId);
      const run = execution(t.organizationId, wf.uuid as string, { startedAt: iso(T0) });
      await ingest(ctx.db, [
        wf,
        run,
        ...statuses.map((status, i) =>
          event(t.organizationId, run.uuid as string, {
            capabilityID: 'shared@1',
            status,
            startedAt: iso(T0 + i * SECOND),
            finishedAt: iso(T0 + i * SECOND + 10 ** i),
          }),
        ),
      ]);
      return wf.uuid as string;
    };
    await seed(a, ['COMPLETED', 'FAILED']);
    const before = await capabilityStats(a.key, window);
    const bWorkflow = await seed(b, ['FAILED', 'FAILED', 'FAILED', 'COMPLETED', 'COMPLETED']);
    assert.deepEqual(await capabilityStats(a.key, window), before);
    assert.deepEqual(
      before.data.map((c) => [c.capabilityID, c.calls, c.failures, c.p50Ms, c.p95Ms]),
      [['shared@1', 2, 1, 1, 10]],
    );
    assert.deepEqual(await capabilityStats(a.key, { ...window, workflowUUID: bWorkflow }), {
      count: 0,
      data: [],
    });
    assert.equal((await capabilityStats(b.key, window)).data[0]!.calls, 5);
  });
});
