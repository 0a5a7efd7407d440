import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { EXTENDED } from '../harness/contract-schema.js';
import { createTenant, execution, ingest, type Tenant, workflow } from '../harness/fixtures.js';
import { assertContractFields, enumValuesOf } from '../harness/introspection.js';
import { useServer } from '../harness/suite.js';
import { assertFieldError, assertOneError, dataOf } from './graphql-assertions.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

const LIST = `query ($input: WorkflowExecutionsInput!) {
  workflowExecutions(input: $input) { count data { uuid } } }`;

type Input = Record<string, unknown>;

/** One execution as the test stored it: what the reference model filters and sorts. */
interface Stored {
  uuid: string;
  id: string;
  workflowUuid: string;
  workflowName: string;
  status: string;
  startedAt: number;
  credit: number | null;
}

/** Reference order: the given key, then uuid, both in the same direction; null credits last. */
function sortModel(rows: Stored[], field: string, order: 'ASC' | 'DESC'): string[] {
  const sign = order === 'ASC' ? 1 : -1;
  const keyOf = (row: Stored): string | number | null =>
    field === 'ID'
      ? row.id
      : field === 'STATUS'
        ? row.status
        : field === 'CREDIT_USED'
          ? row.credit
          : row.startedAt;
  const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
  return [...rows]
    .sort((a, b) => {
      const ka = keyOf(a);
      const kb = keyOf(b);
      if (ka === null || kb === null) {
        if (ka !== kb) return ka === null ? 1 : -1;
      } else if (ka !== kb) {
        return sign * compare(ka, kb);
      }
      return sign * compare(a.uuid, b.uuid);
    })
    .map((row) => row.uuid);
}

