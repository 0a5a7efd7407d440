import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTenant, execution, ingest, log, type Tenant, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { seeded } from '../ingest/dataset.js';
import { assertFieldError, dataOf } from '../read-api/graphql-assertions.js';
import { DAY, HOUR, iso, MINUTE, SECOND, timeText } from './reference.js';

const SEARCH = `query ($input: SearchExecutionLogsInput!) { searchExecutionLogs(input: $input) {
  count countIsExact data { workflowExecutionUUID workflowUUID workflowName nodeID timestamp message } } }`;

const COUNT = `query ($input: SearchExecutionLogsInput!) { searchExecutionLogs(input: $input) { count countIsExact } }`;

const T0 = Date.parse('2026-08-01T12:00:00Z');
const WINDOW = { from: iso(T0 - HOUR), to: iso(T0 + 10 * HOUR) };

interface Match {
  workflowExecutionUUID: string;
  workflowUUID: string;
  workflowName: string;
  nodeID: string;
  timestamp: string;
  message: string;
}

/** A stored line as the reference model keeps it, with its place in the order of arrival. */
interface Line extends Match {
  at: number;
  arrival: number;
}

describe('searchExecutionLogs', () => {
  const ctx = useServer({ rateLimit: { burst: 1_000_000, perSecond: 1_000_000 } });

  async function search(key: string, input: Record<string, unknown>) {
    return dataOf(await ctx.server.gql(key, SEARCH, { input })).searchExecutionLogs as {
      count: number;
      countIsExact: boolean;
      data: Match[];
    };
  }

  /** Every match, walked in pages of 100; `count` must be the same on each page. */
  async function searchAll(key: string, input: Record<string, unknown>) {
    const matches: Match[] = [];
    let count: number | undefined;
    for (let number = 0; ; number++) {
      const page = await search(key, { ...input, page: { number, size: 100 } });
      if (count !== undefined) assert.equal(page.count, count, `count on page ${number}`);
      count = page.count;
      matches.push(...page.data);
      if (page.data.length < 100) break;
    }
    return { count: count!, matches };
  }

  /** The matching lines of the reference model, newest first, then execution uuid, then arrival. */
  function expected(
    lines: readonly Line[],
    text: string,
    from: number,
    to: number,
    filter: Partial<Line> = {},
  ) {
    return lines
      .filter(
        (line) =>
          line.message.toLowerCase().includes(text.toLowerCase()) &&
          line.at >= from &&
          line.at <= to &&
          (filter.nodeID === undefined || line.nodeID === filter.nodeID) &&
          (filter.workflowUUID === undefined || line.workflowUUID === filter.workflowUUID),
      )
      .sort(
        (a, b) =>
          b.at - a.at ||
          (a.workflowExecutionUUID < b.workflowExecutionUUID
            ? -1
            : a.workflowExecutionUUID > b.workflowExecutionUUID
              ? 1
              : 0) ||
          a.arrival - b.arrival,
      )
      .map(({ at: _at, arrival: _arrival, ...match }) => match);
  }

  /**
   * Two workflows, six executions and a few hundred lines of a small vocabulary in mixed case, on
   * three nodes, many sharing a timestamp (within an execution and across executions), stored in
   * several batches so that arrival order matters.
   */
  async function seedMany(t: Tenant) {
    const random = seeded(20260801);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
    const workflows = [
      workflow(t.organizationId, { name: 'Price Feed' }),
      workflow(t.organizationId, { name: 'Settlement' }),
    ];
    const runs = Array.from({ length: 6 }, (_, i) =>
      execution(t.organizationId, workflows[i % 2]!.uuid as string, { startedAt: iso(T0) }),
    );
    await ingest(ctx.db, [...workflows, ...runs]);
    const words = [
      'Insufficient funds',
      'insufficient FUNDS for gas',
      'nonce too low',
      'fetched price',
      'RPC timeout',
    ];
    const lines: Line[] = [];
    for (let batch = 0; batch < 4; batch++) {
      const records = [];
      for (let i = 0; i < 80; i++) {
        const run = pick(runs);
        const wf = workflows.find((w) => w.uuid === run.workflowUUID)!;
        const at = T0 + Math.floor(random() * 20) * MINUTE + (random() < 0.5 ? 0 : 17);
        const message = `${pick(words)} #${batch}-${i}`;
        const nodeID = pick(['node-1', 'node-2', 'node-10']);
        records.push(log(t.organizationId, run.uuid as string, { nodeID, message, timestamp: iso(at) }));
        lines.push({
          workflowExecutionUUID: run.uuid as string,
          workflowUUID: wf.uuid as string,
          workflowName: wf.name as string,
          nodeID,
          timestamp: timeText(at),
          message,
          at,
          arrival: lines.length,
        });
      }
      await ingest(ctx.db, records);
    }
    return { lines, workflows: workflows.map((w) => w.uuid as string) };
  }

  it('finds exactly the matching lines of the window, case-insensitively, newest first, then by execution and arrival', async () => {
    const t = await createTenant(ctx.db);
    const { lines, workflows } = await seedMany(t);
    const cases: Array<[string, number, number, Partial<Line>]> = [
      ['insufficient funds', T0 - HOUR, T0 + HOUR, {}],
      ['INSUFFICIENT', T0 + 3 * MINUTE + 17, T0 + 11 * MINUTE, {}],
      ['Price', T0, T0 + HOUR, {}],
      ['for gas', T0, T0 + HOUR, { nodeID: 'node-1' }],
      ['nonce', T0, T0 + HOUR, { workflowUUID: workflows[1] }],
      ['#2-', T0 + 5 * MINUTE, T0 + 15 * MINUTE + 17, { nodeID: 'node-10', workflowUUID: workflows[0] }],
      ['no such words', T0, T0 + HOUR, {}],
    ];
    for (const [text, from, to, filter] of cases) {
      const exact = expected(lines, text, from, to, filter);
      const what = `${text} ${iso(from)}..${iso(to)} ${JSON.stringify(filter)}`;
      const answer = await searchAll(t.key, { query: text, from: iso(from), to: iso(to), ...filter });
      assert.deepEqual(answer.matches, exact, what);
      assert.equal(answer.count, exact.length, what);
    }
    assert.ok(expected(lines, 'insufficient funds', T0 - HOUR, T0 + HOUR).length > 100);
    const first = await search(t.key, { query: 'insufficient', ...WINDOW });
    assert.equal(first.countIsExact, true);
    assert.equal(first.data.length, 10, 'the default page holds ten matches');
  });

  it('answers the same page and count whether both are asked for, the page alone or the count alone', async () => {
    const t = await createTenant(ctx.db);
    const { lines } = await seedMany(t);
    const exact = expected(lines, 'insufficient', T0 - HOUR, T0 + HOUR);
    assert.ok(exact.length > 30, `${exact.length} matches`);
    const MATCH = 'workflowExecutionUUID workflowUUID workflowName nodeID timestamp message';
    // Through a fragment, an inline fragment and aliases: the fields asked for are found in each.
    const shapes = {
      both: `fragment F on SearchExecutionLogsOutput { total: count }
        query ($input: SearchExecutionLogsInput!) { searchExecutionLogs(input: $input) {
          ...F ... on SearchExecutionLogsOutput { exact: countIsExact } matches: data { ${MATCH} } } }`,
      page: `query ($input: SearchExecutionLogsInput!) { searchExecutionLogs(input: $input) { matches: data { ${MATCH} } } }`,
      count: `query ($input: SearchExecutionLogsInput!) { searchExecutionLogs(input: $input) { total: count exact: countIsExact } }`,
    };
    for (const number of [0, 2, 50]) {
      const input = {
        query: 'insufficient',
        from: iso(T0 - HOUR),
        to: iso(T0 + HOUR),
        page: { number, size: 7 },
      };
      const answers = Object.fromEntries(
        await Promise.all(
          Object.entries(shapes).map(async ([shape, query]) => [
            shape,
            dataOf(await ctx.server.gql(t.key, query, { input })).searchExecutionLogs,
          ]),
        ),
      );
      const page = exact.slice(number * 7, number * 7 + 7);
      assert.deepEqual(answers.both, { total: exact.length, exact: true, matches: page }, `page ${number}`);
      assert.deepEqual(answers.page, { matches: page }, `page ${number}`);
      assert.deepEqual(answers.count, { total: exact.length, exact: true }, `page ${number}`);
    }
  });

  it('matches %, _ and \\ literally', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const run = execution(t.organizationId, wf.uuid as string, { startedAt: iso(T0) });
    const messages = [
      '100% done',
      '1000 done',
      'value a_b set',
      'value axb set',
      'path C:\\temp\\x',
      'path C:/temp/x',
    ];
    await ingest(ctx.db, [
      wf,
      run,
      ...messages.map((message, i) =>
        log(t.organizationId, run.uuid as string, { message, timestamp: iso(T0 + i * SECOND) }),
      ),
    ]);
    const found = async (query: string) =>
      (await search(t.key, { query, ...WINDOW })).data.map((match) => match.message);
    assert.deepEqual(await found('0% d'), ['100% done']);
    assert.deepEqual(await found('%%%'), []);
    assert.deepEqual(await found('a_b'), ['value a_b set']);
    assert.deepEqual(await found('___'), []);
    assert.deepEqual(await found(':\\te'), ['path C:\\temp\\x']);
    assert.deepEqual(await found('\\\\\\'), []);
    assert.deepEqual(await found('DONE'), ['1000 done', '100% done']);
  });

  it('bounds the window inclusively by the timestamp of each line', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const run = execution(t.organizationId, wf.uuid as string, { startedAt: iso(T0 - 2 * HOUR) });
    const from = T0 + 2 * MINUTE + 30 * SECOND + 1;
    const to = T0 + 47 * MINUTE + 1;
    const times = [from - 1, from, from + 1, to - 1, to, to + 1];
    await ingest(ctx.db, [
      wf,
      run,
      ...times.map((at, i) =>
        log(t.organizationId, run.uuid as string, { message: `edge line ${i}`, timestamp: iso(at) }),
      ),
    ]);
    const answer = await search(t.key, { query: 'edge line', from: iso(from), to: iso(to) });
    assert.deepEqual(
      answer.data.map((match) => match.message),
      ['edge line 4', 'edge line 3', 'edge line 2', 'edge line 1'],
    );
    assert.equal(answer.count, 4);
    // Without from, the window is the 24 hours before `to`.
    const day = await search(t.key, { query: 'edge line', to: iso(from - 1 + 24 * HOUR) });
    assert.equal(day.count, 6);
    const dayLater = await search(t.key, { query: 'edge line', to: iso(from + 24 * HOUR) });
    assert.equal(dayLater.count, 5);
  });

  it('finds the lines of every day and hour a window covers: across midnight UTC and the hour, from before 1970, and in windows of more than 32 and 400 days', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const run = execution(t.organizationId, wf.uuid as string, { startedAt: iso(T0 - 60 * DAY) });
    const midnight = Date.parse('2026-08-02T00:00:00Z');
    const epoch = 0;
    const times = [
      midnight - 1,
      midnight,
      midnight + 1,
      midnight - 20 * DAY,
      midnight + 20 * DAY,
      epoch,
      epoch + 1,
      epoch + DAY,
      midnight + 5 * HOUR - 1,
      midnight + 5 * HOUR,
      epoch + HOUR - 1,
      epoch + HOUR,
    ];
    await ingest(ctx.db, [
      wf,
      run,
      ...times.map((at, i) =>
        log(t.organizationId, run.uuid as string, { message: `day line ${i}`, timestamp: iso(at) }),
      ),
    ]);
    const windows: Array<[number, number]> = [
      [midnight - 1, midnight - 1],
      [midnight, midnight],
      [midnight - HOUR, midnight],
      [midnight, midnight + HOUR],
      [midnight - 1, midnight + 1],
      [midnight - 20 * DAY, midnight + 20 * DAY],
      [midnight - 20 * DAY + 1, midnight + 20 * DAY - 1],
      [epoch - DAY - 1, epoch],
      [epoch - 1, epoch + DAY],
      [epoch - 2 * DAY, epoch + 40 * DAY],
      // Hours: a window within one, one ending or starting on an hour's first instant, days
      // touched in part on both sides, and a day touched in each of its hours but not whole.
      [midnight + 5 * HOUR - 1, midnight + 5 * HOUR - 1],
      [midnight + 5 * HOUR, midnight + 5 * HOUR],
      [midnight + 4 * HOUR, midnight + 5 * HOUR - 1],
      [midnight + 4 * HOUR, midnight + 5 * HOUR],
      [midnight + 5 * HOUR, midnight + 6 * HOUR],
      [midnight - 30 * MINUTE, midnight + 5 * HOUR],
      [midnight - DAY + 1, midnight + 1],
      [midnight - 23 * HOUR, midnight + 5 * HOUR - 1],
      [epoch - HOUR, epoch + HOUR - 1],
      [epoch + HOUR, epoch + HOUR],
      [epoch - 2 * HOUR - 1, epoch],
      // More than 400 days: no days or hours named, the trigrams alone, kept to the window.
      [epoch - DAY, midnight + 30 * DAY],
      [epoch + 1, midnight - 1],
    ];
    for (const [from, to] of windows) {
      const inside = times.flatMap((at, i) => (at >= from && at <= to ? [`day line ${i}`] : []));
      const answer = await searchAll(t.key, { query: 'day line', from: iso(from), to: iso(to) });
      assert.deepEqual(
        answer.matches.map((m) => m.message).sort(),
        inside.sort(),
        `${iso(from)}..${iso(to)}`,
      );
      assert.equal(answer.count, inside.length, `${iso(from)}..${iso(to)}`);
    }
  });

  it('keeps to the exact node and workflow asked for, and answers nothing for an unknown or malformed workflow', async () => {
    const t = await createTenant(ctx.db);
    const { lines, workflows } = await seedMany(t);
    const node10 = await searchAll(t.key, { query: 'price', ...WINDOW, nodeID: 'node-10' });
    assert.ok(node10.count > 0);
    assert.ok(node10.matches.every((m) => m.nodeID === 'node-10'));
    assert.equal((await search(t.key, { query: 'price', ...WINDOW, nodeID: 'NODE-1' })).count, 0);
    assert.equal((await search(t.key, { query: 'price', ...WINDOW, nodeID: 'node' })).count, 0);
    const upper = await searchAll(t.key, {
      query: 'price',
      ...WINDOW,
      workflowUUID: workflows[0]!.toUpperCase(),
    });
    assert.deepEqual(
      upper.matches,
      expected(lines, 'price', T0 - HOUR, T0 + 10 * HOUR, { workflowUUID: workflows[0] }),
    );
    for (const workflowUUID of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      assert.deepEqual(await search(t.key, { query: 'price', ...WINDOW, workflowUUID }), {
        count: 0,
        countIsExact: true,
        data: [],
      });
    }
  });

  it('leaves out lines of executions not stored, or whose workflow is not stored, until they arrive', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const run = execution(t.organizationId, wf.uuid as string, { startedAt: iso(T0) });
    const line = log(t.organizationId, run.uuid as string, { message: 'orphan line', timestamp: iso(T0) });
    await ingest(ctx.db, [line]);
    assert.equal((await search(t.key, { query: 'orphan', ...WINDOW })).count, 0);
    await ingest(ctx.db, [run]);
    assert.equal((await search(t.key, { query: 'orphan', ...WINDOW })).count, 0);
    await ingest(ctx.db, [wf]);
    assert.deepEqual((await search(t.key, { query: 'orphan', ...WINDOW })).data, [
      {
        workflowExecutionUUID: run.uuid,
        workflowUUID: wf.uuid,
        workflowName: wf.name,
        nodeID: 'node-1',
        timestamp: timeText(T0),
        message: 'orphan line',
      },
    ]);
  });

  it('refuses a query shorter than 3 characters with BAD_USER_INPUT', async () => {
    const t = await createTenant(ctx.db);
    for (const query of ['', 'ab', 'é€']) {
      assertFieldError(
        await ctx.server.gql(t.key, SEARCH, { input: { query, ...WINDOW } }),
        'BAD_USER_INPUT',
        'query must be at least 3 characters',
      );
    }
    for (const query of ['abc', 'éé€']) assert.equal((await search(t.key, { query, ...WINDOW })).count, 0);
    assertFieldError(
      await ctx.server.gql(t.key, SEARCH, { input: { query: 'abc', from: iso(T0 + 1), to: iso(T0) } }),
      'BAD_USER_INPUT',
      'from must not be later than to',
    );
  });

  it('counts exactly up to 10,000 matches, then 10,000 with countIsExact false, and ends pages there, with more matching lines of an execution not stored read first', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const runs = [0, 1].map(() => execution(t.organizationId, wf.uuid as string, { startedAt: iso(T0) }));
    // 3,000 matching lines of an execution never stored, stored first: a search that counts the
    // lines it reads first and looks up their executions afterwards finds 7,001 visible among the
    // first 10,001, and must read on to count exactly.
    const unseen = execution(t.organizationId, wf.uuid as string, { startedAt: iso(T0) });
    await ingest(
      ctx.db,
      Array.from({ length: 3000 }, (_, i) =>
        log(t.organizationId, unseen.uuid as string, {
          message: `needle unseen ${i}`,
          timestamp: iso(T0 + i * SECOND),
        }),
      ),
    );
    await ingest(ctx.db, [wf, ...runs]);
    // 10,001 matching lines a second apart (and some that do not match), in a few large batches.
    const total = 10_001;
    const lines = Array.from({ length: total }, (_, i) =>
      log(t.organizationId, runs[i % 2]!.uuid as string, {
        message: `needle ${i}`,
        timestamp: iso(T0 + i * SECOND),
      }),
    );
    const others = Array.from({ length: 500 }, (_, i) =>
      log(t.organizationId, runs[0]!.uuid as string, {
        message: `hay ${i}`,
        timestamp: iso(T0 + i * SECOND),
      }),
    );
    const all = [...lines, ...others];
    for (let i = 0; i < all.length; i += 4000) await ingest(ctx.db, all.slice(i, i + 4000));
    const from = iso(T0);
    const last = T0 + (total - 1) * SECOND;

    const capped = await search(t.key, { query: 'NEEDLE', from, to: iso(last) });
    assert.deepEqual([capped.count, capped.countIsExact], [10_000, false]);
    assert.deepEqual(
      capped.data.map((m) => m.message),
      Array.from({ length: 10 }, (_, i) => `needle ${total - 1 - i}`),
    );
    // One line fewer: exactly 10,000; two fewer: 9,999.
    const exact = await search(t.key, { query: 'needle', from, to: iso(last - 1) });
    assert.deepEqual([exact.count, exact.countIsExact], [10_000, true]);
    const below = await search(t.key, { query: 'needle', from: iso(T0 + SECOND), to: iso(last - 1) });
    assert.deepEqual([below.count, below.countIsExact], [9_999, true]);
    // The same counts asked for alone.
    for (const [to, count, countIsExact] of [
      [last, 10_000, false],
      [last - 1, 10_000, true],
    ] as const) {
      const alone = dataOf(
        await ctx.server.gql(t.key, COUNT, { input: { query: 'needle', from, to: iso(to) } }),
      );
      assert.deepEqual(alone.searchExecutionLogs, { count, countIsExact });
    }

    // The last page ends at the 10,000th match; a page past it is refused.
    const lastPage = await search(t.key, {
      query: 'needle',
      from,
      to: iso(last),
      page: { number: 99, size: 100 },
    });
    assert.deepEqual(
      lastPage.data.map((m) => m.message),
      Array.from({ length: 100 }, (_, i) => `needle ${total - 1 - 9_900 - i}`),
    );
    for (const page of [
      { number: 100, size: 100 },
      { number: 1000, size: 10 },
      { number: 5000, size: 3 },
    ]) {
      assertFieldError(
        await ctx.server.gql(t.key, SEARCH, { input: { query: 'needle', from, to: iso(last), page } }),
        'BAD_USER_INPUT',
        /pages end at match 10000/,
      );
    }
  });

  it("never finds another organization's lines", async () => {
    const a = await createTenant(ctx.db, 'Acme');
    const b = await createTenant(ctx.db, 'Beta');
    const seed = async (t: Tenant, n: number) => {
      const wf = workflow(t.organizationId);
      const run = execution(t.organizationId, wf.uuid as string, { startedAt: iso(T0) });
      await ingest(ctx.db, [
        wf,
        run,
        ...Array.from({ length: n }, (_, i) =>
          log(t.organizationId, run.uuid as string, {
            message: `shared secret ${i}`,
            timestamp: iso(T0 + i * SECOND),
          }),
        ),
      ]);
      return wf.uuid as string;
    };
    await seed(a, 2);
    const before = await search(a.key, { query: 'shared secret', ...WINDOW });
    const bWorkflow = await seed(b, 5);
    assert.deepEqual(await search(a.key, { query: 'shared secret', ...WINDOW }), before);
    assert.equal(before.count, 2);
    assert.equal(
      (await search(a.key, { query: 'shared secret', ...WINDOW, workflowUUID: bWorkflow })).count,
      0,
    );
    assert.equal((await search(b.key, { query: 'shared secret', ...WINDOW })).count, 5);
  });
});
