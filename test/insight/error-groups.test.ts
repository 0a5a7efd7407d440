import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { errorGroupOf, errorPattern, fingerprintOf } from '../../src/rollups/fingerprint.js';
import { createTenant, event, execution, ingest, type Tenant, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { assertFieldError, dataOf } from '../read-api/graphql-assertions.js';
import { DAY, HOUR, iso, MINUTE, SECOND, timeText, word } from './reference.js';

const GROUP_FIELDS = `fingerprint pattern sampleMessage occurrences executionCount workflowCount capabilityIDs
  firstSeenAt lastSeenAt activity { from to occurrences }`;
const GROUPS = `query ($input: ErrorGroupsInput!) { errorGroups(input: $input) { count data { ${GROUP_FIELDS} } } }`;
const EXECUTIONS = `query ($input: WorkflowExecutionsInput!) { workflowExecutions(input: $input) { count data { uuid } } }`;
const ACTIVITY = `query ($input: WorkflowActivityInput!) { workflowActivity(input: $input) {
  data { from to successCount failureCount } } }`;

const T0 = Date.parse('2026-05-04T10:00:00Z');
/** The usual window: an hour before T0 to six hours after. */
const WINDOW = { from: iso(T0 - HOUR), to: iso(T0 + 6 * HOUR) };

type Errors = Array<{ error: string; count: number }>;

interface Group {
  fingerprint: string;
  pattern: string;
  sampleMessage: string;
  occurrences: number;
  executionCount: number;
  workflowCount: number;
  capabilityIDs: string[];
  firstSeenAt: string;
  lastSeenAt: string;
  activity: Array<{ from: string; to: string; occurrences: number }>;
}

const fingerprint = (message: string) => errorGroupOf(message).fingerprint;

describe('error grouping (src/rollups/fingerprint.ts)', () => {
  it('replaces numbers, times, hex strings, uuids, chain addresses and quoted strings with placeholders', () => {
    const cases: Array<[string, string]> = [
      ['index out of range [7] with length 7', 'index out of range [<num>] with length <num>'],
      ['gas 21000.5 exceeds limit 1e6', 'gas <num> exceeds limit <num>'],
      ['retry 3/5 after 1.5s on node-3', 'retry <num>/<num> after <num>s on node-<num>'],
      ['rpc 10.0.0.12:8545 refused, client 1.2.3', 'rpc <num>:<num> refused, client <num>'],
      ['tx 0xdeadbeef reverted', 'tx <hex> reverted'],
      ['tx 0x' + 'ab12'.repeat(16) + ' reverted', 'tx <hex> reverted'],
      ['transfer from 0x00000000000000000000000000000000000000aA failed', 'transfer from <address> failed'],
      ['execution 3F2B8C1E-1234-4abc-9def-0123456789ab timed out', 'execution <uuid> timed out'],
      ['hash 9f86d081884c7d659a2feaa0c55ad015 mismatch', 'hash <hex> mismatch'],
      [`unknown field "foo 12 \\" bar" in 'x' and \`y\``, 'unknown field <str> in <str> and <str>'],
      // Words stay: a number glued to a word before it, and hex-like words without a digit.
      ['v2 api sha256 check for deadbeefdeadbeefdead', 'v2 api sha256 check for deadbeefdeadbeefdead'],
      ['upgrade to v1.2.3 failed', 'upgrade to v1.2.3 failed'],
      // A date-time is one variable part, with or without seconds, fraction and offset.
      [
        'deadline 2026-11-23T10:00:00Z passed at 2026-11-23 10:00:01.25+02:00',
        'deadline <time> passed at <time>',
      ],
    ];
    for (const [message, pattern] of cases) assert.equal(errorPattern(message), pattern, message);
  });

  it('keeps messages apart that differ in more than their variable parts', () => {
    const messages = [
      'insufficient funds for gas',
      'insufficient funds for transfer',
      'timeout after 5s',
      'timeout after 5ms',
      'v2 endpoint failed',
      'v3 endpoint failed',
      'index out of range [7] with length 7',
      'index out of range [7] with capacity 7',
    ];
    assert.equal(new Set(messages.map(fingerprint)).size, messages.length);
  });

  it('gives a pattern the same fingerprint in every process: the first 16 hex digits of its SHA-256', () => {
    // Fixed values: a fingerprint computed anywhere, at any time, must be exactly these.
    assert.equal(fingerprintOf('index out of range [<num>] with length <num>'), 'a2e523cb7383d90b');
    assert.equal(fingerprintOf(''), 'e3b0c44298fc1c14');
    assert.deepEqual(errorGroupOf('index out of range [12] with length 12'), {
      fingerprint: 'a2e523cb7383d90b',
      pattern: 'index out of range [<num>] with length <num>',
    });
  });
});

describe('errorGroups', () => {
  const ctx = useServer({ rateLimit: { burst: 1_000_000, perSecond: 1_000_000 } });

  async function groups(
    key: string,
    input: Record<string, unknown>,
  ): Promise<{ count: number; data: Group[] }> {
    return dataOf(await ctx.server.gql(key, GROUPS, { input })).errorGroups;
  }

  /** The one group of `message` in the answer (undefined when absent). */
  async function groupOf(key: string, input: Record<string, unknown>, message: string) {
    return (await groups(key, input)).data.find((g) => g.fingerprint === fingerprint(message));
  }

  async function executions(key: string, input: Record<string, unknown>) {
    const answer = dataOf(await ctx.server.gql(key, EXECUTIONS, { input })).workflowExecutions;
    return { count: answer.count as number, uuids: answer.data.map((row: { uuid: string }) => row.uuid) };
  }

  /** A failed execution started at `startedAt` (ms) with its own errors. */
  const failed = (t: Tenant, workflowUuid: string, startedAt: number, errors?: Errors, fields = {}) =>
    execution(t.organizationId, workflowUuid, {
      status: 'FAILURE',
      startedAt: iso(startedAt),
      ...(errors ? { errors } : {}),
      ...fields,
    });

  /** A failed capability call with errors. */
  const call = (t: Tenant, executionUuid: string, capabilityID: string, startedAt: number, errors: Errors) =>
    event(t.organizationId, executionUuid, {
      capabilityID,
      status: 'FAILURE',
      startedAt: iso(startedAt),
      errors,
    });

  async function twoWorkflows(t: Tenant) {
    const wf1 = workflow(t.organizationId, { name: 'one' });
    const wf2 = workflow(t.organizationId, { name: 'two' });
    await ingest(ctx.db, [wf1, wf2]);
    return [wf1.uuid as string, wf2.uuid as string] as const;
  }

  it('merges messages that differ only in variable parts into one group and keeps different ones apart', async () => {
    const t = await createTenant(ctx.db);
    const [wf] = await twoWorkflows(t);
    const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
    await ingest(ctx.db, [
      failed(t, wf, T0 + MINUTE, [{ error: 'index out of range [7] with length 7', count: 1 }]),
      failed(t, wf, T0 + 2 * MINUTE, [{ error: 'index out of range [12] with length 12', count: 2 }]),
      ...[1, 2, 3].map((n) =>
        failed(t, wf, T0 + (10 + n) * MINUTE, [
          { error: `insufficient funds: address ${address(n)} have ${n * 10} want ${n * 99}`, count: 1 },
        ]),
      ),
      failed(t, wf, T0 + 20 * MINUTE, [{ error: 'connection refused', count: 1 }]),
    ]);
    const answer = await groups(t.key, WINDOW);
    assert.equal(answer.count, 3);
    const index = fingerprint('index out of range [1] with length 1');
    const funds = fingerprint(`insufficient funds: address ${address(9)} have 1 want 2`);
    // Two groups of 3 occurrences, ordered by fingerprint; then the single one.
    assert.deepEqual(
      answer.data.map((g) => [g.fingerprint, g.pattern, g.occurrences, g.executionCount]),
      [
        ...[
          [index, 'index out of range [<num>] with length <num>', 3, 2],
          [funds, 'insufficient funds: address <address> have <num> want <num>', 3, 3],
        ].sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
        [fingerprint('connection refused'), 'connection refused', 1, 1],
      ],
    );
  });

  it('counts occurrences at every level, each execution once, its workflows and the capabilities that carried it', async () => {
    const t = await createTenant(ctx.db);
    const [wf1, wf2] = await twoWorkflows(t);
    const e1 = failed(t, wf1, T0 + 10 * MINUTE, [{ error: 'rpc timeout after 30 s', count: 2 }]);
    const e2 = failed(t, wf2, T0 + 20 * MINUTE);
    const e3 = failed(t, wf1, T0 + 30 * MINUTE, [{ error: 'nonce too low: next 5, got 3', count: 1 }]);
    const [u1, u2] = [e1.uuid as string, e2.uuid as string];
    await ingest(ctx.db, [
      e1,
      e2,
      e3,
      call(t, u1, 'cap-a@1', T0 + 11 * MINUTE, [{ error: 'rpc timeout after 31 s', count: 3 }]),
      call(t, u1, 'cap-b@1', T0 + 12 * MINUTE, [{ error: 'rpc timeout after 32 s', count: 1 }]),
      call(t, u1, 'cap-a@1', T0 + 13 * MINUTE, [{ error: 'rpc timeout after 33 s', count: 1 }]),
      call(t, u2, 'cap-a@1', T0 + 21 * MINUTE, [{ error: 'rpc timeout after 40 s', count: 4 }]),
    ]);
    const rpc = 'rpc timeout after 1 s';
    const nonce = 'nonce too low: next 1, got 1';
    const pick = (g: Group | undefined) =>
      g && {
        occurrences: g.occurrences,
        executionCount: g.executionCount,
        workflowCount: g.workflowCount,
        capabilityIDs: g.capabilityIDs,
      };
    const all = await groups(t.key, WINDOW);
    assert.equal(all.count, 2);
    assert.deepEqual(pick(await groupOf(t.key, WINDOW, rpc)), {
      occurrences: 11,
      executionCount: 2,
      workflowCount: 2,
      capabilityIDs: ['cap-a@1', 'cap-b@1'],
    });
    assert.deepEqual(pick(await groupOf(t.key, WINDOW, nonce)), {
      occurrences: 1,
      executionCount: 1,
      workflowCount: 1,
      capabilityIDs: [],
    });

    // One capability: only its events count.
    const capA = await groups(t.key, { ...WINDOW, capabilityID: 'cap-a@1' });
    assert.deepEqual(
      capA.data.map((g) => [g.fingerprint, pick(g)]),
      [
        [
          fingerprint(rpc),
          { occurrences: 8, executionCount: 2, workflowCount: 2, capabilityIDs: ['cap-a@1'] },
        ],
      ],
    );
    assert.equal(capA.count, 1);
    assert.deepEqual(pick(await groupOf(t.key, { ...WINDOW, capabilityID: 'cap-b@1' }, rpc)), {
      occurrences: 1,
      executionCount: 1,
      workflowCount: 1,
      capabilityIDs: ['cap-b@1'],
    });
    assert.equal((await groups(t.key, { ...WINDOW, capabilityID: 'cap-z@1' })).count, 0);

    // One workflow: only its executions count.
    const one = await groups(t.key, { ...WINDOW, workflowUUID: wf1 });
    assert.equal(one.count, 2);
    assert.deepEqual(pick(one.data.find((g) => g.fingerprint === fingerprint(rpc))), {
      occurrences: 7,
      executionCount: 1,
      workflowCount: 1,
      capabilityIDs: ['cap-a@1', 'cap-b@1'],
    });
    assert.equal((await groups(t.key, { ...WINDOW, workflowUUID: wf2, capabilityID: 'cap-b@1' })).count, 0);
    assert.deepEqual(
      (await groups(t.key, { ...WINDOW, workflowUUID: wf2.toUpperCase() })).data.map((g) => g.occurrences),
      [4],
    );
    for (const workflowUUID of [randomUUID(), 'not-a-uuid']) {
      assert.deepEqual(await groups(t.key, { ...WINDOW, workflowUUID }), { count: 0, data: [] });
    }
  });

  it('answers the same ranks whether or not the workflows and capabilities are asked for, however they are asked', async () => {
    const t = await createTenant(ctx.db);
    const [wf1, wf2] = await twoWorkflows(t);
    const e1 = failed(t, wf1, T0 + 10 * MINUTE, [{ error: 'disk full on volume 1', count: 1 }]);
    const e2 = failed(t, wf2, T0 + 20 * MINUTE, [{ error: 'nonce too low: next 5, got 3', count: 2 }]);
    const e3 = failed(t, wf1, T0 + 30 * MINUTE);
    await ingest(ctx.db, [
      e1,
      e2,
      e3,
      call(t, e3.uuid as string, 'cap-a@1', T0 + 31 * MINUTE, [
        { error: 'nonce too low: next 9, got 1', count: 3 },
      ]),
      call(t, e2.uuid as string, 'cap-b@1', T0 + 21 * MINUTE, [{ error: 'disk full on volume 2', count: 1 }]),
    ]);
    const ask = async (input: Record<string, unknown>, selection: string, fragments = '') =>
      dataOf(
        await ctx.server.gql(
          t.key,
          `query ($input: ErrorGroupsInput!) { errorGroups(input: $input) { ${selection} } } ${fragments}`,
          { input },
        ),
      ).errorGroups;
    for (const input of [WINDOW, { ...WINDOW, capabilityID: 'cap-a@1' }, { ...WINDOW, workflowUUID: wf1 }]) {
      const full = await groups(t.key, input);
      const ranks = full.data.map((g) => [g.fingerprint, g.occurrences, g.executionCount]);
      const spreads = full.data.map((g) => [g.fingerprint, g.workflowCount, g.capabilityIDs]);
      assert.ok(full.count > 0);
      // The rank alone, without the fields read with it.
      const bare = await ask(input, 'count data { fingerprint occurrences executionCount }');
      assert.equal(bare.count, full.count);
      assert.deepEqual(
        bare.data.map((g: Group) => [g.fingerprint, g.occurrences, g.executionCount]),
        ranks,
      );
      // The spread through a fragment of the output, an inline fragment and aliases.
      const spread = await ask(
        input,
        '...Out',
        `fragment Out on ErrorGroupsOutput { total: count groups: data { id: fingerprint
          ... on ErrorGroup { n: occurrences workflows: workflowCount } ...Caps } }
         fragment Caps on ErrorGroup { caps: capabilityIDs }`,
      );
      assert.equal(spread.total, full.count);
      assert.deepEqual(
        spread.groups.map((g: { id: string; workflows: number; caps: string[] }) => [
          g.id,
          g.workflows,
          g.caps,
        ]),
        spreads,
      );
    }
    const all = await groups(t.key, WINDOW);
    assert.deepEqual(
      all.data.map((g) => [g.occurrences, g.executionCount, g.workflowCount, g.capabilityIDs]),
      [
        [5, 2, 2, ['cap-a@1']],
        [2, 2, 2, ['cap-b@1']],
      ],
    );
  });

  it('dates a group by its earliest and latest execution over all time, and samples a message of the latest', async () => {
    const t = await createTenant(ctx.db);
    const [wf] = await twoWorkflows(t);
    const hidden = workflow(t.organizationId);
    const earliest = failed(t, wf, T0 - 3 * DAY, [{ error: 'disk 1 full', count: 1 }]);
    const latest = failed(t, wf, T0 + 5 * DAY + 7 * SECOND, [{ error: 'disk 3 full', count: 1 }]);
    // Sent out of time order: the middle one, then the latest, then the earliest, then a late call
    // of the latest (its own message stays the sample), and executions of a workflow not stored.
    await ingest(ctx.db, [failed(t, wf, T0 + HOUR, [{ error: 'disk 2 full', count: 1 }])]);
    await ingest(ctx.db, [latest]);
    await ingest(ctx.db, [earliest]);
    await ingest(ctx.db, [
      call(t, latest.uuid as string, 'cap@1', T0 + 6 * DAY, [{ error: 'disk 4 full', count: 1 }]),
      failed(t, hidden.uuid as string, T0 - 9 * DAY, [{ error: 'disk 5 full', count: 1 }]),
      failed(t, hidden.uuid as string, T0 + 9 * DAY, [{ error: 'disk 6 full', count: 1 }]),
    ]);
    const window = { from: iso(T0), to: iso(T0 + 2 * HOUR) };
    const dates = async () =>
      (await groups(t.key, window)).data.map((g) => [
        g.occurrences,
        g.firstSeenAt,
        g.lastSeenAt,
        g.sampleMessage,
        g.pattern,
      ]);
    assert.deepEqual(await dates(), [
      [1, timeText(T0 - 3 * DAY), '2026-05-09T10:00:07Z', 'disk 3 full', 'disk <num> full'],
    ]);
    // The latest loses its own errors: its call's message is the sample.
    await ingest(ctx.db, [{ ...latest, errors: null }]);
    assert.deepEqual(await dates(), [
      [1, timeText(T0 - 3 * DAY), '2026-05-09T10:00:07Z', 'disk 4 full', 'disk <num> full'],
    ]);
    // The earliest is corrected to carry no error: the first sighting is the next execution's.
    await ingest(ctx.db, [{ ...earliest, errors: [] }]);
    assert.deepEqual((await dates())[0]!.slice(0, 3), [1, timeText(T0 + HOUR), '2026-05-09T10:00:07Z']);
    // The hidden workflow arrives: its executions are sightings now.
    await ingest(ctx.db, [hidden]);
    assert.deepEqual(await dates(), [
      [1, timeText(T0 - 9 * DAY), timeText(T0 + 9 * DAY), 'disk 6 full', 'disk <num> full'],
    ]);
  });

  it('dates and samples a group identically whatever the order its executions and calls arrive in', async () => {
    const t = await createTenant(ctx.db);
    const [wf] = await twoWorkflows(t);
    const uuid = randomUUID();
    const records = [
      // An earlier state started earlier, then the final one: only the final start counts.
      execution(t.organizationId, wf, { uuid, status: 'TRIGGERED', startedAt: iso(T0 - HOUR) }),
      failed(t, wf, T0 + 10 * MINUTE, [{ error: 'fee 1 too low', count: 1 }], { uuid }),
      call(t, uuid, 'cap-b@1', T0 + 11 * MINUTE, [{ error: 'fee 2 too low', count: 1 }]),
      call(t, uuid, 'cap-a@1', T0 + 11 * MINUTE, [{ error: 'fee 3 too low', count: 1 }]),
      // Two executions starting together, the later uuid sampled.
      failed(t, wf, T0 + 20 * MINUTE, [{ error: 'fee 4 too low', count: 1 }], {
        uuid: 'ffffffff-0000-4000-8000-000000000000',
      }),
      failed(t, wf, T0 + 20 * MINUTE, [{ error: 'fee 5 too low', count: 1 }], {
        uuid: '00000000-ffff-4000-8000-000000000000',
      }),
    ];
    const answers = [];
    for (const order of [
      [0, 1, 2, 3, 4, 5],
      [5, 4, 3, 2, 1, 0],
      [0, 3, 2, 5, 4, 1],
    ]) {
      await ctx.database.reset();
      const tenant = await createTenant(ctx.db);
      const moved = order.map((i) => ({ ...records[i]!, organizationId: tenant.organizationId }));
      await ingest(ctx.db, [{ ...workflow(tenant.organizationId), uuid: wf }]);
      for (const record of moved) await ingest(ctx.db, [record]);
      answers.push((await groups(tenant.key, WINDOW)).data.map(({ fingerprint: _f, ...group }) => group));
    }
    assert.deepEqual(answers[1], answers[0]);
    assert.deepEqual(answers[2], answers[0]);
    assert.deepEqual(
      answers[0]!.map((g) => [g.occurrences, g.firstSeenAt, g.lastSeenAt, g.sampleMessage]),
      [[5, timeText(T0 + 10 * MINUTE), timeText(T0 + 20 * MINUTE), 'fee 4 too low']],
    );
  });

  it('orders groups by occurrences, then fingerprint, and pages them with the total in count', async () => {
    const t = await createTenant(ctx.db);
    const [wf] = await twoWorkflows(t);
    const sizes = [5, 3, 3, 3, 2, 1, 1];
    const messages = sizes.map(() => `failure in ${word()} step`);
    await ingest(
      ctx.db,
      sizes.map((count, i) => failed(t, wf, T0 + i * MINUTE, [{ error: messages[i]!, count }])),
    );
    const expected = sizes
      .map((count, i) => ({ count, fingerprint: fingerprint(messages[i]!) }))
      .sort((a, b) => b.count - a.count || (a.fingerprint < b.fingerprint ? -1 : 1))
      .map((g) => g.fingerprint);
    const seen: string[] = [];
    for (let number = 0; number < 5; number++) {
      const page = await groups(t.key, { ...WINDOW, page: { number, size: 2 } });
      assert.equal(page.count, sizes.length, `count on page ${number}`);
      assert.equal(page.data.length, Math.max(0, Math.min(2, sizes.length - number * 2)));
      seen.push(...page.data.map((g) => g.fingerprint));
    }
    assert.deepEqual(seen, expected);
    // The default page is the first ten.
    assert.deepEqual(
      (await groups(t.key, WINDOW)).data.map((g) => g.fingerprint),
      expected,
    );
    assertFieldError(
      await ctx.server.gql(t.key, GROUPS, { input: { ...WINDOW, page: { size: 101 } } }),
      'BAD_USER_INPUT',
      'page.size must be at most 100',
    );
  });

  it("answers activity in exactly workflowActivity's buckets, each counting its whole bucket", async () => {
    const t = await createTenant(ctx.db);
    const [wf] = await twoWorkflows(t);
    // Failed executions with one occurrence each: per bucket, occurrences equal workflowActivity's failures.
    const starts = [
      T0 - 200 * DAY,
      T0 - 30 * DAY,
      T0 - 3 * HOUR,
      T0 + MINUTE,
      T0 + 3 * MINUTE,
      T0 + 62 * MINUTE,
      T0 + 99 * MINUTE + 59 * SECOND,
      T0 + 2 * DAY,
      T0 + 19 * DAY,
    ];
    await ingest(
      ctx.db,
      starts.map((start, i) => failed(t, wf, start, [{ error: `worker ${i} crashed`, count: 1 }])),
    );
    const windows = [
      { from: T0 + 2 * MINUTE + 17 * SECOND, to: T0 + 100 * MINUTE },
      { from: T0 - HOUR, to: T0 + 20 * HOUR },
      { from: T0 - 10 * DAY, to: T0 + 20 * DAY },
      { from: T0 - 220 * DAY, to: T0 + 10 * DAY },
    ];
    for (const window of windows) {
      const input = { from: iso(window.from), to: iso(window.to) };
      const [group] = (await groups(t.key, input)).data;
      const activity = dataOf(await ctx.server.gql(t.key, ACTIVITY, { input })).workflowActivity.data;
      assert.ok(group, `a group in ${input.from}..${input.to}`);
      assert.deepEqual(
        group.activity,
        activity.map((row: { from: string; to: string; failureCount: number }) => ({
          from: row.from,
          to: row.to,
          occurrences: row.failureCount,
        })),
        `${input.from}..${input.to}`,
      );
      // The bucket holding T0 + 1 minute counts it although the window starts after it.
      const inWindow = starts.filter((s) => s >= window.from && s <= window.to).length;
      assert.equal(group.occurrences, inWindow);
      const inBuckets = group.activity.reduce((sum, bucket) => sum + bucket.occurrences, 0);
      assert.equal(
        inBuckets,
        starts.filter(
          (s) => s >= Date.parse(group.activity[0]!.from) && s < Date.parse(group.activity.at(-1)!.to),
        ).length,
      );
    }
    // The first 5-minute bucket counts the execution started before the window, at T0 + 1 minute.
    const first = (await groups(t.key, { from: iso(windows[0]!.from), to: iso(windows[0]!.to) })).data[0]!;
    assert.deepEqual([first.occurrences, first.activity[0]!.occurrences], [3, 2]);
  });

  it('counts exactly the executions started within a window whose edges are not on 5-minute boundaries', async () => {
    const t = await createTenant(ctx.db);
    const [wf1, wf2] = await twoWorkflows(t);
    const from = T0 + 2 * MINUTE + 17 * SECOND + 250;
    const to = T0 + 3 * HOUR + 48 * MINUTE + 41 * SECOND + 500;
    // Each execution weighs a distinct power of two, so a sum names exactly the executions counted.
    // Each edge's bucket holds executions on both sides of the window's bound, more inside.
    const starts = [
      from - 50 * SECOND,
      from - 1,
      from,
      from + 40 * SECOND,
      from + 100 * SECOND,
      T0 + 20 * MINUTE,
      T0 + 90 * MINUTE,
      to - 100 * SECOND,
      to - 20 * SECOND,
      to,
      to + 1,
      to + 50 * SECOND,
    ];
    const inside = (start: number) => start >= from && start <= to;
    const records = starts.flatMap((start, i) => {
      const run = failed(t, i % 2 ? wf2 : wf1, start, [{ error: `edge own ${i}`, count: 2 ** i }]);
      // Its capability call starts 3 minutes later, across the window's edge for some: it counts at the execution's start.
      return [
        run,
        call(t, run.uuid as string, 'edge@1', start + 3 * MINUTE, [
          { error: `edge call ${i}`, count: 2 ** i },
        ]),
      ];
    });
    await ingest(ctx.db, records);
    const expect = (filter: (i: number) => boolean) => {
      const counted = [...starts.keys()].filter((i) => inside(starts[i]!) && filter(i));
      return { occurrences: counted.reduce((sum, i) => sum + 2 ** i, 0), executionCount: counted.length };
    };
    const input = { from: iso(from), to: iso(to) };
    const own = 'edge own 0';
    const callLevel = 'edge call 0';
    const figures = (g: Group | undefined) =>
      g && { occurrences: g.occurrences, executionCount: g.executionCount };
    assert.deepEqual(
      figures(await groupOf(t.key, input, own)),
      expect(() => true),
    );
    assert.deepEqual(
      figures(await groupOf(t.key, input, callLevel)),
      expect(() => true),
    );
    assert.deepEqual(
      figures(await groupOf(t.key, { ...input, capabilityID: 'edge@1' }, callLevel)),
      expect(() => true),
    );
    assert.equal(await groupOf(t.key, { ...input, capabilityID: 'edge@1' }, own), undefined);
    for (const [n, uuid] of [wf1, wf2].entries()) {
      assert.deepEqual(
        figures(await groupOf(t.key, { ...input, workflowUUID: uuid }, own)),
        expect((i) => i % 2 === n),
      );
      assert.deepEqual(
        figures(await groupOf(t.key, { ...input, workflowUUID: uuid, capabilityID: 'edge@1' }, callLevel)),
        expect((i) => i % 2 === n),
      );
    }
    // workflowExecutions counts a group's executions in the window the same way, and lists them.
    const listed = async (extra: Record<string, unknown>) =>
      (
        await executions(t.key, {
          errorFingerprint: fingerprint(own),
          ...input,
          ...extra,
          page: { size: 100 },
        })
      ).count;
    assert.equal(await listed({}), expect(() => true).executionCount);
    for (const [n, uuid] of [wf1, wf2].entries()) {
      assert.equal(await listed({ workflowUuid: uuid }), expect((i) => i % 2 === n).executionCount);
    }
    // A window shorter than five minutes is all edge.
    const short = { from: iso(to - 30 * SECOND), to: iso(to) };
    assert.deepEqual(figures(await groupOf(t.key, short, own)), {
      // to - 20 s and to.
      occurrences: 2 ** 8 + 2 ** 9,
      executionCount: 2,
    });
  });

  it('follows an execution whose errors change, that loses them, moves in time or to another workflow', async () => {
    const t = await createTenant(ctx.db);
    const [wf1, wf2] = await twoWorkflows(t);
    const window = { from: iso(T0), to: iso(T0 + 2 * HOUR) };
    const later = { from: iso(T0 + 2 * HOUR), to: iso(T0 + 4 * HOUR) };
    const quota = 'quota 1 exceeded';
    const uuid = randomUUID();
    const state = (fields: Record<string, unknown>) =>
      execution(t.organizationId, wf1, { uuid, startedAt: iso(T0 + 10 * MINUTE), ...fields });
    const figures = async (input: Record<string, unknown>) => {
      const g = await groupOf(t.key, input, quota);
      return (
        g && [g.occurrences, g.executionCount, g.workflowCount, g.capabilityIDs, g.firstSeenAt, g.lastSeenAt]
      );
    };

    await ingest(ctx.db, [state({ status: 'TRIGGERED' })]);
    assert.equal((await groups(t.key, window)).count, 0);

    // It fails with errors of its own and a call's; sent again, nothing changes.
    const failure = state({ status: 'FAILURE', errors: [{ error: 'quota 7 exceeded', count: 2 }] });
    const quotaCall = call(t, uuid, 'cap-q@1', T0 + 11 * MINUTE, [{ error: 'quota 8 exceeded', count: 1 }]);
    for (let send = 0; send < 2; send++) {
      await ingest(ctx.db, [failure, quotaCall]);
      assert.deepEqual(await figures(window), [
        3,
        1,
        1,
        ['cap-q@1'],
        timeText(T0 + 10 * MINUTE),
        timeText(T0 + 10 * MINUTE),
      ]);
    }
    assert.deepEqual((await executions(t.key, { errorFingerprint: fingerprint(quota) })).uuids, [uuid]);

    // A corrected count replaces the old one.
    await ingest(ctx.db, [state({ status: 'FAILURE', errors: [{ error: 'quota 9 exceeded', count: 5 }] })]);
    assert.deepEqual((await figures(window))?.slice(0, 2), [6, 1]);
    // A terminal status that changes keeps the errors it carries.
    await ingest(ctx.db, [state({ status: 'SUCCESS', errors: [{ error: 'quota 9 exceeded', count: 5 }] })]);
    assert.deepEqual((await figures(window))?.slice(0, 2), [6, 1]);

    // Its own errors are gone: the call's remain.
    await ingest(ctx.db, [state({ status: 'FAILURE' })]);
    assert.deepEqual(await figures(window), [
      1,
      1,
      1,
      ['cap-q@1'],
      timeText(T0 + 10 * MINUTE),
      timeText(T0 + 10 * MINUTE),
    ]);
    assert.deepEqual(await figures({ ...window, capabilityID: 'cap-q@1' }), [
      1,
      1,
      1,
      ['cap-q@1'],
      timeText(T0 + 10 * MINUTE),
      timeText(T0 + 10 * MINUTE),
    ]);

    // It moves out of the window: its errors, the call's included, go with it.
    await ingest(ctx.db, [state({ status: 'FAILURE', startedAt: iso(T0 + 3 * HOUR) })]);
    assert.equal((await groups(t.key, window)).count, 0);
    // Its sightings move too: it is the group's only execution.
    assert.deepEqual(await figures(later), [
      1,
      1,
      1,
      ['cap-q@1'],
      timeText(T0 + 3 * HOUR),
      timeText(T0 + 3 * HOUR),
    ]);
    // Its listing under the group moves with it (the group's rows carry its start).
    const listed = async (input: Record<string, unknown>) =>
      (await executions(t.key, { errorFingerprint: fingerprint(quota), ...input })).uuids;
    assert.deepEqual(await listed(window), []);
    assert.deepEqual(await listed(later), [uuid]);

    // It moves to another workflow.
    await ingest(ctx.db, [
      execution(t.organizationId, wf2, { uuid, status: 'FAILURE', startedAt: iso(T0 + 3 * HOUR) }),
    ]);
    assert.equal((await groups(t.key, { ...later, workflowUUID: wf1 })).count, 0);
    assert.deepEqual((await figures({ ...later, workflowUUID: wf2 }))?.slice(0, 3), [1, 1, 1]);
    assert.deepEqual((await figures(later))?.slice(0, 3), [1, 1, 1]);
    assert.deepEqual(await listed({ ...later, workflowUuid: wf2 }), [uuid]);
    assert.deepEqual(await listed({ ...later, workflowUuid: wf1 }), []);

    // An execution with errors of its own only, which it then loses: the group has nothing left.
    const alone = failed(t, wf1, T0 + 20 * MINUTE, [{ error: 'lonely 1 error', count: 1 }]);
    await ingest(ctx.db, [alone]);
    assert.equal((await groups(t.key, window)).count, 1);
    await ingest(ctx.db, [{ ...alone, errors: [] }]);
    assert.deepEqual(await groups(t.key, window), { count: 0, data: [] });
    assert.equal((await executions(t.key, { errorFingerprint: fingerprint('lonely 1 error') })).count, 0);
  });

  it('counts errors that arrive before their execution, and executions that arrive before their workflow, once their parent arrives', async () => {
    const t = await createTenant(ctx.db);
    const [wf] = await twoWorkflows(t);
    const window = { from: iso(T0), to: iso(T0 + HOUR) };
    const early = 'oracle 1 stale';

    // Calls with errors first: nothing to count yet.
    const run = failed(t, wf, T0 + 15 * MINUTE);
    await ingest(ctx.db, [
      call(t, run.uuid as string, 'oracle@1', T0 + DAY, [{ error: 'oracle 5 stale', count: 2 }]),
      call(t, run.uuid as string, 'oracle@2', T0 + DAY + SECOND, [{ error: 'oracle 6 stale', count: 1 }]),
    ]);
    assert.equal((await groups(t.key, window)).count, 0);
    assert.equal((await executions(t.key, { errorFingerprint: fingerprint(early) })).count, 0);
    // The execution arrives: the calls' errors count at its start, though the calls started a day later.
    await ingest(ctx.db, [run]);
    const group = await groupOf(t.key, window, early);
    assert.deepEqual(
      group && [group.occurrences, group.executionCount, group.capabilityIDs, group.firstSeenAt],
      [3, 1, ['oracle@1', 'oracle@2'], timeText(T0 + 15 * MINUTE)],
    );
    assert.deepEqual((await executions(t.key, { errorFingerprint: fingerprint(early) })).uuids, [run.uuid]);

    // An execution of a workflow not stored yet is invisible, whatever level its errors are at.
    const lateWorkflow = workflow(t.organizationId, { name: 'late' });
    const orphan = failed(t, lateWorkflow.uuid as string, T0 + 30 * MINUTE, [
      { error: 'late 1 error', count: 1 },
    ]);
    await ingest(ctx.db, [
      orphan,
      call(t, orphan.uuid as string, 'oracle@1', T0 + 31 * MINUTE, [{ error: 'late 2 error', count: 4 }]),
    ]);
    assert.equal(await groupOf(t.key, window, 'late 1 error'), undefined);
    assert.equal((await groups(t.key, { ...window, workflowUUID: lateWorkflow.uuid })).count, 0);
    assert.equal((await executions(t.key, { errorFingerprint: fingerprint('late 1 error') })).count, 0);
    await ingest(ctx.db, [lateWorkflow]);
    const late = await groupOf(t.key, window, 'late 1 error');
    assert.deepEqual(
      late && [late.occurrences, late.executionCount, late.workflowCount, late.capabilityIDs],
      [5, 1, 1, ['oracle@1']],
    );
    assert.equal((await groups(t.key, { ...window, workflowUUID: lateWorkflow.uuid })).count, 1);
    assert.deepEqual((await executions(t.key, { errorFingerprint: fingerprint('late 1 error') })).uuids, [
      orphan.uuid,
    ]);
  });

  it('lists the executions of a group with errorFingerprint, at execution or capability level, with every other filter', async () => {
    const t = await createTenant(ctx.db);
    const [wf1, wf2] = await twoWorkflows(t);
    const g1 = 'slippage 1% too high';
    const g2 = 'pool 0xabc drained';
    const a = failed(t, wf1, T0 + 10 * MINUTE, [{ error: 'slippage 3% too high', count: 1 }]);
    const b = execution(t.organizationId, wf1, { status: 'SUCCESS', startedAt: iso(T0 + 20 * MINUTE) });
    const c = failed(t, wf1, T0 + 30 * MINUTE, [{ error: 'pool 0xdef drained', count: 1 }]);
    const d = execution(t.organizationId, wf1, { status: 'SUCCESS', startedAt: iso(T0 + 40 * MINUTE) });
    const e = failed(t, wf2, T0 + 50 * MINUTE, [{ error: 'slippage 4% too high', count: 1 }]);
    await ingest(ctx.db, [
      a,
      b,
      c,
      d,
      e,
      call(t, b.uuid as string, 'dex@1', T0 + 21 * MINUTE, [{ error: 'slippage 5% too high', count: 2 }]),
      call(t, e.uuid as string, 'dex@1', T0 + 51 * MINUTE, [{ error: 'slippage 6% too high', count: 1 }]),
      call(t, d.uuid as string, 'dex@1', T0 + 41 * MINUTE, [{ error: 'something else', count: 1 }]),
    ]);
    const [A, B, C, E] = [a, b, c, e].map((r) => r.uuid as string);
    const f1 = fingerprint(g1);
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ errorFingerprint: f1 }, [E!, B!, A!]],
      [{ errorFingerprint: f1, status: ['FAILURE'] }, [E!, A!]],
      [{ errorFingerprint: f1, status: ['SUCCESS', 'IN_PROGRESS'] }, [B!]],
      [{ errorFingerprint: f1, from: iso(T0 + 15 * MINUTE) }, [E!, B!]],
      [{ errorFingerprint: f1, from: iso(T0 + 15 * MINUTE), to: iso(T0 + 45 * MINUTE) }, [B!]],
      [{ errorFingerprint: f1, to: iso(T0 + 10 * MINUTE) }, [A!]],
      [{ errorFingerprint: f1, workflowUuid: wf1 }, [B!, A!]],
      [{ errorFingerprint: f1, orderBy: { field: 'STARTED_AT', order: 'ASC' } }, [A!, B!, E!]],
      [{ errorFingerprint: f1, orderBy: { field: 'STATUS', order: 'ASC' } }, [...[A!, E!].sort(), B!]],
      [{ errorFingerprint: fingerprint(g2) }, [C!]],
      [{ errorFingerprint: 'ffffffffffffffff' }, []],
      [{ errorFingerprint: f1, search: 'no such text' }, []],
    ];
    for (const [input, uuids] of cases) {
      assert.deepEqual(await executions(t.key, input), { count: uuids.length, uuids }, JSON.stringify(input));
    }
    assert.deepEqual(await executions(t.key, { errorFingerprint: f1, page: { number: 1, size: 2 } }), {
      count: 3,
      uuids: [A],
    });
  });

  it("never shows another organization's groups, occurrences, sightings or executions", async () => {
    const a = await createTenant(ctx.db, 'Acme');
    const b = await createTenant(ctx.db, 'Beta');
    const [aWf] = await twoWorkflows(a);
    const [bWf] = await twoWorkflows(b);
    const message = (n: number) => `shared failure ${n}`;
    const aRun = failed(a, aWf, T0 + 10 * MINUTE, [{ error: message(1), count: 1 }]);
    await ingest(ctx.db, [
      aRun,
      call(a, aRun.uuid as string, 'cap@1', T0, [{ error: message(2), count: 1 }]),
    ]);
    const before = await groups(a.key, WINDOW);
    // The same messages in B, more often, earlier and later, at the same capability.
    const bRuns = [T0 - DAY, T0 + 11 * MINUTE, T0 + 2 * DAY].map((start, n) =>
      failed(b, bWf, start, [{ error: message(10 + n), count: 5 }]),
    );
    await ingest(ctx.db, [
      ...bRuns,
      ...bRuns.map((run) => call(b, run.uuid as string, 'cap@1', T0, [{ error: message(20), count: 5 }])),
    ]);
    assert.deepEqual(await groups(a.key, WINDOW), before);
    assert.deepEqual(
      before.data.map((g) => [g.occurrences, g.executionCount, g.sampleMessage]),
      [[2, 1, message(1)]],
    );
    const atCapability = await groups(a.key, { ...WINDOW, capabilityID: 'cap@1' });
    assert.deepEqual(
      atCapability.data.map((g) => [g.occurrences, g.executionCount, g.firstSeenAt, g.lastSeenAt]),
      [[1, 1, timeText(T0 + 10 * MINUTE), timeText(T0 + 10 * MINUTE)]],
    );
    assert.deepEqual(await groups(a.key, { ...WINDOW, workflowUUID: bWf }), { count: 0, data: [] });
    assert.deepEqual((await executions(a.key, { errorFingerprint: fingerprint(message(0)) })).uuids, [
      aRun.uuid,
    ]);
    assert.deepEqual(
      (await groups(b.key, WINDOW)).data.map((g) => g.occurrences),
      [10],
    );
  });

  it('covers the 24 hours before now, in hourly activity buckets, when the window is not given', async () => {
    const t = await createTenant(ctx.db);
    const [wf] = await twoWorkflows(t);
    const now = Date.now();
    await ingest(ctx.db, [
      failed(t, wf, now - 25 * HOUR, [{ error: 'stale 1', count: 1 }]),
      failed(t, wf, now - 23 * HOUR, [{ error: 'stale 2', count: 2 }]),
      failed(t, wf, now - MINUTE, [{ error: 'stale 3', count: 4 }]),
    ]);
    const [group] = (await groups(t.key, {})).data;
    const after = Date.now();
    assert.equal(group?.occurrences, 6);
    assert.equal(group.activity.length, 25);
    const firstBucket = (ms: number) => Math.floor((ms - DAY) / HOUR) * HOUR;
    assert.ok([firstBucket(now), firstBucket(after)].includes(Date.parse(group.activity[0]!.from)));
  });

  it('refuses a window whose from is later than its to, or that needs more than 1,000 activity buckets', async () => {
    const t = await createTenant(ctx.db);
    assertFieldError(
      await ctx.server.gql(t.key, GROUPS, { input: { from: iso(T0 + 1), to: iso(T0) } }),
      'BAD_USER_INPUT',
      'from must not be later than to',
    );
    assertFieldError(
      await ctx.server.gql(t.key, GROUPS, {
        input: { from: '2000-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' },
      }),
      'BAD_USER_INPUT',
      /at most 1000 buckets/,
    );
  });
});