describe('workflowExecutions', () => {
  const ctx = useServer({ rateLimit: { burst: 1_000_000, perSecond: 1_000_000 } });

  async function list(key: string, input: Input): Promise<{ count: number; uuids: string[] }> {
    const result = dataOf(await ctx.server.gql(key, LIST, { input })).workflowExecutions;
    return { count: result.count, uuids: result.data.map((row: { uuid: string }) => row.uuid) };
  }

  /** Every page of a listing, walked with the given page size; asserts `count` is the same on each. */
  async function walk(key: string, input: Input, size: number): Promise<string[]> {
    const seen: string[] = [];
    let count: number | undefined;
    for (let number = 0; ; number++) {
      const page = await list(key, { ...input, page: { number, size } });
      if (count !== undefined) assert.equal(page.count, count, `count changed on page ${number}`);
      count = page.count;
      seen.push(...page.uuids);
      if (page.uuids.length < size) break;
    }
    assert.equal(seen.length, count);
    return seen;
  }

  /** Stores executions through ingestion and returns them as the reference model sees them. */
  async function store(
    t: Tenant,
    workflows: Array<{ uuid: string; name: string }>,
    specs: Array<{ at: number; workflow: number; status?: string; credit?: number | null; id?: string }>,
  ): Promise<Stored[]> {
    const records = specs.map((spec, index) =>
      execution(t.organizationId, workflows[spec.workflow]!.uuid, {
        startedAt: iso(spec.at),
        status: spec.status ?? 'SUCCESS',
        // Half the ids mix letter cases so that search is seen to ignore case.
        ...(spec.id ? { id: spec.id } : index % 2 ? { id: `0xRun${index}Ab` } : {}),
        ...(spec.credit === undefined || spec.credit === null ? {} : { creditUsed: String(spec.credit) }),
      }),
    );
    await ingest(ctx.db, [
      ...workflows.map((w) => workflow(t.organizationId, { uuid: w.uuid, name: w.name })),
      ...records,
    ]);
    return records.map((record, index) => ({
      uuid: record.uuid as string,
      id: record.id as string,
      workflowUuid: record.workflowUUID as string,
      workflowName: workflows[specs[index]!.workflow]!.name,
      status: record.status as string,
      startedAt: specs[index]!.at,
      credit: specs[index]!.credit ?? null,
    }));
  }

  it('serves the input, output and enum types exactly as the contract names them', async () => {
    const t = await createTenant(ctx.db);
    const fields = (name: string, contract: string) =>
      assertContractFields(ctx.server, t.key, name, contract);
    // The extended schema (the default) adds errorFingerprint (contract section 5).
    await fields('WorkflowExecutionsInput', EXTENDED.inputs.WorkflowExecutionsInput!);
    await fields('WorkflowExecutionOrderBy', 'field: WorkflowExecutionOrderByField!, order: SortingOrder!');
    await fields('WorkflowExecutionsOutput', 'data: [WorkflowExecution!]!, count: Int!');
    assert.deepEqual(await enumValuesOf(ctx.server, t.key, 'WorkflowExecutionOrderByField'), [
      'ID',
      'STATUS',
      'STARTED_AT',
      'CREDIT_USED',
    ]);
    assert.deepEqual(await enumValuesOf(ctx.server, t.key, 'WorkflowExecutionStatus'), [
      'UNKNOWN',
      'UNSPECIFIED',
      'TRIGGERED',
      'IN_PROGRESS',
      'SUCCESS',
      'FAILURE',
    ]);
    assert.deepEqual(await enumValuesOf(ctx.server, t.key, 'SortingOrder'), ['ASC', 'DESC']);
  });

  it('pages from 0 with 10 rows by default and the total in count on every page', async () => {
    const t = await createTenant(ctx.db);
    const wf = { uuid: randomUUID(), name: 'paged' };
    const rows = await store(
      t,
      [wf],
      Array.from({ length: 25 }, (_, i) => ({
        at: Date.parse('2026-02-01T00:00:00Z') + i * 61_001,
        workflow: 0,
      })),
    );
    const newestFirst = sortModel(rows, 'STARTED_AT', 'DESC');
    assert.deepEqual(await list(t.key, {}), { count: 25, uuids: newestFirst.slice(0, 10) });
    assert.deepEqual(await list(t.key, { page: { number: 1 } }), {
      count: 25,
      uuids: newestFirst.slice(10, 20),
    });
    assert.deepEqual(await list(t.key, { page: { number: 2 } }), { count: 25, uuids: newestFirst.slice(20) });
    assert.deepEqual(await list(t.key, { page: { number: 3 } }), { count: 25, uuids: [] });
    assert.deepEqual(await list(t.key, { page: { number: null, size: null } }), {
      count: 25,
      uuids: newestFirst.slice(0, 10),
    });
    assert.deepEqual(await list(t.key, { page: { size: 100 } }), { count: 25, uuids: newestFirst });
    assert.deepEqual(await list(t.key, { page: { size: 1, number: 24 } }), {
      count: 25,
      uuids: newestFirst.slice(24),
    });
    assert.deepEqual(await walk(t.key, {}, 7), newestFirst);
  });

  it('rejects page bounds with a BAD_USER_INPUT error naming the bound', async () => {
    const t = await createTenant(ctx.db);
    const cases: Array<[Input, string]> = [
      [{ size: 101 }, 'page.size must be at most 100'],
      [{ size: 0 }, 'page.size must be at least 1'],
      [{ size: -5 }, 'page.size must be at least 1'],
      [{ number: -1 }, 'page.number must be at least 0'],
      [{ number: 2_147_483_647, size: 100 }, 'page.number is too large'],
    ];
    for (const [page, message] of cases) {
      const response = await ctx.server.gql(t.key, LIST, { input: { page } });
      assertFieldError(response, 'BAD_USER_INPUT', message);
      assert.deepEqual(response.body.errors[0].path, ['workflowExecutions']);
    }
  });

  it('rejects from later than to, more than 10 statuses, a NUL in search and times without an offset', async () => {
    const t = await createTenant(ctx.db);
    const later = await ctx.server.gql(t.key, LIST, {
      input: { from: '2026-01-02T00:00:00.001Z', to: '2026-01-02T00:00:00Z' },
    });
    assertFieldError(later, 'BAD_USER_INPUT', 'from must not be later than to');
    const statuses = await ctx.server.gql(t.key, LIST, { input: { status: Array(11).fill('SUCCESS') } });
    assertFieldError(statuses, 'BAD_USER_INPUT', 'status must have at most 10 values');
    // Stored text never holds U+0000 (PostgreSQL cannot): a filter with it is refused, never a 500.
    const nul = await ctx.server.gql(t.key, LIST, { input: { search: 'a\u0000b' } });
    assertOneError(nul, 'BAD_USER_INPUT', /U\+0000/);
    assert.equal(
      dataOf(await ctx.server.gql(t.key, LIST, { input: { status: Array(10).fill('SUCCESS') } }))
        .workflowExecutions.count,
      0,
    );

    for (const bad of ['2026-01-02T00:00:00', '2026-02-30T00:00:00Z', 'yesterday']) {
      const response = await ctx.server.gql(t.key, LIST, { input: { from: bad } });
      assert.equal(response.status, 200);
      assert.equal('data' in response.body, false, 'a variable that does not coerce is a request error');
      assertOneError(response, 'BAD_USER_INPUT', /Time/);
    }
  });

  it('matches a reference model in count and rows for every filter, alone and combined', async () => {
    const t = await createTenant(ctx.db);
    const D = Date.parse('2026-03-10T00:00:00Z');
    const workflows = [
      { uuid: randomUUID(), name: 'Price Feed' },
      { uuid: randomUUID(), name: 'Proof_of%Reserve' },
    ];
    // Start times on and 1 ms around 5-minute, hour and day boundaries, plus a spread over five days.
    const edges = [
      D - 1,
      D,
      D + 5 * MINUTE - 1,
      D + 5 * MINUTE,
      D + 5 * MINUTE + 1,
      D + HOUR - 1,
      D + HOUR,
      D + 3 * HOUR + 17 * MINUTE + 42_123,
      D + 12 * HOUR,
      D + DAY + 7 * HOUR + 33 * MINUTE + 10_500,
      D + 3 * DAY - 1,
      D + 3 * DAY,
    ];
    const spread = Array.from({ length: 40 }, (_, i) => D - 2 * DAY + i * (2 * HOUR + 17 * MINUTE + 13_337));
    const statuses = ['SUCCESS', 'FAILURE', 'IN_PROGRESS', 'TRIGGERED', 'UNKNOWN', 'UNSPECIFIED', 'FAILURE'];
    const credits = [null, 1, 12.5, 9, 0.25, 100];
    const rows = await store(
      t,
      workflows,
      [...edges, ...spread].map((at, i) => ({
        at,
        workflow: i % 3 === 0 ? 1 : 0,
        status: statuses[i % statuses.length]!,
        credit: credits[i % credits.length]!,
      })),
    );
    // Another organization's executions in the same windows must never count.
    const other = await createTenant(ctx.db, 'Other');
    await store(
      other,
      [{ uuid: randomUUID(), name: 'Price Feed' }],
      edges.map((at) => ({ at, workflow: 0 })),
    );

    const windows: Array<[number | undefined, number | undefined]> = [
      [D, D + 5 * MINUTE],
      [D + 1, D + 5 * MINUTE - 1],
      [D - 1, D],
      [D, D],
      [D + 3 * HOUR + 17 * MINUTE + 42_123, D + 3 * HOUR + 17 * MINUTE + 42_123],
      [D + 3 * MINUTE + 17_250, D + 2 * HOUR + 58 * MINUTE + 1_999],
      [D - 2 * DAY + 5 * HOUR + 13 * MINUTE, D + 2 * DAY + 19 * HOUR + 7 * MINUTE + 44_444],
      [D - 1, D + 3 * DAY - 1],
      [D - DAY, D + DAY - 1],
      [D + 5 * MINUTE + 1, undefined],
      [undefined, D + 5 * MINUTE - 1],
      [D + 4 * DAY, undefined],
      [undefined, D - 3 * DAY],
    ];
    const filters: Input[] = [
      {},
      { status: ['FAILURE'] },
      { status: ['SUCCESS', 'FAILURE'] },
      { status: ['TRIGGERED', 'IN_PROGRESS', 'UNKNOWN', 'UNSPECIFIED'] },
      { workflowUuid: workflows[0]!.uuid },
      { workflowUuid: workflows[1]!.uuid.toUpperCase() },
      { search: 'price' },
      { search: 'PROOF_OF%' },
      { search: 'run1' },
      { search: rows[5]!.uuid.slice(9, 30).toUpperCase() },
      ...windows.map(([from, to]) => ({ from: from && iso(from), to: to && iso(to) })),
      ...windows.map(([from, to]) => ({
        from: from && iso(from),
        to: to && iso(to),
        status: ['FAILURE', 'IN_PROGRESS'],
        workflowUuid: workflows[0]!.uuid,
      })),
      ...windows.slice(4, 8).map(([from, to]) => ({
        from: from && iso(from),
        to: to && iso(to),
        status: ['SUCCESS', 'FAILURE', 'UNKNOWN'],
        search: 'proof',
      })),
      { search: 'ab', status: ['SUCCESS'], workflowUuid: workflows[1]!.uuid },
    ];
    for (const filter of filters) {
      const matching = rows.filter((row) => {
        const search = (filter.search as string | undefined)?.toLowerCase();
        const from = filter.from === undefined ? undefined : Date.parse(filter.from as string);
        const to = filter.to === undefined ? undefined : Date.parse(filter.to as string);
        return (
          (!filter.workflowUuid || row.workflowUuid === (filter.workflowUuid as string).toLowerCase()) &&
          (!filter.status || (filter.status as string[]).includes(row.status)) &&
          (!search ||
            [row.id, row.uuid, row.workflowName].some((text) => text.toLowerCase().includes(search))) &&
          (from === undefined || row.startedAt >= from) &&
          (to === undefined || row.startedAt <= to)
        );
      });
      const expected = sortModel(matching, 'STARTED_AT', 'DESC');
      const answer = await list(t.key, { ...filter, page: { size: 100 } });
      assert.deepEqual(
        answer,
        { count: expected.length, uuids: expected },
        `filter ${JSON.stringify(filter)}`,
      );
    }
  });

  it('counts and lists executions exactly at from and to, and none 1 ms outside', async () => {
    const t = await createTenant(ctx.db);
    const from = Date.parse('2026-04-01T10:03:17.250Z');
    const to = Date.parse('2026-04-03T14:58:01.999Z');
    const rows = await store(
      t,
      [{ uuid: randomUUID(), name: 'bounds' }],
      [from - 1, from, from + 1, to - 1, to, to + 1].map((at) => ({ at, workflow: 0 })),
    );
    const inside = rows.slice(1, 5).map((row) => row.uuid);
    const answer = await list(t.key, { from: iso(from), to: iso(to) });
    assert.equal(answer.count, 4);
    assert.deepEqual(new Set(answer.uuids), new Set(inside));
    // The same instants written with an offset are the same bounds.
    const offset = await list(t.key, {
      from: '2026-04-01T12:03:17.250+02:00',
      to: '2026-04-03T09:58:01.999-05:00',
    });
    assert.deepEqual(offset, answer);
    assert.equal((await list(t.key, { from: iso(from + 1), to: iso(to - 1) })).count, 2);
    assert.equal((await list(t.key, { from: iso(to + 1) })).count, 1);
    assert.equal((await list(t.key, { from: iso(to + 2) })).count, 0);
    assert.equal((await list(t.key, { to: iso(from - 1) })).count, 1);
    assert.equal((await list(t.key, { to: iso(from - 2) })).count, 0);
  });

  it('counts and lists executions at the very ends of the Time range', async () => {
    const t = await createTenant(ctx.db);
    const last = '9999-12-31T23:59:59.999Z';
    const rows = await store(
      t,
      [{ uuid: randomUUID(), name: 'extremes' }],
      [Date.parse('1970-01-01T00:00:00Z'), Date.parse(last)].map((at) => ({ at, workflow: 0 })),
    );
    const [first, final] = rows.map((row) => row.uuid);
    assert.deepEqual(await list(t.key, { to: last }), { count: 2, uuids: [final, first] });
    assert.deepEqual(await list(t.key, { from: '0001-01-01T00:00:00Z', to: last }), {
      count: 2,
      uuids: [final, first],
    });
    assert.deepEqual(await list(t.key, { from: '0001-01-01T00:00:00Z' }), {
      count: 2,
      uuids: [final, first],
    });
    assert.deepEqual(await list(t.key, { from: last }), { count: 1, uuids: [final] });
    assert.deepEqual(await list(t.key, { from: last, to: last, status: ['SUCCESS'] }), {
      count: 1,
      uuids: [final],
    });
    assert.deepEqual(await list(t.key, { to: '9999-12-31T23:59:59.998Z' }), { count: 1, uuids: [first] });
  });

  it('matches search case-insensitively on id, uuid and workflow name, with % _ and \\ taken literally', async () => {
    const t = await createTenant(ctx.db);
    const names = ['Alpha%Beta', 'Alpha_Beta', 'AlphaXBeta', 'C:\\flows'];
    const workflows = names.map((name) => ({ uuid: randomUUID(), name }));
    const rows = await store(
      t,
      workflows,
      names.map((_, i) => ({
        at: Date.parse('2026-01-05T00:00:00Z') + i,
        workflow: i,
        id: `RUN-Mixed-${i}`,
      })),
    );
    const search = async (text: string) => {
      const answer = await list(t.key, { search: text });
      assert.equal(answer.count, answer.uuids.length, `count of search ${text}`);
      return new Set(answer.uuids);
    };
    const of = (...indexes: number[]) => new Set(indexes.map((i) => rows[i]!.uuid));
    assert.deepEqual(await search('ALPHA%beta'), of(0));
    assert.deepEqual(await search('%'), of(0));
    assert.deepEqual(await search('_'), of(1));
    assert.deepEqual(await search('a_b'), of(1));
    assert.deepEqual(await search('alpha'), of(0, 1, 2));
    assert.deepEqual(await search('\\'), of(3));
    assert.deepEqual(await search('mixed-2'), of(2));
    assert.deepEqual(await search('run-mixed'), of(0, 1, 2, 3));
    assert.deepEqual(await search(rows[3]!.uuid.toUpperCase()), of(3));
    assert.deepEqual(await search(rows[2]!.uuid.slice(14, 23)), of(2));
    assert.deepEqual(await search('no such thing'), of());
    // An empty search is no filter at all.
    assert.deepEqual(await search(''), of(0, 1, 2, 3));
  });

  it('orders by each orderBy field in both directions, ties broken by uuid in the same direction', async () => {
    const t = await createTenant(ctx.db);
    const base = Date.parse('2026-05-01T00:00:00Z');
    const statuses = ['SUCCESS', 'FAILURE', 'IN_PROGRESS', 'TRIGGERED', 'UNKNOWN', 'UNSPECIFIED'];
    // Few distinct values per key, so ties are common; credits order as numbers, not text.
    const rows = await store(
      t,
      [{ uuid: randomUUID(), name: 'ordered' }],
      Array.from({ length: 36 }, (_, i) => ({
        at: base + (i % 5) * 1_000,
        workflow: 0,
        status: statuses[i % statuses.length]!,
        credit: [null, 9, 10, 12.5, 100, 0.5, 9][i % 7]!,
        id: ['b-2', 'B-1', 'a-10', 'a-9'][i % 4]!,
      })),
    );
    for (const field of ['ID', 'STATUS', 'STARTED_AT', 'CREDIT_USED']) {
      for (const order of ['ASC', 'DESC'] as const) {
        const expected = sortModel(rows, field, order);
        assert.deepEqual(
          await walk(t.key, { orderBy: { field, order } }, 5),
          expected,
          `orderBy ${field} ${order}`,
        );
      }
    }
  });

  it('answers each field of a page the same whichever other fields the page asks for', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId, { name: 'Chosen Fields' });
    const runs = [
      { creditUsed: '12.50', errors: [{ error: 'timeout after 10s', count: 2 }], executedInTee: true },
      { creditUsed: null, errors: null, classifiedStatus: 'USER_ERROR', status: 'FAILURE' },
      { creditUsed: '0.000001', finishedAt: '2026-01-02T00:00:09Z' },
    ].map((fields, i) =>
      execution(t.organizationId, wf.uuid as string, { startedAt: `2026-01-02T00:0${i}:00Z`, ...fields }),
    );
    await ingest(ctx.db, [wf, ...runs]);
    const page = async (selection: string) =>
      dataOf(
        await ctx.server.gql(
          t.key,
          `query ($input: WorkflowExecutionsInput!) { workflowExecutions(input: $input) { data { ${selection} } } }
           ${selection.includes('...Failure') ? 'fragment Failure on WorkflowExecution { errors { error count } }' : ''}`,
          { input: { orderBy: { field: 'CREDIT_USED', order: 'DESC' } } },
        ),
      ).workflowExecutions.data as Array<Record<string, unknown>>;
    const every = await page(
      'uuid workflowUUID id workflowName workflowId status classifiedStatus startedAt finishedAt creditUsed errors { error count } executedInTee',
    );
    assert.equal(every.length, 3);
    assert.deepEqual(every[0]!.errors, [{ error: 'timeout after 10s', count: 2 }]);
    assert.equal(every[0]!.workflowName, 'Chosen Fields');
    const only = (...fields: string[]) =>
      every.map((row) => Object.fromEntries(fields.map((field) => [field, row[field]])));
    assert.deepEqual(await page('uuid'), only('uuid'));
    assert.deepEqual(await page('uuid status startedAt'), only('uuid', 'status', 'startedAt'));
    assert.deepEqual(await page('...Failure uuid'), only('errors', 'uuid'));
    assert.deepEqual(await page('workflowName'), only('workflowName'));
    assert.deepEqual(
      await page('id ... on WorkflowExecution { workflowId creditUsed }'),
      only('id', 'workflowId', 'creditUsed'),
    );
    assert.deepEqual(
      (await page('name: workflowName credit: creditUsed')).map((row) => [row.name, row.credit]),
      every.map((row) => [row.workflowName, row.creditUsed]),
    );
    // Two aliases of the list: each reads what its own selection shows.
    const both = dataOf(
      await ctx.server.gql(
        t.key,
        `query ($input: WorkflowExecutionsInput!) { workflowExecutions(input: $input) {
           plain: data { uuid } full: data { uuid errors { error count } workflowName } } }`,
        { input: { orderBy: { field: 'CREDIT_USED', order: 'DESC' } } },
      ),
    ).workflowExecutions;
    assert.deepEqual(both.plain, only('uuid'));
    assert.deepEqual(both.full, only('uuid', 'errors', 'workflowName'));
  });

  it('pages through many executions with the same startedAt without repeating or skipping one', async () => {
    const t = await createTenant(ctx.db);
    const at = Date.parse('2026-06-01T12:00:00Z');
    const rows = await store(
      t,
      [{ uuid: randomUUID(), name: 'tied' }],
      Array.from({ length: 31 }, () => ({ at, workflow: 0 })),
    );
    const uuids = rows.map((row) => row.uuid).sort();
    assert.deepEqual(await walk(t.key, {}, 7), [...uuids].reverse());
    assert.deepEqual(await walk(t.key, { orderBy: { field: 'STARTED_AT', order: 'ASC' } }, 4), uuids);
    assert.deepEqual(await walk(t.key, { from: iso(at), to: iso(at) }, 10), [...uuids].reverse());
  });

  it('accepts one $input variable and inline fields with separate variables alike', async () => {
    const t = await createTenant(ctx.db);
    const workflows = [
      { uuid: randomUUID(), name: 'one' },
      { uuid: randomUUID(), name: 'two' },
    ];
    const rows = await store(
      t,
      workflows,
      Array.from({ length: 9 }, (_, i) => ({
        at: Date.parse('2026-01-01T00:00:00Z') + i * HOUR,
        workflow: i % 2,
      })),
    );
    const expected = sortModel(
      rows.filter((row) => row.workflowUuid === workflows[0]!.uuid),
      'STARTED_AT',
      'DESC',
    ).slice(2, 4);
    const whole = await list(t.key, { workflowUuid: workflows[0]!.uuid, page: { number: 1, size: 2 } });
    assert.deepEqual(whole, { count: 5, uuids: expected });
    const inline = dataOf(
      await ctx.server.gql(
        t.key,
        `query ($wf: String, $n: Int, $s: Int) {
           workflowExecutions(input: {workflowUuid: $wf, page: {number: $n, size: $s}}) { count data { uuid } } }`,
        { wf: workflows[0]!.uuid, n: 1, s: 2 },
      ),
    ).workflowExecutions;
    assert.deepEqual({ count: inline.count, uuids: inline.data.map((r: { uuid: string }) => r.uuid) }, whole);
    const literal = dataOf(
      await ctx.server.gql(
        t.key,
        `{ workflowExecutions(input: {workflowUuid: "${workflows[0]!.uuid}", page: {number: 1, size: 2},
             orderBy: {field: STARTED_AT, order: DESC}, status: [SUCCESS], from: "2025-12-31T23:00:00-01:00"}) {
           count data { uuid } } }`,
      ),
    ).workflowExecutions;
    assert.deepEqual(
      { count: literal.count, uuids: literal.data.map((r: { uuid: string }) => r.uuid) },
      whole,
    );
  });

  it('answers an empty list and count 0 for an unknown or malformed workflowUuid and an empty status list', async () => {
    const t = await createTenant(ctx.db);
    await store(
      t,
      [{ uuid: randomUUID(), name: 'some' }],
      [{ at: Date.parse('2026-01-01T00:00:00Z'), workflow: 0 }],
    );
    assert.deepEqual(await list(t.key, { workflowUuid: randomUUID() }), { count: 0, uuids: [] });
    assert.deepEqual(await list(t.key, { workflowUuid: 'not-a-uuid' }), { count: 0, uuids: [] });
    assert.deepEqual(await list(t.key, { workflowUuid: '' }), { count: 0, uuids: [] });
    // OR over no statuses matches nothing; omit the filter (or pass null) for every status.
    assert.deepEqual(await list(t.key, { status: [] }), { count: 0, uuids: [] });
    assert.equal(
      (await list(t.key, { status: null, workflowUuid: null, search: null, from: null, to: null })).count,
      1,
    );
  });
});
