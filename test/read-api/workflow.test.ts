import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { createTenant, deployment, execution, ingest, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { assertFieldError, assertOneError, dataOf } from './graphql-assertions.js';

const ONE = `query($input: WorkflowInput!) { workflow(input: $input) { data {
  uuid name status executionCount executionCountByStatus { success failure } creditUsed executedAt
  hasTeeExecutions hasNonTeeExecutions } } }`;

/** Deterministic pseudo-random numbers, so a failure can be replayed. */
function lcg(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const SCALE = 10n ** 18n;
/** Exact decimal sum of decimal strings, without trailing zeros, as the API must answer it. */
function decimalSum(values: readonly string[]): string {
  const total = values.reduce((sum, value) => {
    const [whole, fraction = ''] = value.split('.');
    return sum + BigInt(whole!) * SCALE + BigInt(fraction.padEnd(18, '0'));
  }, 0n);
  const fraction = (total % SCALE).toString().padStart(18, '0').replace(/0+$/, '');
  return fraction ? `${total / SCALE}.${fraction}` : `${total / SCALE}`;
}

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('workflow', () => {
  const ctx = useServer();

  it('counts executions, by status, and credit from `from` on, exactly at any boundary', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const target = workflow(org);
    const neighbour = workflow(org);
    const random = lcg(42);
    const base = at('2026-03-01T00:00:00Z');
    const edges = [
      '2026-03-01T00:00:00.000Z',
      '2026-02-28T23:59:59.999Z',
      '2026-03-02T00:00:00.000Z',
      '2026-03-01T23:59:59.999Z',
      '2026-03-01T10:00:00.000Z',
      '2026-03-01T09:59:59.999Z',
      '2026-03-01T10:05:00.000Z',
      '2026-03-01T10:04:59.999Z',
      '2026-03-01T10:02:30.250Z',
    ].map(at);
    const starts = [
      ...edges,
      ...Array.from({ length: 140 }, () => base - 86_400_000 + Math.floor(random() * 4 * 86_400_000)),
    ];
    const statuses = ['SUCCESS', 'FAILURE', 'IN_PROGRESS', 'SUCCESS', 'TRIGGERED', 'FAILURE'];
    const executions = starts.map((start, i) => ({
      start,
      status: statuses[i % statuses.length]!,
      credit: i % 5 === 4 ? null : `${Math.floor(random() * 1000)}.${Math.floor(random() * 1000)}`,
    }));
    await ingest(ctx.db, [
      target,
      neighbour,
      ...executions.map((e, i) =>
        execution(org, target.uuid as string, {
          startedAt: iso(e.start),
          status: e.status,
          creditUsed: e.credit,
          executedInTee: i % 3 === 0,
        }),
      ),
      // Same instants in another workflow: they must never leak into the target's counts.
      ...executions.map((e) => execution(org, neighbour.uuid as string, { startedAt: iso(e.start) })),
    ]);

    const froms = [
      at('2026-03-01T10:02:30.250Z'), // mid five minutes, exactly on an execution
      at('2026-03-01T10:02:30.251Z'), // 1 ms after it
      at('2026-03-01T10:37:00Z'), // mid hour, on a five-minute boundary
      at('2026-03-01T13:00:00Z'), // mid day, on an hour boundary
      at('2026-03-01T13:41:17.003Z'),
      at('2026-03-02T00:00:00Z'), // exactly on a day boundary, with an execution there
      at('2026-03-02T00:00:00.001Z'),
      at('2026-03-01T10:05:00Z'),
      at('2026-03-01T10:00:00Z'),
      at('2026-02-27T00:00:00Z'), // before everything
      at('2026-03-09T00:00:00Z'), // after everything
      ...Array.from({ length: 29 }, () => base - 86_400_000 + Math.floor(random() * 4 * 86_400_000)),
    ];
    // Every execution start itself and 1 ms after it: an execution exactly at `from` counts, 1 ms before does not.
    for (const start of starts.slice(0, 30)) froms.push(start, start + 1);

    for (let offset = 0; offset < froms.length; offset += 10) {
      const batch = froms.slice(offset, offset + 10);
      const fields = batch
        .map(
          (from, i) => `w${i}: workflow(input: {uuid: "${target.uuid}", from: "${iso(from)}"}) {
            data { executionCount executionCountByStatus { success failure } creditUsed } }`,
        )
        .join('\n');
      const data = dataOf(await ctx.server.gql(tenant.key, `{ ${fields} }`));
      batch.forEach((from, i) => {
        const inWindow = executions.filter((e) => e.start >= from);
        const expected = {
          executionCount: inWindow.length,
          executionCountByStatus: {
            success: inWindow.filter((e) => e.status === 'SUCCESS').length,
            failure: inWindow.filter((e) => e.status === 'FAILURE').length,
          },
          creditUsed: inWindow.length
            ? decimalSum(inWindow.map((e) => e.credit).filter((c): c is string => c !== null))
            : null,
        };
        assert.deepEqual(data[`w${i}`].data, expected, `from ${iso(from)}`);
      });
    }
  });

  it('reports executedAt, TEE flags and status over all time, whatever `from` is', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const wf = workflow(org, { status: 'PENDING', name: 'Feed' });
    const w = wf.uuid as string;
    await ingest(ctx.db, [
      wf,
      deployment(org, w, { status: 'PAUSED', deployedAt: '2026-01-05T00:00:00Z' }),
      deployment(org, w, { status: 'ACTIVE', deployedAt: '2026-01-04T00:00:00Z' }),
      execution(org, w, { startedAt: '2026-01-06T08:00:00.120Z', executedInTee: true, creditUsed: '5' }),
      execution(org, w, { startedAt: '2026-01-02T00:00:00Z', executedInTee: false, status: 'FAILURE' }),
    ]);
    const data = dataOf(
      await ctx.server.gql(tenant.key, ONE, { input: { uuid: w, from: '2027-01-01T00:00:00Z' } }),
    );
    assert.deepEqual(data.workflow.data, {
      uuid: w,
      name: 'Feed',
      status: 'PAUSED',
      executionCount: 0,
      executionCountByStatus: { success: 0, failure: 0 },
      creditUsed: null,
      executedAt: '2026-01-06T08:00:00.120Z',
      hasTeeExecutions: true,
      hasNonTeeExecutions: true,
    });
    const bare = workflow(org, { status: 'FAILED' });
    await ingest(ctx.db, [bare]);
    const own = dataOf(
      await ctx.server.gql(tenant.key, ONE, { input: { uuid: bare.uuid, from: '2026-01-01T00:00:00Z' } }),
    );
    assert.equal(own.workflow.data.status, 'FAILED');
    assert.equal(own.workflow.data.executedAt, null);
    assert.equal(own.workflow.data.hasTeeExecutions, false);
    assert.equal(own.workflow.data.hasNonTeeExecutions, false);
  });

  it('sums CreditAmount exactly as a JSON string, in the window and over all time', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const small = workflow(org, { registeredAt: '2026-01-02T00:00:00Z' });
    const large = workflow(org, { registeredAt: '2026-01-01T00:00:00Z' });
    const s = small.uuid as string;
    const l = large.uuid as string;
    await ingest(ctx.db, [
      small,
      large,
      // One on an aligned boundary (rollups), one off it (edge scan), one far back (outside the window).
      execution(org, s, { startedAt: '2026-02-01T00:00:00Z', creditUsed: '0.1' }),
      execution(org, s, { startedAt: '2026-02-01T00:03:17.5Z', creditUsed: 0.2 }),
      execution(org, s, { startedAt: '2025-01-01T00:00:00Z', creditUsed: '0.7' }),
      execution(org, l, {
        startedAt: '2026-02-01T00:00:00Z',
        creditUsed: '99999999999999999999.999999999999999999',
      }),
      execution(org, l, { startedAt: '2026-02-01T06:00:00.001Z', creditUsed: '0.000000000000000001' }),
      execution(org, l, { startedAt: '2026-02-02T00:00:00Z', creditUsed: '1234567890123456789012345678901' }),
    ]);
    const query = `query($s: String!, $l: String!) {
      s: workflow(input: {uuid: $s, from: "2026-01-31T23:59:59.999Z"}) { data { creditUsed } }
      l: workflow(input: {uuid: $l, from: "2026-01-31T23:59:59.999Z"}) { data { creditUsed } }
      workflows(input: {}) { data { creditUsed } } }`;
    const data = dataOf(await ctx.server.gql(tenant.key, query, { s, l }));
    assert.equal(data.s.data.creditUsed, '0.3');
    assert.equal(data.l.data.creditUsed, '1234567890223456789012345678901');
    assert.deepEqual(
      data.workflows.data.map((w: { creditUsed: unknown }) => w.creditUsed),
      ['1', '1234567890223456789012345678901'],
    );
  });

  it('emits times as UTC with milliseconds only when non-zero, and accepts any offset for `from`', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const wf = workflow(org, { registeredAt: '2026-08-31T16:32:18+02:00' });
    const w = wf.uuid as string;
    await ingest(ctx.db, [
      wf,
      execution(org, w, { startedAt: '2026-09-01T00:00:00Z' }),
      execution(org, w, { startedAt: '2026-09-01T01:59:59.999Z', status: 'FAILURE' }),
      execution(org, w, { startedAt: '2026-09-01T02:00:00.5+00:00' }),
    ]);
    const query = `query($from: Time!) { workflow(input: {uuid: "${w}", from: $from}) {
      data { registeredAt executedAt executionCount } } }`;
    const ask = async (from: string) =>
      dataOf(await ctx.server.gql(tenant.key, query, { from })).workflow.data;
    assert.deepEqual(await ask('2026-09-01T04:00:00+02:00'), {
      registeredAt: '2026-08-31T14:32:18Z',
      executedAt: '2026-09-01T02:00:00.500Z',
      executionCount: 1,
    });
    assert.equal((await ask('2026-08-31T21:59:59.999-04:00')).executionCount, 2);
    assert.equal((await ask('2026-09-01T01:59:59.999Z')).executionCount, 2);
    assert.equal((await ask('2026-09-01T00:00:00z')).executionCount, 3);

    for (const bad of ['2026-09-01T00:00:00', '2026-02-30T00:00:00Z', 'yesterday', '']) {
      assertOneError(await ctx.server.gql(tenant.key, query, { from: bad }), 'BAD_USER_INPUT', /Time/);
    }
  });

  it('accepts instants from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z and rejects any outside', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const wf = workflow(org);
    const w = wf.uuid as string;
    await ingest(ctx.db, [
      wf,
      execution(org, w, { startedAt: '1970-01-01T00:00:00Z' }),
      execution(org, w, { startedAt: '2026-01-01T00:00:00Z' }),
      execution(org, w, { startedAt: '9999-12-31T23:59:59.999Z', status: 'FAILURE' }),
    ]);
    const query = `query($from: Time!) { workflow(input: {uuid: "${w}", from: $from}) {
      data { executionCount executionCountByStatus { failure } executedAt } } }`;
    const ask = (from: string) => ctx.server.gql(tenant.key, query, { from });
    const cases: Array<[string, number]> = [
      ['0001-01-01T00:00:00Z', 3],
      ['1970-01-01T00:00:00.001Z', 2],
      ['9999-12-30T00:00:00Z', 1],
      ['9999-12-31T12:34:56.789Z', 1],
      ['9999-12-31T23:59:59.999Z', 1],
      ['9999-12-31T23:59:59-00:00', 1],
    ];
    for (const [from, count] of cases) {
      const data = dataOf(await ask(from)).workflow.data;
      assert.equal(data.executionCount, count, from);
      assert.equal(data.executedAt, '9999-12-31T23:59:59.999Z');
    }
    for (const from of [
      '0000-12-31T23:59:59.999Z',
      '0001-01-01T00:30:00+01:00',
      '9999-12-31T23:59:59-05:00',
    ]) {
      assertOneError(await ask(from), 'BAD_USER_INPUT', /in years 0001 to 9999 UTC/);
    }
  });

  it('accepts the input inline, field by field, or as one variable', async () => {
    const tenant = await createTenant(ctx.db);
    const wf = workflow(tenant.organizationId, { name: 'Inline' });
    await ingest(ctx.db, [wf]);
    const inline = dataOf(
      await ctx.server.gql(
        tenant.key,
        `query($uuid: String!, $from: Time!) { workflow(input: {uuid: $uuid, from: $from}) { data { name } } }`,
        { uuid: wf.uuid, from: '2026-01-01T00:00:00Z' },
      ),
    );
    const whole = dataOf(
      await ctx.server.gql(tenant.key, ONE, { input: { uuid: wf.uuid, from: '2026-01-01T00:00:00Z' } }),
    );
    assert.equal(inline.workflow.data.name, 'Inline');
    assert.equal(whole.workflow.data.name, 'Inline');
  });

  it('answers NOT_FOUND for an unknown, malformed or foreign uuid, and for a workflow not yet arrived', async () => {
    const tenant = await createTenant(ctx.db);
    const other = await createTenant(ctx.db, 'Other');
    const foreign = workflow(other.organizationId);
    const late = workflow(tenant.organizationId);
    await ingest(ctx.db, [foreign, execution(tenant.organizationId, late.uuid as string)]);
    const from = '2026-01-01T00:00:00Z';
    for (const uuid of [randomUUID(), 'not-a-uuid', '', `${foreign.uuid}`, late.uuid]) {
      const response = await ctx.server.gql(tenant.key, ONE, { input: { uuid, from } });
      const error = assertFieldError(response, 'NOT_FOUND', 'workflow not found');
      assert.deepEqual(error.path, ['workflow']);
    }
    await ingest(ctx.db, [late]);
    const found = dataOf(await ctx.server.gql(tenant.key, ONE, { input: { uuid: late.uuid, from } }));
    assert.equal(found.workflow.data.executionCount, 1);
    const upper = dataOf(
      await ctx.server.gql(tenant.key, ONE, { input: { uuid: (late.uuid as string).toUpperCase(), from } }),
    );
    assert.equal(upper.workflow.data.uuid, late.uuid);
  });
});
