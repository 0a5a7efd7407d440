import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTenant, deployment, execution, ingest, type Tenant, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { assertFieldError, dataOf } from './graphql-assertions.js';

type Raw = Record<string, unknown>;

const LIST = `query($input: WorkflowsInput!) { workflows(input: $input) { count data { uuid } } }`;
const hoursAfter = (base: string, hours: number) =>
  new Date(Date.parse(base) + hours * 3_600_000).toISOString();
const owner = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const uuidsOf = (records: readonly Raw[]) => records.map((r) => r.uuid as string);
const byUuid = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe('workflows', () => {
  const ctx = useServer();

  async function list(tenant: Tenant, input: Raw): Promise<{ count: number; uuids: string[] }> {
    const result = dataOf(await ctx.server.gql(tenant.key, LIST, { input })).workflows;
    return { count: result.count, uuids: result.data.map((w: { uuid: string }) => w.uuid) };
  }

  it('pages from 0 with 10 rows by default, newest registration first, counting across pages', async () => {
    const tenant = await createTenant(ctx.db);
    const other = await createTenant(ctx.db, 'Other');
    const records = Array.from({ length: 25 }, (_, i) =>
      workflow(tenant.organizationId, { registeredAt: hoursAfter('2026-01-01T00:00:00Z', i) }),
    );
    await ingest(ctx.db, [
      ...records,
      workflow(other.organizationId, { registeredAt: '2027-01-01T00:00:00Z' }),
    ]);
    const newestFirst = uuidsOf(records).reverse();

    assert.deepEqual(await list(tenant, {}), { count: 25, uuids: newestFirst.slice(0, 10) });
    assert.deepEqual(await list(tenant, { page: { number: 1 } }), {
      count: 25,
      uuids: newestFirst.slice(10, 20),
    });
    assert.deepEqual(await list(tenant, { page: { number: 2 } }), {
      count: 25,
      uuids: newestFirst.slice(20),
    });
    assert.deepEqual(await list(tenant, { page: { number: 3 } }), { count: 25, uuids: [] });
    assert.deepEqual(await list(tenant, { page: { number: 0, size: 100 } }), {
      count: 25,
      uuids: newestFirst,
    });
    assert.deepEqual(await list(tenant, { page: { number: null, size: null } }), {
      count: 25,
      uuids: newestFirst.slice(0, 10),
    });
  });

  it('answers a request for the count alone', async () => {
    const tenant = await createTenant(ctx.db);
    await ingest(ctx.db, [
      workflow(tenant.organizationId, { status: 'ACTIVE' }),
      workflow(tenant.organizationId, { status: 'PAUSED' }),
      workflow(tenant.organizationId, { status: 'ACTIVE' }),
    ]);
    const data = dataOf(
      await ctx.server.gql(tenant.key, '{ workflows(input: {status: [ACTIVE]}) { count } }'),
    );
    assert.deepEqual(data, { workflows: { count: 2 } });
  });

  it('rejects a page size above 100 or below 1 and a negative page number, naming the bound', async () => {
    const tenant = await createTenant(ctx.db);
    await ingest(ctx.db, [workflow(tenant.organizationId)]);
    const cases: Array<[Raw, string]> = [
      [{ size: 101 }, 'page.size must be at most 100'],
      [{ size: 0 }, 'page.size must be at least 1'],
      [{ size: -3 }, 'page.size must be at least 1'],
      [{ number: -1 }, 'page.number must be at least 0'],
    ];
    for (const [page, message] of cases) {
      assertFieldError(
        await ctx.server.gql(tenant.key, LIST, { input: { page } }),
        'BAD_USER_INPUT',
        message,
      );
      const inline = `{ workflows(input: {page: {${Object.entries(page).map(([k, v]) => `${k}: ${v}`)}}}) { count } }`;
      assertFieldError(await ctx.server.gql(tenant.key, inline), 'BAD_USER_INPUT', message);
    }
    assert.equal((await list(tenant, { page: { size: 100 } })).count, 1);
  });

  it('matches any of the listed statuses and owners, and all filters together', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const a = workflow(org, { ownerAddress: owner(1), status: 'ACTIVE', name: 'alpha feed' });
    const b = workflow(org, { ownerAddress: owner(1), status: 'PAUSED', name: 'beta' });
    const c = workflow(org, { ownerAddress: owner(2), status: 'ACTIVE', name: 'gamma feed' });
    const d = workflow(org, { ownerAddress: owner(3), status: 'DELETED', name: 'delta feed' });
    // Its own status is PENDING, but its latest deployment says PAUSED: PAUSED is what it is.
    const e = workflow(org, { ownerAddress: owner(2).toUpperCase().replace('0X', '0x'), status: 'PENDING' });
    await ingest(ctx.db, [a, b, c, d, e, deployment(org, e.uuid as string, { status: 'PAUSED' })]);
    const set = async (input: Raw) =>
      (await list(tenant, { ...input, page: { size: 100 } })).uuids.sort(byUuid);
    const expect = (...records: Raw[]) => uuidsOf(records).sort(byUuid);

    assert.deepEqual(await set({ status: ['ACTIVE', 'PAUSED'] }), expect(a, b, c, e));
    assert.deepEqual(await set({ status: ['PENDING'] }), []);
    assert.deepEqual(await set({ status: ['DELETED'] }), expect(d));
    assert.deepEqual(
      await set({ workflowOwnerAddress: [owner(1), owner(2).toUpperCase()] }),
      expect(a, b, c, e),
    );
    assert.deepEqual(await set({ workflowOwnerAddress: [owner(9)] }), []);
    assert.deepEqual(await set({ status: ['ACTIVE'], workflowOwnerAddress: [owner(2)] }), expect(c));
    assert.deepEqual(
      await set({
        status: ['ACTIVE', 'DELETED'],
        workflowOwnerAddress: [owner(1), owner(3)],
        search: 'FEED',
      }),
      expect(a, d),
    );
    assert.deepEqual(await set({ status: [], workflowOwnerAddress: [] }), []);
    assert.equal((await list(tenant, { status: ['PAUSED'], workflowOwnerAddress: [owner(2)] })).count, 1);
  });

  it('rejects more than 100 owner addresses and more than 10 statuses', async () => {
    const tenant = await createTenant(ctx.db);
    const addresses = Array.from({ length: 101 }, (_, i) => owner(i));
    assertFieldError(
      await ctx.server.gql(tenant.key, LIST, { input: { workflowOwnerAddress: addresses } }),
      'BAD_USER_INPUT',
      'workflowOwnerAddress must have at most 100 values',
    );
    assert.equal((await list(tenant, { workflowOwnerAddress: addresses.slice(1) })).count, 0);
    const statuses = Array.from({ length: 11 }, () => 'ACTIVE');
    assertFieldError(
      await ctx.server.gql(tenant.key, LIST, { input: { status: statuses } }),
      'BAD_USER_INPUT',
      'status must have at most 10 values',
    );
    assert.equal((await list(tenant, { status: statuses.slice(1) })).count, 0);
  });

  it('searches names as a case-insensitive substring, taking % and _ literally', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const named = Object.fromEntries(
      ['Price Feed', 'price-FEEDER', 'Other', '100% uptime', '100 percent', 'snake_case', 'snakeXcase'].map(
        (name) => [name, workflow(org, { name })],
      ),
    );
    await ingest(ctx.db, Object.values(named));
    const search = async (text: string) =>
      (await list(tenant, { search: text, page: { size: 100 } })).uuids.sort(byUuid);
    const expect = (...names: string[]) => names.map((n) => named[n]!.uuid as string).sort(byUuid);

    assert.deepEqual(await search('feed'), expect('Price Feed', 'price-FEEDER'));
    assert.deepEqual(await search('E F'), expect('Price Feed'));
    assert.deepEqual(await search('%'), expect('100% uptime'));
    assert.deepEqual(await search('0%'), expect('100% uptime'));
    assert.deepEqual(await search('_'), expect('snake_case'));
    assert.deepEqual(await search('e_c'), expect('snake_case'));
    assert.deepEqual(await search('\\'), []);
    assert.deepEqual(await search('nothing like it'), []);
    assert.equal((await list(tenant, { search: '' })).count, 7, 'an empty search is no filter');
  });

  it('orders by name, status and last execution in both directions, ties broken by uuid', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const names = ['beta', 'Alpha', 'alpha', 'Gamma', 'beta', 'delta', 'alpha'];
    const statuses = ['ACTIVE', 'PAUSED', 'ACTIVE', 'DELETED', 'PENDING', 'FAILED', 'PAUSED'];
    const starts = [null, '2026-02-01T00:00:00Z', '2026-02-03T00:00:00Z', null, '2026-02-01T00:00:00Z', null];
    const rows = Array.from({ length: 14 }, (_, i) => ({
      record: workflow(org, { name: names[i % names.length], status: statuses[i % statuses.length] }),
      executedAt: starts[i % starts.length] ?? null,
    }));
    const records: Raw[] = rows.map((r) => r.record);
    for (const row of rows) {
      if (row.executedAt === null) continue;
      records.push(execution(org, row.record.uuid as string, { startedAt: '2026-01-15T00:00:00Z' }));
      records.push(execution(org, row.record.uuid as string, { startedAt: row.executedAt }));
    }
    await ingest(ctx.db, records);

    const keys: Array<[string, (row: (typeof rows)[number]) => string | null]> = [
      ['NAME', (row) => (row.record.name as string).toLowerCase()],
      ['STATUS', (row) => row.record.status as string],
      ['EXECUTED_AT', (row) => row.executedAt],
    ];
    for (const [field, key] of keys) {
      for (const order of ['ASC', 'DESC'] as const) {
        const sign = order === 'ASC' ? 1 : -1;
        const expected = [...rows]
          .sort((x, y) => {
            const kx = key(x);
            const ky = key(y);
            if (kx !== ky) {
              if (kx === null) return 1;
              if (ky === null) return -1;
              return sign * (kx < ky ? -1 : 1);
            }
            return sign * byUuid(x.record.uuid as string, y.record.uuid as string);
          })
          .map((row) => row.record.uuid as string);
        const paged: string[] = [];
        for (let number = 0; number < 3; number++) {
          const page = await list(tenant, { orderBy: { field, order }, page: { number, size: 5 } });
          assert.equal(page.count, 14);
          paged.push(...page.uuids);
        }
        assert.deepEqual(paged, expected, `${field} ${order}`);
      }
    }
  });

  it('breaks ties of the default order by uuid, so pages neither repeat nor skip rows', async () => {
    const tenant = await createTenant(ctx.db);
    const records = Array.from({ length: 23 }, () => workflow(tenant.organizationId));
    await ingest(ctx.db, records);
    const paged: string[] = [];
    for (let number = 0; number < 5; number++) {
      paged.push(...(await list(tenant, { page: { number, size: 5 } })).uuids);
    }
    assert.deepEqual(paged, uuidsOf(records).sort(byUuid).reverse());
  });

  it('reports aggregates over all time, executedAt and TEE flags in the list', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const busy = workflow(org, { registeredAt: '2026-01-03T00:00:00Z' });
    const idle = workflow(org, { registeredAt: '2026-01-02T00:00:00Z' });
    const teeOnly = workflow(org, { registeredAt: '2026-01-01T00:00:00Z' });
    const w = busy.uuid as string;
    await ingest(ctx.db, [
      busy,
      idle,
      teeOnly,
      execution(org, w, { startedAt: '2020-05-05T10:00:00Z', creditUsed: '0.1', executedInTee: true }),
      execution(org, w, { startedAt: '2026-03-01T12:34:56.789Z', status: 'FAILURE', creditUsed: '0.2' }),
      execution(org, w, { startedAt: '2026-02-01T00:00:00Z', status: 'IN_PROGRESS', executedInTee: false }),
      execution(org, w, { startedAt: '2025-12-31T23:59:59.999Z', creditUsed: 1 }),
      execution(org, teeOnly.uuid as string, { executedInTee: true }),
    ]);
    const data = dataOf(
      await ctx.server.gql(
        tenant.key,
        `{ workflows(input: {}) { data { uuid executionCount executionCountByStatus { success failure } creditUsed
           executedAt hasTeeExecutions hasNonTeeExecutions } } }`,
      ),
    ).workflows.data;
    assert.deepEqual(data, [
      {
        uuid: w,
        executionCount: 4,
        executionCountByStatus: { success: 2, failure: 1 },
        creditUsed: '1.3',
        executedAt: '2026-03-01T12:34:56.789Z',
        hasTeeExecutions: true,
        hasNonTeeExecutions: true,
      },
      {
        uuid: idle.uuid,
        executionCount: 0,
        executionCountByStatus: { success: 0, failure: 0 },
        creditUsed: null,
        executedAt: null,
        hasTeeExecutions: false,
        hasNonTeeExecutions: false,
      },
      {
        uuid: teeOnly.uuid,
        executionCount: 1,
        executionCountByStatus: { success: 1, failure: 0 },
        creditUsed: '0',
        executedAt: '2026-01-02T00:00:00Z',
        hasTeeExecutions: true,
        hasNonTeeExecutions: false,
      },
    ]);
  });

  it('reports the status of the latest deployment by deployedAt, else the workflow own status', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const deployed = workflow(org, { status: 'PENDING', registeredAt: '2026-01-02T00:00:00Z' });
    const bare = workflow(org, { status: 'FAILED', registeredAt: '2026-01-01T00:00:00Z' });
    const w = deployed.uuid as string;
    // Ingested newest first: the order of arrival must not matter, only deployedAt.
    await ingest(ctx.db, [
      deployed,
      bare,
      deployment(org, w, { status: 'PAUSED', deployedAt: '2026-03-01T00:00:00Z' }),
    ]);
    await ingest(ctx.db, [deployment(org, w, { status: 'ACTIVE', deployedAt: '2026-02-01T00:00:00Z' })]);
    const statuses = async () =>
      dataOf(
        await ctx.server.gql(tenant.key, '{ workflows(input: {}) { data { status } } }'),
      ).workflows.data.map((x: { status: string }) => x.status);
    assert.deepEqual(await statuses(), ['PAUSED', 'FAILED']);
    await ingest(ctx.db, [deployment(org, w, { status: 'DELETED', deployedAt: '2026-03-01T00:00:01Z' })]);
    assert.deepEqual(await statuses(), ['DELETED', 'FAILED']);
  });

  it('shows a workflow whose executions and deployments arrived first once it arrives, with their aggregates', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const late = workflow(org, { status: 'PENDING' });
    const w = late.uuid as string;
    await ingest(ctx.db, [
      deployment(org, w, { status: 'ACTIVE' }),
      execution(org, w, { status: 'SUCCESS', creditUsed: '2.5' }),
      execution(org, w, { status: 'FAILURE', creditUsed: '0.5' }),
    ]);
    const query = `{ workflows(input: {status: [ACTIVE]}) { count data { uuid status executionCount
      executionCountByStatus { success failure } creditUsed } } }`;
    assert.deepEqual(dataOf(await ctx.server.gql(tenant.key, query)).workflows, { count: 0, data: [] });
    await ingest(ctx.db, [late]);
    assert.deepEqual(dataOf(await ctx.server.gql(tenant.key, query)).workflows, {
      count: 1,
      data: [
        {
          uuid: w,
          status: 'ACTIVE',
          executionCount: 2,
          executionCountByStatus: { success: 1, failure: 1 },
          creditUsed: '3',
        },
      ],
    });
  });
});
