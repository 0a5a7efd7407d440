import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { detectAnomalies } from '../../src/modules/anomalies/anomalies.service.js';
import { baselineStarts } from '../../src/modules/anomalies/anomaly-detection.js';
import { rankGroups } from '../../src/modules/error-groups/error-groups.store.js';
import { insertObjective, listObjectives } from '../../src/modules/service-levels/objectives.store.js';
import { readObjectiveCounts } from '../../src/modules/service-levels/service-levels.store.js';
import { BinCounts } from '../../src/rollups/bin-counts.js';
import { durations, EXECUTION_LEVEL } from '../../src/rollups/durations.rollup.js';
import { readWindows } from '../../src/rollups/rollup-reader.store.js';
import { RollupVersions } from '../../src/rollups/rollup-versions.store.js';
import { KeptKind, keptPerWindow, WindowCache, withWindowCache } from '../../src/rollups/window-cache.js';
import { RAW } from '../../src/rollups/windows.js';
import { countingDatabase } from '../harness/counting-database.js';
import { openTestDatabase, type TestDatabase } from '../harness/database.js';
import { createTenant, deployment, execution, ingest, type Tenant, workflow } from '../harness/fixtures.js';
import { startServer, type TestServer } from '../harness/server.js';
import { find, METRICS_TOKEN, samples, scrape } from '../metrics/scrape.js';
import { DAY, HOUR, iso, MINUTE, SECOND } from './reference.js';

/** Noon three days ago: a day no other test of this file writes to. */
const DAY_START = Math.floor(Date.now() / DAY) * DAY - 3 * DAY;
/** A window over that day with raw edges (seconds off the minute) and hours of rollup rows between. */
const WINDOW = {
  from: DAY_START + 2 * HOUR + 17 * SECOND,
  to: DAY_START + 20 * HOUR + 3 * MINUTE + 30 * SECOND,
};

const QUERY = `query ($workflow: String, $from: Time, $to: Time) {
  durationStats(input: { workflowUUID: $workflow, from: $from, to: $to }) {
    data { count minMs maxMs p50Ms p95Ms histogram { fromMs toMs count } }
  }
  workflowActivity(input: { workflowUUID: $workflow, from: $from, to: $to }) {
    data { from to successCount failureCount }
  }
  anomalies(input: { workflowUUID: $workflow, from: $from, to: $to }) {
    data { metric workflowUUID from observed expected score }
    series { metric workflowUUID points { from observed expected lower upper anomalous } }
  }
}`;

/** The executions the anomalies' series of the scope observed over the window. */
const observedExecutions = (data: {
  anomalies: { series: Array<{ metric: string; points: Array<{ observed: number | null }> }> };
}) =>
  data.anomalies.series
    .find((series) => series.metric === 'EXECUTIONS')!
    .points.reduce((sum, point) => sum + (point.observed ?? 0), 0);

/** The servers' now: a fixed instant, so that windows ending now are the same for both. */
const NOW = Date.now();

/** Objectives of every kind of segment service levels read: success, a workflow's latency, the organization's. */
const OBJECTIVES = [
  { name: 'succeeds', indicator: 'SUCCESS', workflow: false, thresholdMs: null },
  { name: 'fast', indicator: 'LATENCY', workflow: true, thresholdMs: 2_000 },
  { name: 'fast everywhere', indicator: 'LATENCY', workflow: false, thresholdMs: 1_000 },
] as const;

const IMPACT = `query ($workflow: String!) { deploymentImpact(input: { workflowUUID: $workflow }) { count data {
  deployment { deployedAt } verdict before { executions failures p50Ms p95Ms } after { executions failures p50Ms p95Ms }
  failureRateChange failureRatePValue durationChange durationPValue newErrorGroups { fingerprint } } } }`;

const SERVICE_LEVELS = `{ serviceLevels(input: {}) { data {
  name total good attainment errorBudgetRemaining burnRates { window total bad rate } status } } }`;

