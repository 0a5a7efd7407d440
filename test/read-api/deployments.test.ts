import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { createTenant, deployment, execution, ingest, type Tenant, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { assertFieldError, dataOf } from './graphql-assertions.js';

type Raw = Record<string, unknown>;

const LIST = `query($input: WorkflowDeploymentsInput!) { workflowDeployments(input: $input) { count data { uuid } } }`;
const ONE = `query($uuid: String!) { workflowDeployment(input: {uuid: $uuid}) { data {
  uuid workflowID status deployedAt txHash errorMessage binaryURL configURL workflowSource
  executionCountByStatus { success failure } hasTeeExecutions hasNonTeeExecutions } } }`;
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const uuidsOf = (records: readonly Raw[]) => records.map((r) => r.uuid as string);
const byUuid = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Deterministic pseudo-random numbers, so a failure can be replayed. */
function lcg(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('workflowDeployments and workflowDeployment', () => {
  const ctx = useServer();

  async function list(tenant: Tenant, input: Raw): Promise<{ count: number; uuids: string[] }> {
    const result = dataOf(await ctx.server.gql(tenant.key, LIST, { input })).workflowDeployments;
    return { count: result.count, uuids: result.data.map((d: { uuid: string }) => d.uuid) };
  }

  it('lists one workflow deployments newest first, paging from 0 and counting across pages', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const wf = workflow(org);
    const sibling = workflow(org);
    const w = wf.uuid as string;
    const records = Array.from({ length: 23 }, (_, i) =>
      deployment(org, w, { deployedAt: iso(at('2026-01-01T00:00:00Z') + i * 60_000) }),
    );
    await ingest(ctx.db, [wf, sibling, ...records, deployment(org, sibling.uuid as string)]);
    const newestFirst = uuidsOf(records).reverse();

    assert.deepEqual(await list(tenant, { workflowUUID: w }), { count: 23, uuids: newestFirst.slice(0, 10) });
    assert.deepEqual(await list(tenant, { workflowUUID: w, page: { number: 2 } }), {
      count: 23,
      uuids: newestFirst.slice(20),
    });
    assert.deepEqual(await list(tenant, { workflowUUID: w, page: { number: 5, size: 5 } }), {
      count: 23,
      uuids: [],
    });
    assert.deepEqual(await list(tenant, { workflowUUID: w, page: { size: 100 } }), {
      count: 23,
      uuids: newestFirst,
    });
    const countOnly = dataOf(
      await ctx.server.gql(tenant.key, `{ workflowDeployments(input: {workflowUUID: "${w}"}) { count } }`),
    );
    assert.deepEqual(countOnly, { workflowDeployments: { count: 23 } });

    for (const [page, message] of [
      [{ size: 101 }, 'page.size must be at most 100'],
      [{ size: 0 }, 'page.size must be at least 1'],
      [{ number: -1 }, 'page.number must be at least 0'],
    ] as const) {
      const response = await ctx.server.gql(tenant.key, LIST, { input: { workflowUUID: w, page } });
      assertFieldError(response, 'BAD_USER_INPUT', message);
    }
  });

  it('orders by deployedAt and workflowId in both directions, ties broken by uuid', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const wf = workflow(org);
    const w = wf.uuid as string;
    const times = [
      '2026-01-03T00:00:00Z',
      '2026-01-01T00:00:00Z',
      '2026-01-02T00:00:00Z',
      '2026-01-01T00:00:00Z',
    ];
    const records = Array.from({ length: 13 }, (_, i) =>
      deployment(org, w, { deployedAt: times[i % times.length] }),
    );
    await ingest(ctx.db, [wf, ...records]);
    const deployedAt = (r: Raw) => at(r.deployedAt as string);
    const keys: Array<[string, (r: Raw) => number]> = [
      ['DEPLOYED_AT', deployedAt],
      ['WORKFLOW_ID', () => 0], // one workflow: every key ties and uuid decides
    ];
    for (const [field, key] of keys) {
      for (const order of ['ASC', 'DESC'] as const) {
        const sign = order === 'ASC' ? 1 : -1;
        const expected = [...records]
          .sort((x, y) => sign * (key(x) - key(y) || byUuid(x.uuid as string, y.uuid as string)))
          .map((r) => r.uuid as string);
        const paged: string[] = [];
        for (let number = 0; number < 3; number++) {
          paged.push(
            ...(await list(tenant, { workflowUUID: w, orderBy: { field, order }, page: { number, size: 5 } }))
              .uuids,
          );
        }
        assert.deepEqual(paged, expected, `${field} ${order}`);
      }
    }
    const defaultOrder: string[] = [];
    for (let number = 0; number < 3; number++) {
      defaultOrder.push(...(await list(tenant, { workflowUUID: w, page: { number, size: 5 } })).uuids);
    }
    assert.deepEqual(
      defaultOrder,
      [...records]
        .sort((x, y) => deployedAt(y) - deployedAt(x) || byUuid(y.uuid as string, x.uuid as string))
        .map((r) => r.uuid as string),
    );
  });

  it('searches txHash or uuid as a case-insensitive substring, taking % and _ literally', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const wf = workflow(org);
    const w = wf.uuid as string;
    const hex = deployment(org, w, { txHash: '0xABCdef0123' });
    const underscore = deployment(org, w, { txHash: 'tx_one' });
    const percent = deployment(org, w, { txHash: 'tx50%' });
    const plain = deployment(org, w, { txHash: 'txXone' });
    const none = deployment(org, w, { txHash: null });
    await ingest(ctx.db, [wf, hex, underscore, percent, plain, none]);
    const search = async (text: string) =>
      (await list(tenant, { workflowUUID: w, search: text })).uuids.sort(byUuid);
    const expect = (...records: Raw[]) => uuidsOf(records).sort(byUuid);

    assert.deepEqual(await search('abcDEF'), expect(hex));
    assert.deepEqual(await search('_'), expect(underscore));
    assert.deepEqual(await search('%'), expect(percent));
    assert.deepEqual(await search('x_o'), expect(underscore));
    const fragment = (none.uuid as string).slice(9, 23).toUpperCase();
    assert.deepEqual(await search(fragment), expect(none));
    assert.deepEqual(await search(none.uuid as string), expect(none));
    assert.equal((await list(tenant, { workflowUUID: w, search: '' })).count, 5);
  });

  it('bounds deployedAt inclusively by from and to, and rejects from later than to', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const wf = workflow(org);
    const w = wf.uuid as string;
    const [d1, d2, d3] = ['2026-01-01T00:00:00Z', '2026-01-02T12:30:00.250Z', '2026-01-03T00:00:00Z'].map(
      (deployedAt) => deployment(org, w, { deployedAt }),
    ) as [Raw, Raw, Raw];
    await ingest(ctx.db, [wf, d1, d2, d3]);
    const between = async (from?: string, to?: string) =>
      (await list(tenant, { workflowUUID: w, from, to })).uuids.sort(byUuid);
    const expect = (...records: Raw[]) => uuidsOf(records).sort(byUuid);

    assert.deepEqual(await between('2026-01-02T12:30:00.250Z', '2026-01-02T12:30:00.250Z'), expect(d2));
    assert.deepEqual(
      await between('2026-01-02T14:30:00.250+02:00', '2026-01-02T07:30:00.250-05:00'),
      expect(d2),
    );
    assert.deepEqual(await between('2026-01-02T12:30:00.251Z'), expect(d3));
    assert.deepEqual(await between(undefined, '2026-01-02T12:30:00.249Z'), expect(d1));
    assert.deepEqual(await between('2026-01-01T00:00:00Z', '2026-01-03T00:00:00Z'), expect(d1, d2, d3));
    assert.deepEqual(await between('0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z'), expect(d1, d2, d3));
    const response = await ctx.server.gql(tenant.key, LIST, {
      input: { workflowUUID: w, from: '2026-01-02T00:00:00.001Z', to: '2026-01-02T00:00:00Z' },
    });
    assertFieldError(response, 'BAD_USER_INPUT', 'from must not be later than to');
  });

  it('matches any of the listed statuses, and every other filter too; at most 10 statuses', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const wf = workflow(org);
    const w = wf.uuid as string;
    const active = deployment(org, w, { status: 'ACTIVE', deployedAt: '2026-01-01T00:00:00Z' });
    const paused = deployment(org, w, { status: 'PAUSED', deployedAt: '2026-01-02T00:00:00Z' });
    const failed = deployment(org, w, {
      status: 'FAILED',
      deployedAt: '2026-01-03T00:00:00Z',
      txHash: '0xfeed',
    });
    await ingest(ctx.db, [wf, active, paused, failed]);
    const pick = async (input: Raw) => (await list(tenant, { workflowUUID: w, ...input })).uuids.sort(byUuid);
    const expect = (...records: Raw[]) => uuidsOf(records).sort(byUuid);

    assert.deepEqual(await pick({ status: ['ACTIVE', 'FAILED'] }), expect(active, failed));
    assert.deepEqual(
      await pick({ status: ['ACTIVE', 'FAILED'], from: '2026-01-02T00:00:00Z' }),
      expect(failed),
    );
    assert.deepEqual(await pick({ status: ['ACTIVE', 'PAUSED'], search: 'FEED' }), []);
    assert.deepEqual(await pick({ status: ['DELETED'] }), []);
    const response = await ctx.server.gql(tenant.key, LIST, {
      input: { workflowUUID: w, status: Array.from({ length: 11 }, () => 'ACTIVE') },
    });
    assertFieldError(response, 'BAD_USER_INPUT', 'status must have at most 10 values');
  });

  it('counts the executions that started while each deployment was the latest one', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const wf = workflow(org);
    const neighbour = workflow(org);
    const w = wf.uuid as string;
    // Reigns that start mid five minutes, on a day boundary, mid hour; two deployments tie on deployedAt.
    const deployedAts = [
      '2026-01-01T10:02:30.500Z',
      '2026-01-03T00:00:00Z',
      '2026-01-05T13:17:00Z',
      '2026-01-05T13:17:00Z',
      '2026-01-08T08:08:08.008Z',
    ].map(at);
    const deployments = deployedAts.map((t) => deployment(org, w, { deployedAt: iso(t) }));
    // The reign order is (deployedAt, uuid): of two at the same instant, the larger uuid is the later one.
    const reigns = deployments
      .map((record, i) => ({ uuid: record.uuid as string, from: deployedAts[i]! }))
      .sort((a, b) => a.from - b.from || byUuid(a.uuid, b.uuid))
      .map((reign, i, all) => ({ ...reign, to: all[i + 1]?.from ?? Number.POSITIVE_INFINITY }));

    const random = lcg(7);
    const starts = [
      ...deployedAts.flatMap((t) => [t, t - 1, t + 1]),
      ...Array.from(
        { length: 120 },
        () => deployedAts[0]! - 86_400_000 + Math.floor(random() * 10 * 86_400_000),
      ),
    ];
    const statuses = ['SUCCESS', 'FAILURE', 'IN_PROGRESS', 'SUCCESS'];
    const executions = starts.map((start, i) => ({
      start,
      status: statuses[i % statuses.length]!,
      tee: start < deployedAts[1]! ? true : start < deployedAts[2]! ? false : i % 2 === 0,
    }));
    await ingest(ctx.db, [
      wf,
      neighbour,
      ...deployments,
      ...executions.map((e) =>
        execution(org, w, { startedAt: iso(e.start), status: e.status, executedInTee: e.tee }),
      ),
      ...starts.map((start) => execution(org, neighbour.uuid as string, { startedAt: iso(start) })),
    ]);

    const data = dataOf(
      await ctx.server.gql(
        tenant.key,
        `{ workflowDeployments(input: {workflowUUID: "${w}"}) { data { uuid
          executionCountByStatus { success failure } hasTeeExecutions hasNonTeeExecutions } } }`,
      ),
    ).workflowDeployments.data;
    assert.equal(data.length, 5);
    for (const reign of reigns) {
      const inReign = executions.filter((e) => e.start >= reign.from && e.start < reign.to);
      const expected = {
        uuid: reign.uuid,
        executionCountByStatus: {
          success: inReign.filter((e) => e.status === 'SUCCESS').length,
          failure: inReign.filter((e) => e.status === 'FAILURE').length,
        },
        hasTeeExecutions: inReign.some((e) => e.tee),
        hasNonTeeExecutions: inReign.some((e) => !e.tee),
      };
      assert.deepEqual(
        data.find((d: { uuid: string }) => d.uuid === reign.uuid),
        expected,
        `reign from ${iso(reign.from)}`,
      );
      const one = dataOf(await ctx.server.gql(tenant.key, ONE, { uuid: reign.uuid })).workflowDeployment.data;
      assert.deepEqual(one.executionCountByStatus, expected.executionCountByStatus);
    }
    // The tied pair: the smaller uuid is superseded at once, so its reign is empty.
    const tied = reigns.filter((r) => r.from === deployedAts[2]);
    const first = data.find((d: { uuid: string }) => d.uuid === tied[0]!.uuid);
    assert.deepEqual(first.executionCountByStatus, { success: 0, failure: 0 });
    assert.equal(first.hasNonTeeExecutions, false);
    // The first reign is TEE only, the second non-TEE only.
    assert.deepEqual(
      [reigns[0], reigns[1]].map((r) => {
        const d = data.find((x: { uuid: string }) => x.uuid === r!.uuid);
        return [d.hasTeeExecutions, d.hasNonTeeExecutions];
      }),
      [
        [true, false],
        [false, true],
      ],
    );
  });

  it('answers one deployment with every field', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const wf = workflow(org, { workflowId: '0xfeedbeef', workflowSource: 'github.com/acme/feed' });
    const w = wf.uuid as string;
    const full = deployment(org, w, {
      status: 'FAILED',
      deployedAt: '2026-04-01T12:00:00+02:00',
      txHash: '0xabc',
      errorMessage: 'out of gas',
      binaryURL: 'https://example.com/bin.wasm',
      configURL: 'https://example.com/config.yaml',
    });
    const sparse = deployment(org, w, { deployedAt: '2026-04-02T00:00:00.040Z', txHash: null });
    await ingest(ctx.db, [
      wf,
      full,
      sparse,
      execution(org, w, { startedAt: '2026-04-01T10:00:00Z', status: 'FAILURE' }),
      execution(org, w, { startedAt: '2026-04-01T23:00:00Z', executedInTee: true }),
    ]);
    const one = async (uuid: unknown) =>
      dataOf(await ctx.server.gql(tenant.key, ONE, { uuid })).workflowDeployment.data;
    assert.deepEqual(await one(full.uuid), {
      uuid: full.uuid,
      workflowID: '0xfeedbeef',
      status: 'FAILED',
      deployedAt: '2026-04-01T10:00:00Z',
      txHash: '0xabc',
      errorMessage: 'out of gas',
      binaryURL: 'https://example.com/bin.wasm',
      configURL: 'https://example.com/config.yaml',
      workflowSource: 'github.com/acme/feed',
      executionCountByStatus: { success: 1, failure: 1 },
      hasTeeExecutions: true,
      hasNonTeeExecutions: true,
    });
    assert.deepEqual(await one((sparse.uuid as string).toUpperCase()), {
      uuid: sparse.uuid,
      workflowID: '0xfeedbeef',
      status: 'ACTIVE',
      deployedAt: '2026-04-02T00:00:00.040Z',
      txHash: null,
      errorMessage: null,
      binaryURL: null,
      configURL: null,
      workflowSource: 'github.com/acme/feed',
      executionCountByStatus: { success: 0, failure: 0 },
      hasTeeExecutions: false,
      hasNonTeeExecutions: false,
    });
  });

  it('answers NOT_FOUND for an unknown, malformed or foreign deployment uuid', async () => {
    const tenant = await createTenant(ctx.db);
    const other = await createTenant(ctx.db, 'Other');
    const foreignWorkflow = workflow(other.organizationId);
    const foreign = deployment(other.organizationId, foreignWorkflow.uuid as string);
    await ingest(ctx.db, [foreignWorkflow, foreign]);
    for (const uuid of [randomUUID(), 'nope', '', foreign.uuid]) {
      const error = assertFieldError(
        await ctx.server.gql(tenant.key, ONE, { uuid }),
        'NOT_FOUND',
        'workflow not found',
      );
      assert.deepEqual(error.path, ['workflowDeployment']);
    }
  });

  it('lists nothing, with count 0, for an unknown, malformed or foreign workflow uuid', async () => {
    const tenant = await createTenant(ctx.db);
    const other = await createTenant(ctx.db, 'Other');
    const foreign = workflow(other.organizationId);
    await ingest(ctx.db, [foreign, deployment(other.organizationId, foreign.uuid as string)]);
    for (const workflowUUID of [randomUUID(), 'not-a-uuid', '', foreign.uuid]) {
      assert.deepEqual(await list(tenant, { workflowUUID }), { count: 0, uuids: [] });
    }
  });

  it('shows a deployment that arrived before its workflow once the workflow arrives, with its executions', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const wf = workflow(org, { workflowId: '0xlate' });
    const w = wf.uuid as string;
    const early = deployment(org, w, { deployedAt: '2026-01-01T00:00:00Z' });
    await ingest(ctx.db, [
      early,
      execution(org, w, { startedAt: '2026-01-01T00:00:00Z' }),
      execution(org, w, { startedAt: '2026-01-01T00:00:01Z', status: 'FAILURE' }),
    ]);
    assert.deepEqual(await list(tenant, { workflowUUID: w }), { count: 0, uuids: [] });
    assertFieldError(await ctx.server.gql(tenant.key, ONE, { uuid: early.uuid }), 'NOT_FOUND');

    await ingest(ctx.db, [wf]);
    assert.deepEqual(await list(tenant, { workflowUUID: w }), { count: 1, uuids: [early.uuid] });
    const one = dataOf(await ctx.server.gql(tenant.key, ONE, { uuid: early.uuid })).workflowDeployment.data;
    assert.equal(one.workflowID, '0xlate');
    assert.deepEqual(one.executionCountByStatus, { success: 1, failure: 1 });
  });
});
