import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { createTenant, execution, ingest, type Tenant, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { assertFieldError, dataOf } from './graphql-assertions.js';

const ACTIVITY = `query($input: WorkflowActivityInput!) { workflowActivity(input: $input) {
  data { from to successCount failureCount } } }`;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

interface Row {
  from: string;
  to: string;
  successCount: number;
  failureCount: number;
}

/** Deterministic pseudo-random numbers, so a failure can be replayed. */
function lcg(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** Asserts the buckets are contiguous, aligned to UTC multiples of `width` and cover [from, to]. */
function assertCovering(rows: Row[], from: number, to: number, width: number) {
  assert.ok(rows.length > 0);
  for (const [i, row] of rows.entries()) {
    assert.equal(at(row.to) - at(row.from), width, `bucket ${row.from} is ${width} ms wide`);
    assert.equal(at(row.from) % width, 0, `bucket ${row.from} is aligned`);
    if (i > 0) assert.equal(row.from, rows[i - 1]!.to, 'buckets are contiguous');
  }
  assert.ok(at(rows[0]!.from) <= from && from < at(rows[0]!.to), 'the first bucket holds from');
  assert.ok(at(rows.at(-1)!.from) <= to && to < at(rows.at(-1)!.to), 'the last bucket holds to');
}

describe('workflowActivity', () => {
  const ctx = useServer();

  async function activity(tenant: Tenant, input: Record<string, unknown>): Promise<Row[]> {
    return dataOf(await ctx.server.gql(tenant.key, ACTIVITY, { input })).workflowActivity.data;
  }

  it('chooses the bucket width from the range, at the exact boundaries', async () => {
    const tenant = await createTenant(ctx.db);
    const from = at('2026-03-01T00:00:00Z');
    const cases: Array<[number, number]> = [
      [0, 5 * MINUTE],
      [2 * HOUR, 5 * MINUTE],
      [2 * HOUR + 1, HOUR],
      [2 * DAY, HOUR],
      [2 * DAY + 1, DAY],
      [90 * DAY, DAY],
      [90 * DAY + 1, 7 * DAY],
      [400 * DAY, 7 * DAY],
    ];
    for (const [range, width] of cases) {
      const rows = await activity(tenant, { from: iso(from), to: iso(from + range) });
      assertCovering(rows, from, from + range, width);
    }
  });

  it('aligns buckets to UTC multiples of their width and covers [from, to] with zero-count buckets', async () => {
    const tenant = await createTenant(ctx.db);
    const random = lcg(3);
    const base = at('2026-03-01T00:00:00Z');
    for (const maxRange of [2 * HOUR, 2 * DAY, 90 * DAY, 700 * DAY]) {
      for (let i = 0; i < 3; i++) {
        const from = base + Math.floor(random() * 30 * DAY);
        const to = from + Math.floor(maxRange / 2 + (random() * maxRange) / 2);
        const width =
          to - from <= 2 * HOUR
            ? 5 * MINUTE
            : to - from <= 2 * DAY
              ? HOUR
              : to - from <= 90 * DAY
                ? DAY
                : 7 * DAY;
        const rows = await activity(tenant, { from: iso(from), to: iso(to) });
        assertCovering(rows, from, to, width);
        assert.equal(rows.length, Math.floor(to / width) - Math.floor(from / width) + 1);
        assert.ok(rows.every((row) => row.successCount === 0 && row.failureCount === 0));
      }
    }
    // Offsets are accepted; `to` exactly on a boundary is inside the bucket it starts.
    const rows = await activity(tenant, {
      from: '2026-03-01T02:00:00+02:00',
      to: '2026-02-28T22:00:00-05:00',
    });
    assert.deepEqual(
      rows.map((row) => row.from),
      ['2026-03-01T00:00:00Z', '2026-03-01T01:00:00Z', '2026-03-01T02:00:00Z', '2026-03-01T03:00:00Z'],
    );
  });

  it('counts successes and failures per bucket, for one workflow or the whole organization', async () => {
    const tenant = await createTenant(ctx.db);
    const other = await createTenant(ctx.db, 'Other');
    const org = tenant.organizationId;
    const first = workflow(org);
    const second = workflow(org);
    const foreign = workflow(other.organizationId);
    const random = lcg(11);
    const base = at('2026-03-01T00:00:00Z');
    const statuses = ['SUCCESS', 'FAILURE', 'IN_PROGRESS', 'SUCCESS', 'TRIGGERED'];
    const edges = [
      base,
      base - 1,
      base + 5 * MINUTE,
      base + 5 * MINUTE - 1,
      base + HOUR,
      base + HOUR - 1,
      base + DAY,
    ];
    const executions = [
      ...edges,
      ...edges,
      ...Array.from({ length: 200 }, () => base - 3 * DAY + Math.floor(random() * 20 * DAY)),
    ].map((start, i) => ({
      start,
      status: statuses[i % statuses.length]!,
      workflow: (i % 3 === 0 ? second : first).uuid as string,
    }));
    await ingest(ctx.db, [
      first,
      second,
      foreign,
      ...executions.map((e) => execution(org, e.workflow, { startedAt: iso(e.start), status: e.status })),
      ...edges.map((start) =>
        execution(other.organizationId, foreign.uuid as string, { startedAt: iso(start) }),
      ),
    ]);

    const ranges: Array<[number, number]> = [
      [base - 17 * MINUTE - 1, base + HOUR + 3 * MINUTE], // 5-minute buckets
      [base - 7 * HOUR - 5, base + 30 * HOUR], // hourly
      [base - 3 * DAY - HOUR, base + 9 * DAY + 1], // daily
      [base - 40 * DAY, base + 80 * DAY], // weekly
    ];
    for (const [from, to] of ranges) {
      for (const workflowUUID of [undefined, first.uuid as string, second.uuid as string]) {
        const rows = await activity(tenant, { from: iso(from), to: iso(to), workflowUUID });
        const counted = executions.filter((e) => workflowUUID === undefined || e.workflow === workflowUUID);
        const expected = rows.map((row) => {
          const inBucket = counted.filter((e) => e.start >= at(row.from) && e.start < at(row.to));
          return {
            from: row.from,
            to: row.to,
            successCount: inBucket.filter((e) => e.status === 'SUCCESS').length,
            failureCount: inBucket.filter((e) => e.status === 'FAILURE').length,
          };
        });
        assert.deepEqual(rows, expected, `${iso(from)}..${iso(to)} ${workflowUUID ?? 'organization'}`);
        assert.ok(rows.some((row) => row.successCount > 0));
      }
    }
  });

  it('defaults to to = now and from = to minus 24 hours', async () => {
    const tenant = await createTenant(ctx.db);
    const wf = workflow(tenant.organizationId);
    const before = Date.now();
    await ingest(ctx.db, [
      wf,
      execution(tenant.organizationId, wf.uuid as string, { startedAt: iso(before - 30 * MINUTE) }),
      execution(tenant.organizationId, wf.uuid as string, {
        startedAt: iso(before - 25 * HOUR),
        status: 'FAILURE',
      }),
    ]);
    const rows = await activity(tenant, {});
    const after = Date.now();
    assert.equal(at(rows[0]!.to) - at(rows[0]!.from), HOUR);
    assert.ok(
      at(rows[0]!.from) <= after - DAY && at(rows[0]!.to) > before - DAY,
      'starts 24 hours before now',
    );
    assert.ok(at(rows.at(-1)!.from) <= after && at(rows.at(-1)!.to) > before, 'ends now');
    assert.equal(
      rows.reduce((sum, row) => sum + row.successCount, 0),
      1,
    );
    assert.equal(
      rows.reduce((sum, row) => sum + row.failureCount, 0),
      0,
    );

    const untilNoon = await activity(tenant, { to: '2026-03-01T12:00:00Z' });
    assertCovering(untilNoon, at('2026-02-28T12:00:00Z'), at('2026-03-01T12:00:00Z'), HOUR);
    assert.equal(untilNoon[0]!.from, '2026-02-28T12:00:00Z');

    const sinceAnHourAgo = await activity(tenant, { from: iso(before - HOUR) });
    assert.equal(at(sinceAnHourAgo[0]!.to) - at(sinceAnHourAgo[0]!.from), 5 * MINUTE);
    assert.ok(at(sinceAnHourAgo.at(-1)!.to) > before);
  });

  it('rejects from later than to, also when to is the default now', async () => {
    const tenant = await createTenant(ctx.db);
    for (const input of [
      { from: '2026-03-01T00:00:00.001Z', to: '2026-03-01T00:00:00Z' },
      { from: iso(Date.now() + DAY) },
    ]) {
      const response = await ctx.server.gql(tenant.key, ACTIVITY, { input });
      assertFieldError(response, 'BAD_USER_INPUT', 'from must not be later than to');
    }
  });

  it('rejects a range of more than 1000 buckets', async () => {
    const tenant = await createTenant(ctx.db);
    const response = await ctx.server.gql(tenant.key, ACTIVITY, {
      input: { from: '1990-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' },
    });
    assertFieldError(response, 'BAD_USER_INPUT', /at most 1000 buckets/);
    const widest = await activity(tenant, { from: '2008-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' });
    assert.ok(widest.length <= 1000);
  });

  it('answers buckets up to the last representable instant and rejects buckets beyond either end', async () => {
    const tenant = await createTenant(ctx.db);
    const wf = workflow(tenant.organizationId);
    await ingest(ctx.db, [
      wf,
      execution(tenant.organizationId, wf.uuid as string, { startedAt: '9999-12-31T22:59:59.999Z' }),
      execution(tenant.organizationId, wf.uuid as string, { startedAt: '1970-01-01T00:00:00Z' }),
    ]);
    const late = await activity(tenant, { from: '9999-12-30T23:00:00Z', to: '9999-12-31T22:59:59.999Z' });
    assert.equal(late.at(-1)!.to, '9999-12-31T23:00:00Z');
    assert.equal(late.at(-1)!.successCount, 1);
    const epoch = await activity(tenant, { from: '1970-01-01T00:00:00Z', to: '1970-01-01T01:00:00Z' });
    assert.equal(epoch[0]!.successCount, 1);
    const early = await activity(tenant, { from: '0001-01-01T00:00:00Z', to: '0001-01-01T01:00:00Z' });
    assert.equal(early[0]!.from, '0001-01-01T00:00:00Z');
    assert.equal(early.length, 13);
    for (const input of [
      { to: '0001-01-01T05:00:00Z' },
      { from: '0001-01-02T00:00:00Z', to: '0001-06-01T00:00:00Z' },
      { from: '9999-12-31T22:00:00Z', to: '9999-12-31T23:59:59.999Z' },
    ]) {
      assertFieldError(
        await ctx.server.gql(tenant.key, ACTIVITY, { input }),
        'BAD_USER_INPUT',
        'the buckets of from..to must lie between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z',
      );
    }
  });

  it('answers an empty list for an unknown, malformed or foreign workflow uuid', async () => {
    const tenant = await createTenant(ctx.db);
    const other = await createTenant(ctx.db, 'Other');
    const foreign = workflow(other.organizationId);
    await ingest(ctx.db, [foreign, execution(other.organizationId, foreign.uuid as string)]);
    for (const workflowUUID of [randomUUID(), 'bad', foreign.uuid]) {
      assert.deepEqual(await activity(tenant, { workflowUUID, to: '2026-01-03T00:00:00Z' }), []);
    }
  });

  it('counts executions that arrived before their workflow only once the workflow arrives', async () => {
    const tenant = await createTenant(ctx.db);
    const wf = workflow(tenant.organizationId);
    await ingest(ctx.db, [
      execution(tenant.organizationId, wf.uuid as string, { startedAt: '2026-01-02T10:00:00Z' }),
    ]);
    const input = { from: '2026-01-02T09:00:00Z', to: '2026-01-02T11:00:00Z' };
    const total = (rows: Row[]) => rows.reduce((sum, row) => sum + row.successCount, 0);
    assert.equal(total(await activity(tenant, input)), 0);
    assert.deepEqual(await activity(tenant, { ...input, workflowUUID: wf.uuid }), []);
    await ingest(ctx.db, [wf]);
    assert.equal(total(await activity(tenant, input)), 1);
    assert.equal(total(await activity(tenant, { ...input, workflowUUID: wf.uuid })), 1);
  });
});