describe('rollup answers a server keeps while their days are unchanged', () => {
  let database: TestDatabase;
  let cached: TestServer;
  let uncached: TestServer;
  let tenant: Tenant;
  let wf: string;

  before(async () => {
    database = await openTestDatabase();
    tenant = await createTenant(database.db);
    const flow = workflow(tenant.organizationId);
    wf = flow.uuid as string;
    await ingest(database.db, [flow, ...runs(tenant.organizationId, wf, DAY_START + 3 * HOUR, 40)]);
    for (const objective of OBJECTIVES)
      await insertObjective(database.db, {
        id: randomUUID(),
        organization_id: tenant.organizationId,
        workflow_uuid: objective.workflow ? wf : null,
        name: objective.name,
        indicator: objective.indicator,
        target: 0.9,
        threshold_ms: objective.thresholdMs,
        period_days: 7,
      });
    // One clock for both servers: service levels' windows end at its now.
    cached = await startServer(database.db, { metrics: { token: METRICS_TOKEN } }, { now: () => NOW });
    uncached = await startServer(database.db, { limits: { rollupCacheMb: 0 } }, { now: () => NOW });
  });
  after(async () => {
    await cached?.close();
    await uncached?.close();
    await database?.close();
  });

  /** `n` finished executions of `workflowUuid`, one a minute from `at`, every fifth a failure. */
  function runs(organizationId: string, workflowUuid: string, at: number, n: number) {
    return Array.from({ length: n }, (_, i) =>
      execution(organizationId, workflowUuid, {
        status: i % 5 === 4 ? 'FAILURE' : 'SUCCESS',
        startedAt: iso(at + i * MINUTE + 7 * SECOND),
        finishedAt: iso(at + i * MINUTE + 7 * SECOND + 100 * (i + 1)),
      }),
    );
  }

  /** The test's database, recording the text of every statement sent through `counting`. */
  const countingStatements = () => {
    const statements: string[] = [];
    /** The pieces each window read sent ($2, their keys), in order. */
    const pieces: number[] = [];
    const counting = {
      ...database.db,
      query: <Row>(text: string, params?: readonly unknown[]) => {
        statements.push(text);
        if (/with given as/.test(text)) pieces.push((params![1] as unknown[]).length);
        return database.db.query<Row>(text, params);
      },
    };
    return { statements, pieces, counting };
  };

  const ask = async (server: TestServer, scope: 'workflow' | 'organization') => {
    const response = await server.gql(tenant.key, QUERY, {
      workflow: scope === 'workflow' ? wf : null,
      from: iso(WINDOW.from),
      to: iso(WINDOW.to),
    });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    assert.equal(response.body.errors, undefined);
    return response.body.data;
  };

  const cacheReads = async () => {
    const all = samples((await scrape(cached.url)).text);
    const value = (result: string) => find(all, 'wfapi_rollup_cache_reads_total', { result })[0]?.value ?? 0;
    return { hits: value('hit'), misses: value('miss') };
  };

  it('answers a repeated read from what it kept, exactly as a server that keeps nothing', async () => {
    for (const scope of ['workflow', 'organization'] as const) {
      const first = await ask(cached, scope);
      const before = await cacheReads();
      const second = await ask(cached, scope);
      const between = await cacheReads();
      const third = await ask(cached, scope);
      const after = await cacheReads();
      // The second read finds every rollup piece kept; of the durations' two edges, which the
      // request named (from and to), the first read only remembered asking: they are read again
      // and kept. The third finds them too.
      assert.ok(between.hits > before.hits, `hits ${before.hits} -> ${between.hits}`);
      assert.equal(between.misses - before.misses, 2);
      assert.equal(after.misses, between.misses);
      assert.equal(after.hits - between.hits, between.hits - before.hits + 2);
      assert.deepEqual(second, first);
      assert.deepEqual(third, first);
      assert.deepEqual(third, await ask(uncached, scope));
      assert.equal(third.durationStats.data.count, 40);
      assert.equal(observedExecutions(third), 40);
    }
  });

  it('answers service levels from the segment counts it kept, exactly as a server that keeps nothing', async () => {
    const levels = async (server: TestServer) => {
      const response = await server.gql(tenant.key, SERVICE_LEVELS);
      assert.equal(response.body.errors, undefined, JSON.stringify(response.body.errors));
      return response.body.data.serviceLevels.data;
    };
    const first = await levels(cached);
    const before = await cacheReads();
    const second = await levels(cached);
    const after = await cacheReads();
    assert.ok(after.hits > before.hits, `hits ${before.hits} -> ${after.hits}`);
    assert.equal(after.misses, before.misses);
    assert.deepEqual(second, first);
    assert.deepEqual(second, await levels(uncached));
    // The 40 executions of three days ago, in the 7-day period of each objective.
    assert.deepEqual(
      second.map((level: { total: number }) => level.total),
      [40, 40, 40],
    );
    assert.ok(second.every((level: { good: number }) => level.good > 0 && level.good <= 40));
    // Stored by another writer in a kept day: counted at once.
    await ingest(database.db, runs(tenant.organizationId, wf, DAY_START + 15 * HOUR, 2));
    const later = await levels(cached);
    assert.deepEqual(
      later.map((level: { total: number }) => level.total),
      [42, 42, 42],
    );
    assert.deepEqual(later, await levels(uncached));
  });

  it('counts the raw edges of service levels from the minutes it kept: a later now reads only the minutes it reaches', async () => {
    const statements: Array<{ text: string; params: readonly unknown[] | undefined }> = [];
    const counting = {
      ...database.db,
      query: <Row>(text: string, params?: readonly unknown[]) => {
        statements.push({ text, params });
        return database.db.query<Row>(text, params);
      },
    };
    const cache = new WindowCache(4 * 1024 * 1024);
    const objectives = await listObjectives(database.db, tenant.organizationId, null);
    assert.equal(objectives.length, OBJECTIVES.length);
    const minute = Math.floor(NOW / MINUTE) * MINUTE;
    const read = (now: number) =>
      readObjectiveCounts(
        withWindowCache(counting as typeof database.db, cache),
        tenant.organizationId,
        objectives,
        now,
      );
    const uncached = (now: number) =>
      readObjectiveCounts(database.db, tenant.organizationId, objectives, now);
    /** The starts of the minutes read by the statements sent since the last call. */
    const minutesRead = () => {
      const starts = statements
        .filter(({ text }) => /as m\(key, lo, hi\)/.test(text))
        .flatMap(({ params }) => (params![2] as Date[]).map((start) => start.getTime()));
      statements.length = 0;
      return starts;
    };
    await read(minute + 20 * SECOND);
    const first = minutesRead();
    assert.ok(first.length >= 9, String(first.length));
    const moved = await read(minute + 27 * SECOND);
    // Within the same minute every edge lies in a minute kept: only the days' versions are read.
    assert.equal(statements.length, 1, statements.map(({ text }) => text).join('\n---\n'));
    assert.match(statements[0]!.text, /rollup_versions/);
    assert.deepEqual(moved, await uncached(minute + 27 * SECOND));
    // A minute on, the edges reach minutes not read before: those are read, in one statement, and
    // no edge is read from the executions otherwise.
    statements.length = 0;
    const next = await read(minute + MINUTE + 3 * SECOND);
    // The whole buckets the windows now end at are read as rollup rows, never a raw piece.
    const pieces = statements
      .filter(({ text }) => /with given as/.test(text))
      .flatMap(({ params }) => params![2] as number[]);
    assert.ok(pieces.length > 0 && !pieces.includes(RAW), String(pieces));
    const later = minutesRead();
    assert.ok(later.length > 0);
    assert.deepEqual(
      later.filter((start) => first.includes(start)),
      [],
    );
    assert.deepEqual(next, await uncached(minute + MINUTE + 3 * SECOND));
  });

  it('answers the very counts while no raw edge moved past an execution, and counts again once one did, as a read that keeps nothing', async () => {
    const own = await createTenant(database.db);
    const flow = workflow(own.organizationId);
    const minute = Math.floor(NOW / MINUTE) * MINUTE;
    // Two executions just after the 1h window's start at minute + 20 s, one a minute inside it.
    await ingest(database.db, [
      flow,
      ...[21, 23, 80].map((second) =>
        execution(own.organizationId, flow.uuid as string, {
          status: 'FAILURE',
          startedAt: iso(minute - HOUR + second * SECOND),
          finishedAt: iso(minute - HOUR + second * SECOND + 500),
        }),
      ),
    ]);
    await insertObjective(database.db, {
      id: randomUUID(),
      organization_id: own.organizationId,
      workflow_uuid: null,
      name: 'succeeds',
      indicator: 'SUCCESS',
      target: 0.9,
      threshold_ms: null,
      period_days: 7,
    });
    const objectives = await listObjectives(database.db, own.organizationId, null);
    const db = withWindowCache(database.db, new WindowCache(4 * 1024 * 1024));
    const at = (second: number) =>
      readObjectiveCounts(db, own.organizationId, objectives, minute + second * SECOND);
    const first = await at(20);
    assert.equal(await at(20.5), first);
    assert.deepEqual(first[0]!.windows[2], { total: 3, good: 0 });
    // Past both: the 1h window holds one, and the counts are those of a read that keeps nothing.
    const moved = await at(24);
    assert.deepEqual(moved[0]!.windows[2], { total: 1, good: 0 });
    assert.deepEqual(
      moved,
      await readObjectiveCounts(database.db, own.organizationId, objectives, minute + 24 * SECOND),
    );
  });

  it('answers deployment impact from the edges it kept at deployments, exactly as a server that keeps nothing', async () => {
    const deployments = [
      DAY_START + 3 * HOUR + 20 * MINUTE + 3 * SECOND,
      DAY_START + 16 * HOUR + 30 * SECOND,
    ];
    await ingest(
      database.db,
      deployments.map((at) => deployment(tenant.organizationId, wf, { deployedAt: iso(at) })),
    );
    const impact = async (server: TestServer) => {
      const response = await server.gql(tenant.key, IMPACT, { workflow: wf });
      assert.equal(response.body.errors, undefined, JSON.stringify(response.body.errors));
      return response.body.data.deploymentImpact;
    };
    const first = await impact(cached);
    const before = await cacheReads();
    const second = await impact(cached);
    const after = await cacheReads();
    assert.ok(after.hits > before.hits);
    assert.deepEqual(second, first);
    assert.deepEqual(second, await impact(uncached));
    // The earlier deployment's after side ends at the later one: the 20 runs after it of the 40,
    // and what earlier tests stored before 16:00.
    const earlier = second.data.find(
      (d: { deployment: { deployedAt: string } }) => Date.parse(d.deployment.deployedAt) === deployments[0],
    );
    assert.ok(earlier.after.executions >= 20);
    // A run stored later in the raw first minute of that side counts at once.
    await ingest(database.db, runs(tenant.organizationId, wf, deployments[0]! + 20 * SECOND, 1));
    const later = await impact(cached);
    const moved = later.data.find(
      (d: { deployment: { deployedAt: string } }) => Date.parse(d.deployment.deployedAt) === deployments[0],
    );
    assert.equal(moved.after.executions, earlier.after.executions + 1);
    assert.deepEqual(later, await impact(uncached));
  });

  it('reads a day again once ingestion changed it, so an execution stored by another writer counts at once', async () => {
    const before = await ask(cached, 'organization');
    // Stored by another writer (as another server's ingestion would), in the window's kept hours.
    await ingest(database.db, runs(tenant.organizationId, wf, DAY_START + 10 * HOUR, 3));
    const after = await ask(cached, 'organization');
    assert.equal(after.durationStats.data.count, before.durationStats.data.count + 3);
    assert.equal(observedExecutions(after), observedExecutions(before) + 3);
    assert.deepEqual(after, await ask(uncached, 'organization'));
  });

  it('keeps what it read of other days when ingestion changes one day', async () => {
    await ask(cached, 'workflow');
    const before = await cacheReads();
    // Today, outside the window: its days' kept pieces stay good.
    await ingest(database.db, runs(tenant.organizationId, wf, Date.now() - HOUR, 2));
    await ask(cached, 'workflow');
    const after = await cacheReads();
    assert.equal(after.misses, before.misses);
    assert.ok(after.hits > before.hits);
  });

  it('counts executions whose workflow arrives after them as soon as it arrives, though no rollup of their day changes', async () => {
    const late = workflow(tenant.organizationId, { name: 'late-flow' });
    await ingest(database.db, runs(tenant.organizationId, late.uuid as string, DAY_START + 12 * HOUR, 4));
    const before = await ask(cached, 'organization');
    await ingest(database.db, [late]);
    const after = await ask(cached, 'organization');
    assert.equal(after.durationStats.data.count, before.durationStats.data.count + 4);
    assert.equal(observedExecutions(after), observedExecutions(before) + 4);
    assert.deepEqual(after, await ask(uncached, 'organization'));
  });

  it('never hands out what it keeps: an answer changed by its reader leaves the next one whole', async () => {
    const db = withWindowCache(database.db, new WindowCache(1024 * 1024));
    const read = () =>
      readWindows(db, durations, tenant.organizationId, [{ key: 0, ...WINDOW, workflowUuid: wf }], {
        where: { capability_id: [EXECUTION_LEVEL] },
        groupBy: [],
      });
    const first = await read();
    const total = (rows: typeof first) => rows.reduce((sum, row) => sum + row.values.finished_count, 0);
    const expected = total(first);
    for (const row of first) {
      (row.values as { finished_count: number }).finished_count += 1000;
      row.values.duration_bins.addAll(row.values.duration_bins);
    }
    const second = await read();
    assert.equal(total(second), expected);
    const bins = (rows: typeof first) => {
      const all = new BinCounts();
      for (const row of rows) all.addAll(row.values.duration_bins);
      let n = 0;
      all.forEach((_, count) => {
        n += count;
      });
      return n;
    };
    assert.equal(bins(second), expected);
  });

  it('reads only the versions of a window whose pieces are all kept, once per request, and each piece once however many windows share it', async () => {
    const { statements, counting } = countingStatements();
    const cache = new WindowCache(1024 * 1024);
    // A request's handle: each request makes its own, over the server's one cache.
    const request = () => withWindowCache(counting as typeof database.db, cache);
    // Whole hours: rollup rows only, no raw edge.
    const hours = { from: DAY_START + 2 * HOUR, to: DAY_START + 21 * HOUR };
    const read = (n: number, db = request()) =>
      readWindows(
        db,
        durations,
        tenant.organizationId,
        Array.from({ length: n }, (_, key) => ({ key, ...hours, workflowUuid: wf })),
        { groupBy: [] },
      );
    const first = await read(1);
    assert.equal(statements.length, 2, statements.join('\n---\n'));
    assert.match(statements[0]!, /rollup_versions/);
    statements.length = 0;
    const db = request();
    const again = await read(3, db);
    assert.equal(statements.length, 1, statements.join('\n---\n'));
    assert.match(statements[0]!, /rollup_versions/);
    assert.deepEqual(
      again.map((row) => row.values.finished_count),
      [0, 1, 2].map(() => first[0]!.values.finished_count),
    );
    // The same request reading those days again (another rollup, as a verdict does) reads the
    // versions it has.
    statements.length = 0;
    await read(2, db);
    assert.deepEqual(statements, []);
  });

  it('keeps the raw edges of a fixed window too, and reads them again once ingestion changes their day', async () => {
    const { statements, pieces, counting } = countingStatements();
    const cache = new WindowCache(1024 * 1024);
    // WINDOW's edges lie inside minutes (raw rows); the organization's, so that a late run counts.
    const read = (
      fixed: 'both' | 'from' | undefined,
      db = withWindowCache(counting as typeof database.db, cache),
    ) =>
      readWindows(db, durations, tenant.organizationId, [{ key: 0, ...WINDOW, workflowUuid: null, fixed }], {
        where: { capability_id: [EXECUTION_LEVEL] },
        groupBy: [],
      });
    const total = (rows: Awaited<ReturnType<typeof read>>) =>
      rows.reduce((sum, row) => sum + row.values.finished_count, 0);
    await read('both');
    statements.length = 0;
    const kept = await read('both');
    assert.equal(statements.length, 1, statements.join('\n---\n'));
    assert.match(statements[0]!, /rollup_versions/);
    assert.equal(total(kept), total(await read(undefined, database.db)));
    // A window that ends now is not fixed: both its edges are read every time; one that starts at
    // a fixed instant and ends now, only its end.
    await read(undefined);
    pieces.length = 0;
    await read(undefined);
    assert.deepEqual(pieces, [2]);
    await read('from');
    pieces.length = 0;
    await read('from');
    assert.deepEqual(pieces, [1]);
    // A run stored in the window's first, raw minute.
    const [late] = runs(tenant.organizationId, wf, WINDOW.from + 13 * SECOND - 7 * SECOND, 1);
    await ingest(database.db, [late!]);
    const after = await read('both');
    assert.equal(total(after), total(kept) + 1);
    assert.equal(total(after), total(await read(undefined, database.db)));
  });

  it('keeps the edges a request named from their second read on, and none of a window moved with every read', async () => {
    const { statements, pieces, counting } = countingStatements();
    const cache = new WindowCache(1024 * 1024);
    // A handle per read, as per request.
    const read = (to: number) =>
      readWindows(
        withWindowCache(counting as typeof database.db, cache),
        durations,
        tenant.organizationId,
        [{ key: 0, from: WINDOW.from, to, workflowUuid: null, fixed: 'both', askedEdges: true }],
        { where: { capability_id: [EXECUTION_LEVEL] }, groupBy: [] },
      );
    // The same window three times: its rollup rows are read once, its two edges twice, then kept.
    const read3 = [];
    for (let i = 0; i < 3; i++) {
      pieces.length = 0;
      statements.length = 0;
      await read(WINDOW.to);
      read3.push(pieces.reduce((sum, n) => sum + n, 0));
    }
    assert.ok(read3[0]! > 2, `${read3[0]} pieces at first`);
    assert.deepEqual(read3.slice(1), [2, 0]);
    assert.equal(statements.length, 1, statements.join('\n---\n'));
    assert.match(statements[0]!, /rollup_versions/);
    // A window whose end moves a second each read (within the same minute, so over the same
    // rollup rows): its end is read every time and never kept; its start, asked again, is.
    const entries = cache.use().entries;
    for (const later of [1, 2, 3]) {
      pieces.length = 0;
      await read(WINDOW.to + later * SECOND);
      assert.deepEqual(pieces, [1]);
    }
    assert.equal(cache.use().entries, entries);
  });

  /**
   * An organization of its own with twelve failures of one group, seven minutes apart from 11 s
   * past `at` (two days before the other tests' day), and one of another; `failure` stores more.
   */
  async function failingTenant() {
    const t = await createTenant(database.db);
    const flow = workflow(t.organizationId);
    const at = DAY_START - 2 * DAY + 5 * HOUR;
    const failure = (startedAt: number, error: string) =>
      execution(t.organizationId, flow.uuid as string, {
        status: 'FAILURE',
        startedAt: iso(startedAt),
        errors: [{ error, count: 1 }],
      });
    await ingest(database.db, [
      flow,
      ...Array.from({ length: 12 }, (_, i) =>
        failure(at + i * 7 * MINUTE + 11 * SECOND, `quota ${i} exceeded`),
      ),
      failure(at + 30 * MINUTE + 3 * SECOND, 'node 4 unreachable'),
    ]);
    // A window over them, from 20 s past `at` (after the first failure) to a raw end 40 s into an hour.
    const window = { from: iso(at + 20 * SECOND), to: iso(at + 23 * HOUR + 40 * SECOND) };
    return { t, at, failure, window };
  }

  /** A server on the test's database that counts the statements it sends. */
  async function countingServer() {
    const counter = countingDatabase(database.db);
    const server = await startServer(counter.db, { authCacheMs: 60_000, alerts: { worker: false } });
    return { counter, server };
  }

  it('answers error groups over a window the request named from what it kept: the third ask reads only the versions and the sightings state', async () => {
    const { t, at, failure, window: input } = await failingTenant();
    const { counter, server } = await countingServer();
    try {
      const groups = `query ($input: ErrorGroupsInput!) { errorGroups(input: $input) { count data {
        fingerprint sampleMessage occurrences executionCount workflowCount firstSeenAt lastSeenAt
        activity { from occurrences } } } }`;
      const askGroups = async (on: TestServer) => {
        const response = await on.gql(t.key, groups, { input });
        assert.equal(response.body.errors, undefined, JSON.stringify(response.body.errors));
        return response.body.data.errorGroups;
      };
      const asked = [];
      for (let i = 0; i < 3; i++) {
        counter.take();
        asked.push({ answer: await askGroups(server), statements: counter.take() });
      }
      // The first execution (11 s past the hour) lies before the window's start.
      assert.deepEqual(
        asked.map(({ answer }) => answer.data.map((g: { occurrences: number }) => g.occurrences)),
        [
          [11, 1],
          [11, 1],
          [11, 1],
        ],
      );
      assert.ok(asked[0]!.statements.some((text) => /error_group_rollups/.test(text)));
      const third = asked[2]!.statements.filter((text) => !/api_keys/.test(text));
      assert.equal(third.length, 2, third.join('\n---\n'));
      assert.match(third[0]!, /from rollup_versions/);
      assert.match(third[1]!, /pg_inherits/);
      assert.deepEqual(asked[2]!.answer, await askGroups(uncached));
      // A failure stored at the window's raw end changes its day: the next ask counts it.
      await ingest(database.db, [failure(at + 23 * HOUR + 9 * SECOND, 'node 4 unreachable')]);
      const after = await askGroups(server);
      assert.deepEqual(
        after.data.map((g: { occurrences: number }) => g.occurrences),
        [11, 2],
      );
      assert.deepEqual(after, await askGroups(uncached));
    } finally {
      await server.close();
    }
  });

  it('counts a list between instants the request named from what it kept: the third ask reads only the versions, with the retention mark', async () => {
    const { t, at, failure, window } = await failingTenant();
    const { counter, server } = await countingServer();
    try {
      const groups = await uncached.gql(
        t.key,
        `query ($input: ErrorGroupsInput!) { errorGroups(input: $input) {
        data { fingerprint occurrences } } }`,
        { input: window },
      );
      const fingerprint = groups.body.data.errorGroups.data[1].fingerprint;
      const counts = `query ($window: WorkflowExecutionsInput!, $grouped: WorkflowExecutionsInput!) {
        all: workflowExecutions(input: $window) { count }
        grouped: workflowExecutions(input: $grouped) { count } }`;
      const variables = {
        window: { ...window, page: { size: 1 } },
        grouped: { ...window, errorFingerprint: fingerprint, page: { size: 1 } },
      };
      const askCounts = async (on: TestServer) => {
        const response = await on.gql(t.key, counts, variables);
        assert.equal(response.body.errors, undefined, JSON.stringify(response.body.errors));
        return [response.body.data.all.count, response.body.data.grouped.count];
      };
      const asked = [];
      for (let i = 0; i < 3; i++) {
        counter.take();
        asked.push({ counts: await askCounts(server), statements: counter.take() });
      }
      assert.deepEqual(
        asked.map(({ counts }) => counts),
        [
          [12, 1],
          [12, 1],
          [12, 1],
        ],
      );
      // The first ask reads the windows' rollup rows and edges, the second their edges again.
      for (const { statements } of asked.slice(0, 2))
        assert.ok(
          statements.some((text) => /with given as/.test(text)),
          statements.join('\n---\n'),
        );
      // The third: the versions, read once with the retention mark, for both counts.
      const third = asked[2]!.statements.filter((text) => !/api_keys/.test(text));
      assert.equal(third.length, 1, third.join('\n---\n'));
      assert.match(third[0]!, /from rollup_versions[\s\S]*from raw_retention/);
      assert.deepEqual(asked[2]!.counts, await askCounts(uncached));
      // A failure stored at the window's raw end changes its day: the next ask counts it.
      await ingest(database.db, [failure(at + 23 * HOUR + 9 * SECOND, 'node 4 unreachable')]);
      assert.deepEqual(await askCounts(server), [13, 2]);
      assert.deepEqual(await askCounts(uncached), [13, 2]);
    } finally {
      await server.close();
    }
  });

  it('keeps the rank of error groups in a window the request named whole while its days are unchanged', async () => {
    const { t, at, failure } = await failingTenant();
    const cache = new WindowCache(1024 * 1024);
    const window = { from: at + 20 * SECOND, to: at + 23 * HOUR + 40 * SECOND, fixed: 'both' as const };
    const everywhere = { workflowUuid: null, capabilityId: null };
    const rank = () =>
      rankGroups(withWindowCache(database.db, cache), t.organizationId, window, everywhere, true);
    const first = await rank();
    assert.equal(await rank(), first);
    assert.equal(await rank(), first);
    assert.deepEqual(
      first.ranked.map((group) => group.occurrences),
      [11, 1],
    );
    // Without a cache it is summed each time, the same.
    assert.deepEqual(await rankGroups(database.db, t.organizationId, window, everywhere, true), first);
    // A failure stored in the window changes its day: summed again, then kept.
    await ingest(database.db, [failure(at + 3 * HOUR, 'node 4 unreachable')]);
    const after = await rank();
    assert.deepEqual(
      after.ranked.map((group) => group.occurrences),
      [11, 2],
    );
    assert.equal(await rank(), after);
  });

  it("derives an anomaly bucket's values once: a repeated detection reads only the versions and the first executions", async () => {
    const { statements, counting } = countingStatements();
    const cache = new WindowCache(1024 * 1024);
    const buckets = Array.from({ length: 24 }, (_, i) => ({
      from: DAY_START + i * HOUR,
      to: DAY_START + (i + 1) * HOUR,
    }));
    const query = {
      buckets,
      width: HOUR,
      workflowUuid: null,
      perWorkflow: true,
      metrics: ['EXECUTIONS', 'FAILURE_RATE', 'DURATION_P95'] as const,
      sensitivity: 3,
      now: Date.now(),
    };
    const detect = () =>
      detectAnomalies(withWindowCache(counting as typeof database.db, cache), tenant.organizationId, query);
    const first = await detect();
    assert.ok(statements.some((text) => /execution_rollups/.test(text)));
    statements.length = 0;
    const hits = cache.use().hits;
    const second = await detect();
    // One kept value per bucket read (judged or in a baseline), none of the rows behind them.
    const starts = new Set(buckets.flatMap((b) => [b.from, ...baselineStarts(b.from, HOUR)]));
    assert.equal(cache.use().hits - hits, starts.size);
    assert.equal(statements.length, 2, statements.join('\n---\n'));
    assert.ok(statements.some((text) => /rollup_versions/.test(text)));
    assert.ok(!statements.some((text) => /_rollups/.test(text)), statements.join('\n---\n'));
    assert.deepEqual(second, first);
    // As a read without a cache.
    assert.deepEqual(second, await detectAnomalies(database.db, tenant.organizationId, query));
    const executions = second.find(
      (series) => series.metric === 'EXECUTIONS' && series.workflowUuid === null,
    )!;
    assert.ok(executions.points.some((point) => (point.observed ?? 0) > 0));
  });

  it('judges an anomaly bucket again when a bucket of its baseline changes on another day, and keeps the judgement otherwise', async () => {
    const cache = new WindowCache(1024 * 1024);
    // One in the morning of the next day: its 8 preceding hours reach back into DAY_START's day.
    const judgedHour = DAY_START + 25 * HOUR;
    const query = {
      buckets: [{ from: judgedHour, to: judgedHour + HOUR }],
      width: HOUR,
      workflowUuid: wf,
      perWorkflow: false,
      metrics: ['EXECUTIONS'] as const,
      sensitivity: 3,
      now: Date.now(),
    };
    const point = async (db: typeof database.db = withWindowCache(database.db, cache)) =>
      (await detectAnomalies(db, tenant.organizationId, query))[0]!.points[0]!;
    const first = await point();
    // Kept: the very point judged before.
    assert.equal(await point(), first);
    // Two hours before, on the day before: in its baseline, not in the bucket or its day.
    await ingest(database.db, runs(tenant.organizationId, wf, judgedHour - 2 * HOUR + 5 * MINUTE, 1));
    const again = await point();
    assert.notEqual(again, first);
    assert.deepEqual(again, await point(database.db));
    assert.equal(await point(), again);
  });

  it("gives a repeated detection the very series it gave, and assembles them again with a workflow's new name", async () => {
    const cache = new WindowCache(1024 * 1024);
    const query = {
      buckets: Array.from({ length: 24 }, (_, i) => ({
        from: DAY_START + i * HOUR,
        to: DAY_START + (i + 1) * HOUR,
      })),
      width: HOUR,
      workflowUuid: null,
      perWorkflow: true,
      metrics: ['EXECUTIONS', 'FAILURE_RATE'] as const,
      sensitivity: 3,
      now: Date.now(),
    };
    const detect = (db: typeof database.db = withWindowCache(database.db, cache)) =>
      detectAnomalies(db, tenant.organizationId, query);
    const first = await detect();
    assert.equal(await detect(), first);
    const named = (all: Awaited<ReturnType<typeof detect>>) =>
      all.filter((series) => series.workflowUuid === wf).map((series) => series.workflowName);
    const [name] = named(first);
    assert.ok(name);
    await ingest(database.db, [workflow(tenant.organizationId, { uuid: wf, name: `${name}-renamed` })]);
    const renamed = await detect();
    assert.notEqual(renamed, first);
    assert.deepEqual(named(renamed), [`${name}-renamed`, `${name}-renamed`]);
    // Judged as before: only the name is new.
    assert.deepEqual(
      renamed.map((series) => series.points),
      first.map((series) => series.points),
    );
    assert.equal(await detect(), renamed);
    assert.deepEqual(renamed, await detect(database.db));
  });

  it('derives again every time the values of a window with a raw edge that moves, and keeps those whose edges are fixed', async () => {
    const cache = new WindowCache(1024 * 1024);
    const KIND = new KeptKind<number>('test derived');
    const derived: number[][] = [];
    const edged = { from: DAY_START + 2 * HOUR + 17 * SECOND, to: DAY_START + 3 * HOUR + 5 * SECOND };
    const windows = [
      { key: 0, from: DAY_START + 2 * HOUR, to: DAY_START + 3 * HOUR },
      { key: 1, from: DAY_START + 2 * HOUR + 17 * SECOND, to: DAY_START + 3 * HOUR },
      // Between two instants that do not move (deployments): kept, raw edges and all.
      { key: 2, ...edged, fixed: 'both' as const },
      // From such an instant to now: its end moves.
      { key: 3, ...edged, fixed: 'from' as const },
    ];
    const read = () =>
      keptPerWindow(withWindowCache(database.db, cache), KIND, tenant.organizationId, windows, {
        rollups: [durations],
        id: 'test',
        bytes: () => 8,
        derive: async (missing) => {
          derived.push(missing.map((window) => window.key));
          return new Map(missing.map((window) => [window.key, window.key * 10]));
        },
      });
    const all = [
      [0, 0],
      [1, 10],
      [2, 20],
      [3, 30],
    ];
    assert.deepEqual([...(await read())].sort(), all);
    assert.deepEqual([...(await read())].sort(), all);
    assert.deepEqual(derived, [
      [0, 1, 2, 3],
      [1, 3],
    ]);
  });

  it('answers the very windows under the very versions with the very answer, and a changed day anew', async () => {
    const cache = new WindowCache(1024 * 1024);
    const KIND = new KeptKind<number>('test last answer');
    let derived = 0;
    const hours = [2, 3, 20].map((hour, key) => ({
      key,
      from: DAY_START + hour * HOUR,
      to: DAY_START + (hour + 1) * HOUR,
    }));
    const read = (windows: typeof hours) =>
      keptPerWindow(withWindowCache(database.db, cache), KIND, tenant.organizationId, windows, {
        rollups: [durations],
        id: 'last',
        bytes: () => 8,
        derive: async (missing) => {
          derived += missing.length;
          return new Map(missing.map((window) => [window.key, window.key]));
        },
      });
    const first = await read(hours);
    const hits = cache.use().hits;
    assert.equal(await read(hours), first);
    assert.equal(cache.use().hits, hits + 3);
    assert.equal(derived, 3);
    // Other windows: another answer, the windows kept read from the cache.
    const fewer = await read(hours.slice(0, 2));
    assert.notEqual(fewer, first);
    assert.equal(derived, 3);
    // A day written to: its versions change, so the answer is made again (its windows still kept).
    await ingest(database.db, runs(tenant.organizationId, wf, DAY_START + 20 * HOUR + 30 * MINUTE, 1));
    const after = await read(hours);
    assert.notEqual(after, first);
    assert.deepEqual([...after], [...first]);
    assert.equal(derived, 6);
  });

  it('keeps nothing of a read inside a transaction, which sees its own uncommitted rollups', async () => {
    const cache = new WindowCache(1024 * 1024);
    const db = withWindowCache(database.db, cache);
    await db.transaction((tx) =>
      readWindows(tx, durations, tenant.organizationId, [{ key: 0, ...WINDOW, workflowUuid: wf }], {
        groupBy: [],
      }),
    );
    assert.equal(cache.use().entries, 0);
    await readWindows(db, durations, tenant.organizationId, [{ key: 0, ...WINDOW, workflowUuid: wf }], {
      groupBy: [],
    });
    assert.ok(cache.use().entries > 0);
  });
});

