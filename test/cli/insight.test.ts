// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stripVTControlCharacters } from 'node:util';
import { formatDuration, formatInstant } from '../../src/cli/time-input.js';
import { runCli } from '../harness/cli.js';
import { createTenant, event, execution, ingest, log, type Tenant, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { assertWithin, iso, MINUTE, nearestRank, SECOND } from '../insight/reference.js';

type Raw = Record<string, unknown>;

const T0 = Date.parse('2026-03-01T00:00:00Z');
/** Six hours: the API answers 1-hour buckets, so trends are six characters. */
const WINDOW = ['--since', '2026-03-01', '--until', '2026-03-01T05:59:59Z'];
const FROM = '2026-03-01T00:00:00.000Z';
const TO = '2026-03-01T05:59:59.000Z';
const PEER = '12D3KooWQmxyz8aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaUCi';

interface Run {
  readonly name: string;
  readonly workflow: 'alpha-feed' | 'beta-sync';
  /** Minutes after T0. */
  readonly start: number;
  readonly durationMs: number;
  readonly status: 'SUCCESS' | 'FAILURE';
  readonly errors?: Array<{ error: string; count: number }>;
  /** The http-fetch call's status and errors (every run calls cron-trigger, then http-fetch). */
  readonly fetch?: { status: string; errors: Array<{ error: string; count: number }> };
  /** A chain-write call that ends FAILED without an error. */
  readonly chainWriteFailed?: boolean;
}

/** The window's runs; the index errors are one group, the upstream ones another. */
const RUNS: readonly Run[] = [
  {
    name: 'a1',
    workflow: 'alpha-feed',
    start: 10,
    durationMs: 120,
    status: 'FAILURE',
    errors: [{ error: 'index out of range [7] with length 7', count: 2 }],
  },
  {
    name: 'a2',
    workflow: 'alpha-feed',
    start: 70,
    durationMs: 250,
    status: 'FAILURE',
    errors: [{ error: 'index out of range [12] with length 12', count: 1 }],
  },
  { name: 'a5', workflow: 'alpha-feed', start: 150, durationMs: 1500, status: 'SUCCESS' },
  {
    name: 'a3',
    workflow: 'alpha-feed',
    start: 190,
    durationMs: 400,
    status: 'FAILURE',
    errors: [{ error: 'index out of range [3] with length 3', count: 3 }],
    fetch: { status: 'FAILURE', errors: [{ error: 'upstream 502 from 10.0.0.7', count: 2 }] },
  },
  {
    name: 'b1',
    workflow: 'beta-sync',
    start: 200,
    durationMs: 90,
    status: 'FAILURE',
    errors: [{ error: 'rpc "eth_call" timed out after 30s', count: 1 }],
  },
  { name: 'a6', workflow: 'alpha-feed', start: 270, durationMs: 3000, status: 'SUCCESS' },
  {
    name: 'b2',
    workflow: 'beta-sync',
    start: 280,
    durationMs: 95,
    status: 'SUCCESS',
    chainWriteFailed: true,
  },
  {
    name: 'a4',
    workflow: 'alpha-feed',
    start: 310,
    durationMs: 800,
    status: 'SUCCESS',
    fetch: { status: 'FAILURE', errors: [{ error: 'upstream 503 from 10.0.0.9', count: 1 }] },
  },
];

/** The records of one organization: two workflows, the runs, their calls and logs, and older data. */
function organizationData(organizationId: string) {
  const workflows = {
    'alpha-feed': workflow(organizationId, { name: 'alpha-feed' }),
    'beta-sync': workflow(organizationId, { name: 'beta-sync' }),
  };
  const uuidOf = (name: string) => workflows[name as keyof typeof workflows].uuid as string;
  const runs = new Map<string, Raw>();
  const records: Raw[] = [...Object.values(workflows)];
  const events: Raw[] = [];
  for (const run of RUNS) {
    const started = T0 + run.start * MINUTE;
    const record = execution(organizationId, uuidOf(run.workflow), {
      status: run.status,
      startedAt: iso(started),
      finishedAt: iso(started + run.durationMs),
      ...(run.errors ? { errors: run.errors } : {}),
    });
    runs.set(run.name, record);
    records.push(record);
    const call = (capabilityID: string, offset: number, ms: number, fields: Raw = {}) =>
      event(organizationId, record.uuid as string, {
        capabilityID,
        status: 'COMPLETED',
        startedAt: iso(started + offset),
        finishedAt: iso(started + offset + ms),
        ...fields,
      });
    events.push(call('cron-trigger@1.0.0', 0, 5));
    events.push(
      call('http-fetch@2.1.0', 10, Math.round(run.durationMs / 2), run.fetch ? { ...run.fetch } : {}),
    );
    if (run.chainWriteFailed) events.push(call('chain-write@1.0.0', 60, 20, { status: 'FAILED' }));
  }
  // Before the window: the index group's first sighting, with a matching log line.
  const early = execution(organizationId, uuidOf('alpha-feed'), {
    status: 'FAILURE',
    startedAt: '2026-02-28T12:00:00Z',
    finishedAt: '2026-02-28T12:00:00.050Z',
    errors: [{ error: 'index out of range [1] with length 1', count: 1 }],
  });
  const a1 = runs.get('a1')!.uuid as string;
  const b1 = runs.get('b1')!.uuid as string;
  const line = (uuid: string, time: string, message: string, nodeID = 'node-a') =>
    log(organizationId, uuid, { timestamp: time, message, nodeID });
  const logs = [
    line(a1, '2026-03-01T00:10:00.100Z', 'Insufficient funds for gas * price + value'),
    line(a1, '2026-03-01T00:10:00.200Z', 'insufficient FUNDS for gas', 'node-b'),
    line(a1, '2026-03-01T00:10:00.300Z', 'ok: funds sufficient'),
    line(b1, '2026-03-01T03:20:00.500Z', 'transfer failed: insufficient funds (balance 0)', PEER),
    line(early.uuid as string, '2026-02-28T12:00:00.010Z', 'insufficient funds before the window'),
  ];
  return { records: [...records, early, ...events, ...logs], runs, workflows };
}

describe('the wfapi insight commands', () => {
  const ctx = useServer();
  let tenant: Tenant;
  let runs: Map<string, Raw>;
  const env = () => ({ WFAPI_URL: ctx.server.url, WFAPI_API_KEY: tenant.key });
  const cli = async (args: string[], extra: Record<string, string> = {}) => {
    const result = await runCli(args, { ...env(), ...extra });
    assert.equal(result.code, 0, result.stderr);
    return result.stdout;
  };
  const json = async (args: string[]) => JSON.parse(await cli([...args, '--json']));
  /** What the API answers the key for one root field. */
  const api = async (field: string, type: string, input: Raw, selection: string) => {
    const { body } = await ctx.server.gql(
      tenant.key,
      `query ($input: ${type}!) { ${field}(input: $input) { ${selection} } }`,
      { input },
    );
    assert.equal(body.errors, undefined, JSON.stringify(body.errors));
    return body.data[field];
  };
  /** Both organizations' data: another organization's identical errors, calls and lines never show. */
  const seed = async () => {
    const other = await createTenant(ctx.db, 'Other');
    tenant = await createTenant(ctx.db);
    const mine = organizationData(tenant.organizationId);
    runs = mine.runs;
    await ingest(ctx.db, [...organizationData(other.organizationId).records, ...mine.records]);
  };
  const uuid = (name: string) => runs.get(name)!.uuid as string;

  const GROUP_FIELDS = `count data { fingerprint pattern sampleMessage occurrences executionCount workflowCount
    capabilityIDs firstSeenAt lastSeenAt activity { from to occurrences } }`;

  it('lists error groups with a trend per group, counts, first and last seen and fingerprint, as the API answers them', async () => {
    await seed();
    const answer = await api(
      'errorGroups',
      'ErrorGroupsInput',
      { from: FROM, to: TO, page: { size: 20 } },
      GROUP_FIELDS,
    );
    const machine = await json(['errors', ...WINDOW]);
    assert.deepEqual(machine.groups, answer.data);
    assert.deepEqual(
      [machine.count, machine.from, machine.to, machine.workflow, machine.capabilityID],
      [3, FROM, TO, null, null],
    );

    const out = await cli(['errors', ...WINDOW]);
    const lines = out.trimEnd().split('\n');
    assert.match(lines[0]!, /^all workflows {2}2026-03-01 00:00:00Z to 2026-03-01 05:59:59Z$/);
    assert.match(lines[1]!, /^TREND +OCCURRENCES +EXECUTIONS +FIRST SEEN +LAST SEEN +FINGERPRINT +PATTERN$/);
    const rows = lines.slice(2, 5).map((line) => line.split(/ {2,}/));
    // Occurrences per hour: index errors 2, 1, -, 3; upstream 2 at 03:10 and 1 at 05:10; rpc 1 at 03:20.
    const expected = [
      ['▆▃·█··', '6', '3', 'index out of range [<num>] with length <num>'],
      ['···█·▄', '3', '2', 'upstream <num> from <num>'],
      ['···█··', '1', '1', 'rpc <str> timed out after <num>s'],
    ];
    rows.forEach((row, i) => {
      const group = answer.data[i];
      assert.deepEqual(row, [
        expected[i]![0],
        String(group.occurrences),
        String(group.executionCount),
        formatInstant(group.firstSeenAt),
        formatInstant(group.lastSeenAt),
        group.fingerprint,
        group.pattern,
      ]);
      assert.deepEqual([row[1], row[2], row[6]], expected[i]!.slice(1));
    });
    assert.equal(rows[0]![3], '2026-02-28 12:00:00Z', 'first seen is over all time, before the window');
    assert.equal(rows[0]![4], '2026-03-01 03:10:00Z');
    assert.equal(lines[5], '3 error groups');
    assert.match(lines[6]!, /^TREND: occurrences per 1h over the window, each row scaled to its own peak/);
  });

  it('narrows error groups to a workflow or a capability, keeps to --limit and fits the pattern to the width', async () => {
    await seed();
    const beta = await json(['errors', ...WINDOW, '--workflow', 'beta-sync']);
    assert.equal(beta.workflow.name, 'beta-sync');
    assert.deepEqual(
      beta.groups.map((g: { pattern: string }) => g.pattern),
      ['rpc <str> timed out after <num>s'],
    );
    const fetch = await json(['errors', ...WINDOW, '--capability', 'http-fetch@2.1.0']);
    assert.deepEqual(
      fetch.groups.map((g: { occurrences: number; executionCount: number }) => [
        g.occurrences,
        g.executionCount,
      ]),
      [[3, 2]],
    );
    assert.equal(fetch.capabilityID, 'http-fetch@2.1.0');
    const narrow = await cli(['errors', ...WINDOW, '--limit', '1'], { COLUMNS: '120' });
    assert.match(narrow, /\nshowing 1 of 3 error groups \(raise --limit to see more\)\n/);
    const body = narrow.split('\n').slice(1, 3);
    for (const line of body) assert.ok([...line].length <= 120, `fits 120 columns: ${line}`);
    assert.match(body[1]!, / {2}index out of range \[\S*…$/, 'the pattern is cut to fit');
    const none = await cli(['errors', '--since', '2025-01-01', '--until', '2025-01-02']);
    assert.match(none, /\nno errors in this window\n$/);
  });

  it('shows each error of an execution with its fingerprint, the one errors lists and executions --fingerprint finds', async () => {
    await seed();
    const groups = await api(
      'errorGroups',
      'ErrorGroupsInput',
      { from: FROM, to: TO },
      'data { fingerprint pattern }',
    );
    const fingerprintOf = (pattern: string) =>
      groups.data.find((g: { pattern: string }) => g.pattern === pattern).fingerprint as string;
    const index = fingerprintOf('index out of range [<num>] with length <num>');
    const upstream = fingerprintOf('upstream <num> from <num>');
    const out = await cli(['execution', uuid('a3')]);
    const errors = out
      .slice(out.indexOf('\nErrors\n') + 8, out.indexOf('\n\nCapability timeline'))
      .split('\n');
    assert.deepEqual(errors.slice(0, 2), [
      `  ✗ ${index}  index out of range [3] with length 3 (reported by 3 nodes)`,
      `  ✗ ${upstream}  http-fetch@2.1.0: upstream 502 from 10.0.0.7 (reported by 2 nodes)`,
    ]);
    const machine = await json(['execution', uuid('a3')]);
    assert.deepEqual(
      machine.errors.map((e: { fingerprint: string; capabilityID?: string }) => [
        e.fingerprint,
        e.capabilityID ?? null,
      ]),
      [
        [index, null],
        [upstream, 'http-fetch@2.1.0'],
      ],
    );
    const listed = await json(['executions', '--fingerprint', upstream]);
    assert.deepEqual(
      listed.map((e: { uuid: string }) => e.uuid),
      [uuid('a4'), uuid('a3')],
    );
  });

  it('prints the duration percentiles, exact min, max and mean and the histogram the API answers', async () => {
    await seed();
    const fields =
      'data { count minMs maxMs meanMs p50Ms p90Ms p95Ms p99Ms histogram { fromMs toMs count } }';
    const answer = (await api('durationStats', 'DurationStatsInput', { from: FROM, to: TO }, fields)).data;
    const machine = await json(['durations', ...WINDOW]);
    assert.deepEqual(machine.stats, answer);
    const exact = RUNS.map((run) => run.durationMs);
    assert.deepEqual([answer.count, answer.minMs, answer.maxMs], [8, 90, 3000]);
    for (const p of [50, 90, 95, 99]) assertWithin(answer[`p${p}Ms`], nearestRank(exact, p), 0.02, `p${p}`);

    const out = await cli(['durations', ...WINDOW]);
    const lines = out.trimEnd().split('\n');
    assert.match(lines[0]!, /^all workflows {2}durations of executions {2}2026-03-01 00:00:00Z to/);
    assert.match(lines[1]!, /^FINISHED +MIN +P50 +P90 +P95 +P99 +MAX +MEAN$/);
    const ms = (value: number) => formatDuration(value);
    assert.deepEqual(lines[2]!.trim().split(/\s+/), [
      '8',
      '90ms',
      ms(answer.p50Ms),
      ms(answer.p90Ms),
      ms(answer.p95Ms),
      ms(answer.p99Ms),
      '3s',
      ms(781.875),
    ]);
    const bars = lines.slice(4).filter((line) => line.includes('–'));
    assert.equal(bars.length, answer.histogram.length);
    bars.forEach((line, i) => {
      const bucket = answer.histogram[i];
      const [range, count] = [
        line.slice(0, line.indexOf('  ', line.indexOf('–'))).trim(),
        line.split(/\s+/).at(-2),
      ];
      assert.equal(range, `${ms(bucket.fromMs)} – ${ms(bucket.toMs)}`);
      assert.equal(count, String(bucket.count));
      assert.match(line, /█+/);
    });
    assert.ok(
      lines.some((line) => line.trim() === '⋮'),
      'an empty stretch between buckets is marked',
    );
  });

  it("prints one capability's call durations and filters by status, and refuses an unknown status with exit 2", async () => {
    await seed();
    const fields = 'data { count minMs maxMs histogram { count } }';
    const input = { from: FROM, to: TO, capabilityID: 'http-fetch@2.1.0', status: ['FAILURE'] };
    const answer = (await api('durationStats', 'DurationStatsInput', input, fields)).data;
    const machine = await json([
      'durations',
      ...WINDOW,
      '--capability',
      'http-fetch@2.1.0',
      '--status',
      'failure',
    ]);
    assert.deepEqual([machine.stats.count, machine.stats.minMs, machine.stats.maxMs], [2, 200, 400]);
    assert.deepEqual([answer.count, answer.minMs, answer.maxMs], [2, 200, 400]);
    const out = await cli(['durations', ...WINDOW, '--workflow', 'beta-sync', '--status', 'SUCCESS']);
    assert.match(out, /^beta-sync \S+ {2}durations of executions status SUCCESS {2}/);
    assert.match(out.split('\n')[2]!, /^ +1 +95ms +95ms/);
    const wrong = await runCli(['durations', '--status', 'RUNNING'], env());
    assert.equal(wrong.code, 2);
    assert.match(
      wrong.stderr,
      /Expected one or more of UNKNOWN, UNSPECIFIED, TRIGGERED, IN_PROGRESS, SUCCESS, FAILURE/,
    );
    const empty = await cli(['durations', '--since', '2025-01-01', '--until', '2025-01-02']);
    assert.match(empty, /\nno finished executions started in this window\n$/);
  });

  it('tabulates capability health: calls, failures, failure rate and durations, most failures first', async () => {
    await seed();
    const fields = 'count data { capabilityID calls failures failureRate p50Ms p95Ms }';
    const answer = await api(
      'capabilityStats',
      'CapabilityStatsInput',
      { from: FROM, to: TO, page: { size: 100 } },
      fields,
    );
    const machine = await json(['capabilities', ...WINDOW]);
    assert.deepEqual(machine.capabilities, answer.data);
    const out = await cli(['capabilities', ...WINDOW]);
    const lines = out.trimEnd().split('\n');
    assert.match(lines[1]!, /^CAPABILITY +CALLS +FAILURES +FAILURE RATE +P50 +P95$/);
    const rows = lines.slice(2, 5).map((line) => line.trim().split(/\s+/));
    assert.deepEqual(
      rows.map((row) => row.slice(0, 4)),
      [
        ['http-fetch@2.1.0', '8', '2', '25.0%'],
        ['chain-write@1.0.0', '1', '1', '100.0%'],
        ['cron-trigger@1.0.0', '8', '0', '0.0%'],
      ],
    );
    rows.forEach((row, i) => {
      assert.deepEqual(row.slice(4), [
        formatDuration(answer.data[i].p50Ms),
        formatDuration(answer.data[i].p95Ms),
      ]);
    });
    assert.equal(lines[5], '3 capabilities');
    const beta = await json(['capabilities', ...WINDOW, '--workflow', 'beta-sync', '--limit', '1']);
    assert.deepEqual(
      [beta.count, beta.capabilities.length, beta.capabilities[0].capabilityID],
      [3, 1, 'chain-write@1.0.0'],
    );
  });

  it("finds a window's matching log lines newest first, and says how many matched", async () => {
    await seed();
    const fields =
      'count countIsExact data { workflowExecutionUUID workflowUUID workflowName nodeID timestamp message }';
    const answer = await api(
      'searchExecutionLogs',
      'SearchExecutionLogsInput',
      { query: 'insufficient funds', from: FROM, to: TO, page: { size: 50 } },
      fields,
    );
    const machine = await json(['logs', 'search', 'insufficient funds', ...WINDOW]);
    assert.deepEqual(machine.lines, answer.data);
    assert.deepEqual([machine.count, machine.countIsExact], [3, true]);
    const out = await cli(['logs', 'search', 'insufficient funds', ...WINDOW]);
    const lines = out.trimEnd().split('\n');
    assert.match(
      lines[0]!,
      /^all workflows {2}lines containing "insufficient funds" {2}2026-03-01 00:00:00Z to/,
    );
    assert.match(lines[1]!, /^TIME +WORKFLOW +EXECUTION +NODE +MESSAGE$/);
    assert.deepEqual(
      lines.slice(2, 5).map((line) => line.split(/ {2,}/)),
      [
        [
          '2026-03-01 03:20:00.500Z',
          'beta-sync',
          uuid('b1'),
          '12D3…aaaUCi',
          'transfer failed: insufficient funds (balance 0)',
        ],
        ['2026-03-01 00:10:00.200Z', 'alpha-feed', uuid('a1'), 'node-b', 'insufficient FUNDS for gas'],
        [
          '2026-03-01 00:10:00.100Z',
          'alpha-feed',
          uuid('a1'),
          'node-a',
          'Insufficient funds for gas * price + value',
        ],
      ],
    );
    assert.equal(lines[5], '3 matching lines, newest first');
    const one = await cli(['logs', 'search', 'FUNDS FOR', ...WINDOW, '--node', 'node-b']);
    assert.match(one, /\n1 matching line, newest first\n$/);
    const coloured = await cli(['logs', 'search', 'FUNDS', ...WINDOW, '--limit', '2'], { FORCE_COLOR: '1' });
    assert.ok(coloured.includes('\u001b[33mfunds\u001b[39m'), 'the matched text is highlighted');
    assert.match(
      stripVTControlCharacters(coloured),
      /\nshowing 2 of 4 matching lines, newest first \(raise --limit to see more\)\n$/,
    );
    const short = await runCli(['logs', 'search', 'ab'], env());
    assert.equal(short.code, 2);
    assert.match(short.stderr, /invalid request: .*at least 3 characters/);
  });

  it('pages through matches with the SDK paginator, and says that the count stops at 10,000', async () => {
    tenant = await createTenant(ctx.db);
    const wf = workflow(tenant.organizationId);
    const run = execution(tenant.organizationId, wf.uuid as string, { startedAt: iso(T0) });
    const lines = Array.from({ length: 10_001 }, (_, i) =>
      log(tenant.organizationId, run.uuid as string, {
        message: `needle ${i}`,
        timestamp: iso(T0 + i * SECOND),
      }),
    );
    await ingest(ctx.db, [wf, run]);
    for (let i = 0; i < lines.length; i += 4000) await ingest(ctx.db, lines.slice(i, i + 4000));
    const window = ['--since', iso(T0), '--until', iso(T0 + 10_000 * SECOND)];
    const pages = await json(['logs', 'search', 'needle', ...window, '--limit', '250']);
    assert.deepEqual([pages.count, pages.countIsExact], [10_000, false]);
    assert.deepEqual(
      pages.lines.map((l: { message: string }) => l.message),
      Array.from({ length: 250 }, (_, i) => `needle ${10_000 - i}`),
    );
    const text = await cli(['logs', 'search', 'needle', ...window, '--limit', '2']);
    assert.equal(
      text.trimEnd().split('\n').at(-1),
      'showing 2 of more than 10000 matching lines, newest first: the search counts and pages through the first 10000 only; narrow the window, the workflow or the text',
    );
  });

  it('exits 4 for an unknown workflow and 2 for a bad window or limit', async () => {
    await seed();
    for (const command of [['errors'], ['logs', 'search', 'funds']]) {
      const unknown = await runCli([...command, '--workflow', 'no-such-flow'], env());
      assert.equal(unknown.code, 4, command.join(' '));
      assert.match(unknown.stderr, /no workflow named "no-such-flow"/);
    }
    for (const command of [['durations'], ['capabilities']]) {
      const inverted = await runCli([...command, '--since', '1h', '--until', '2h'], env());
      assert.equal(inverted.code, 2, command.join(' '));
      assert.match(inverted.stderr, /invalid request: from must not be later than to/);
    }
    const zero = await runCli(['errors', '--limit', '0'], env());
    assert.equal(zero.code, 2);
    assert.match(zero.stderr, /Expected a whole number of at least 1/);
    const when = await runCli(['capabilities', '--since', 'yesterday'], env());
    assert.equal(when.code, 2);
    assert.match(when.stderr, /Expected a duration back from now/);
  });
});