describe('the rollup answer cache', () => {
  const ROWS = new KeptKind<Array<{ n: number }>>('test rows');
  const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ n: i }));

  it('holds at most its bytes, letting the least recently used answers go first', () => {
    const cache = new WindowCache(40_000);
    for (let i = 0; i < 100; i++) cache.set(ROWS, `piece ${i}`, 'v1', rows(5), 1_100);
    assert.ok(cache.use().entries > 10);
    assert.ok(cache.use().bytes <= 40_000);
    assert.ok(cache.use().entries < 100);
    assert.equal(cache.get(ROWS, 'piece 0', 'v1'), undefined);
    assert.deepEqual(cache.get(ROWS, 'piece 99', 'v1'), rows(5));
  });

  it('answers nothing for a key read under another version', () => {
    const cache = new WindowCache(20_000);
    cache.set(ROWS, 'piece', '3/2', rows(1), 220);
    assert.equal(cache.get(ROWS, 'piece', '4/2'), undefined);
    assert.equal(cache.get(ROWS, 'piece', '3/3'), undefined);
    assert.deepEqual(cache.get(ROWS, 'piece', '3/2'), rows(1));
  });

  it('keeps the values of each kind apart under the same key', () => {
    const cache = new WindowCache(20_000);
    const OTHER = new KeptKind<string>('test other');
    cache.set(ROWS, 'piece', 'v', rows(1), 220);
    assert.equal(cache.get(OTHER, 'piece', 'v'), undefined);
    cache.set(OTHER, 'piece', 'v', 'derived', 20);
    assert.equal(cache.get(OTHER, 'piece', 'v'), 'derived');
    assert.deepEqual(cache.get(ROWS, 'piece', 'v'), rows(1));
  });

  it('states the days a range touches by the sum of their counters and the number of workflows', () => {
    const d = (n: number) => DAY_START + n * DAY;
    const versions = new RollupVersions(
      new Map([
        [d(2), 5],
        [d(0), 1],
        [d(1), 3],
      ]),
      7,
    );
    assert.equal(versions.of(d(0), d(3)), '9/7');
    // A range starting inside a day touches that day; its end day is left out when it ends at its start.
    assert.equal(versions.of(d(1) + HOUR, d(2)), '3/7');
    assert.equal(versions.of(d(1) + HOUR, d(2) + 1), '8/7');
    assert.equal(versions.of(d(2), null), '5/7');
    // Days without a counter count nothing.
    assert.equal(versions.of(d(5), d(6)), '0/7');
    assert.equal(versions.of(d(-3), d(0)), '0/7');
  });

  it('keeps no answer larger than a sixteenth of its bytes, so one read cannot empty it', () => {
    const cache = new WindowCache(20_000);
    cache.set(ROWS, 'small', 'v', rows(1), 220);
    cache.set(ROWS, 'large', 'v', rows(1), 5_220);
    assert.equal(cache.get(ROWS, 'large', 'v'), undefined);
    assert.deepEqual(cache.get(ROWS, 'small', 'v'), rows(1));
  });
});
