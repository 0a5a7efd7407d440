import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { createTenant, execution, ingest, type Tenant, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { DAY, HOUR, iso, MINUTE, timeText } from '../insight/reference.js';
import { assertFieldError, dataOf } from '../read-api/graphql-assertions.js';

const ANOMALIES = `query ($input: AnomaliesInput!) { anomalies(input: $input) {
  data { metric workflowUUID workflowName from to observed expected lower upper direction score }
  series { metric workflowUUID points { from to observed expected lower upper anomalous } }
} }`;

const WEEK = 7 * DAY;
/** A Monday, midnight UTC: the day the tests look at. */
const W0 = Date.parse('2026-06-01T00:00:00Z');
/** The day's 24 hourly buckets. */
const DAY_WINDOW = { from: iso(W0), to: iso(W0 + 23 * HOUR + 30 * MINUTE) };

type Raw = Record<string, unknown>;

interface Point {
  from: string;
  to: string;
  observed: number | null;
  expected: number | null;
  lower: number | null;
  upper: number | null;
  anomalous: boolean;
}
interface Series {
  metric: string;
  workflowUUID: string | null;
  points: Point[];
}
interface Anomaly {
  metric: string;
  workflowUUID: string | null;
  workflowName: string | null;
  from: string;
  to: string;
  observed: number;
  expected: number;
  lower: number;
  upper: number;
  direction: string;
  score: number;
}

const close = (actual: number | null, expected: number) =>
  assert.ok(actual !== null && Math.abs(actual - expected) < 1e-9, `${actual} is not ${expected}`);

describe('anomalies', () => {
  const ctx = useServer({ rateLimit: { burst: 1_000_000, perSecond: 1_000_000 } });

  async function anomalies(
    key: string,
    input: Record<string, unknown>,
  ): Promise<{ data: Anomaly[]; series: Series[] }> {
    return dataOf(await ctx.server.gql(key, ANOMALIES, { input })).anomalies;
  }

  const seriesOf = (answer: { series: Series[] }, metric: string) =>
    answer.series.find((s) => s.metric === metric)!;
  const pointAt = (series: Series, at: number) => series.points.find((p) => p.from === timeText(at))!;

  /** `n` executions started inside [at, at + 1 minute): the first `failures` FAILURE, each lasting `ms`. */
  function burst(t: Tenant, wf: string, at: number, n: number, failures = 0, ms = 1000): Raw[] {
    return Array.from({ length: n }, (_, i) => {
      const startedAt = at + Math.floor((i * MINUTE) / Math.max(1, n));
      return execution(t.organizationId, wf, {
        status: i < failures ? 'FAILURE' : 'SUCCESS',
        startedAt: iso(startedAt),
        finishedAt: iso(startedAt + ms),
      });
    });
  }

  it('compares each hour with the same hour of the four weeks before: median, 1.4826 x MAD, the band and the score', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId, { name: 'ticker' });
    const uuid = wf.uuid as string;
    const tenAm = W0 + 10 * HOUR;
    await ingest(ctx.db, [
      wf,
      ...[10, 12, 11, 9].flatMap((n, k) => burst(t, uuid, tenAm - (k + 1) * WEEK + 5 * MINUTE, n)),
      ...burst(t, uuid, tenAm + 20 * MINUTE, 20),
    ]);
    const answer = await anomalies(t.key, { workflowUUID: uuid, ...DAY_WINDOW, metrics: ['EXECUTIONS'] });
    assert.deepEqual(
      answer.series.map((s) => [s.metric, s.workflowUUID, s.points.length]),
      [['EXECUTIONS', uuid, 24]],
    );
    const series = seriesOf(answer, 'EXECUTIONS');
    // Baseline 10, 12, 11, 9: median 10.5, deviations 0.5, 1.5, 0.5, 1.5, MAD 1.
    const spread = 1.4826;
    const ten = pointAt(series, tenAm);
    assert.equal(ten.observed, 20);
    assert.equal(ten.expected, 10.5);
    close(ten.lower, 10.5 - 3 * spread);
    close(ten.upper, 10.5 + 3 * spread);
    assert.equal(ten.anomalous, true);
    assert.equal(answer.data.length, 1);
    const [anomaly] = answer.data as [Anomaly];
    assert.deepEqual(
      [
        anomaly.metric,
        anomaly.workflowUUID,
        anomaly.workflowName,
        anomaly.from,
        anomaly.to,
        anomaly.direction,
      ],
      ['EXECUTIONS', uuid, 'ticker', timeText(tenAm), timeText(tenAm + HOUR), 'UP'],
    );
    close(anomaly.score, (20 - 10.5) / spread);
    // Other hours: weeks whose bucket ended before the first execution ever are left out; the rest
    // count 0, and the spread's floor of 1 execution draws [0, 3].
    const nine = pointAt(series, tenAm - HOUR);
    assert.deepEqual(
      [nine.observed, nine.expected, nine.lower, nine.upper, nine.anomalous],
      [0, 0, 0, 3, false],
    );
    // A higher sensitivity widens the band: 20 is then inside.
    const lenient = await anomalies(t.key, {
      workflowUUID: uuid,
      ...DAY_WINDOW,
      metrics: ['EXECUTIONS'],
      sensitivity: 10,
    });
    close(pointAt(seriesOf(lenient, 'EXECUTIONS'), tenAm).upper, 10.5 + 10 * spread);
    assert.deepEqual(lenient.data, []);
  });

  it('falls back to the 8 buckets just before, and has no band with fewer than 3 values there', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const uuid = wf.uuid as string;
    // New today: five executions an hour, forty at 20:00.
    await ingest(ctx.db, [
      wf,
      ...Array.from({ length: 24 }, (_, h) => burst(t, uuid, W0 + h * HOUR, h === 20 ? 40 : 5)).flat(),
    ]);
    const series = seriesOf(
      await anomalies(t.key, { workflowUUID: uuid, ...DAY_WINDOW, metrics: ['EXECUTIONS'] }),
      'EXECUTIONS',
    );
    for (const h of [0, 1, 2]) {
      const p = pointAt(series, W0 + h * HOUR);
      assert.deepEqual(
        [p.observed, p.expected, p.lower, p.upper, p.anomalous],
        [5, null, null, null, false],
        `${h}:00`,
      );
    }
    // 03:00 has three hours before it; 10% of 5 is under the floor of 1.
    const three = pointAt(series, W0 + 3 * HOUR);
    assert.deepEqual([three.expected, three.lower, three.upper], [5, 2, 8]);
    const twenty = pointAt(series, W0 + 20 * HOUR);
    assert.deepEqual([twenty.observed, twenty.expected, twenty.anomalous], [40, 5, true]);
    // 21:00's 8 buckets hold the 40: the median ignores it, and 5 is normal again.
    const next = pointAt(series, W0 + 21 * HOUR);
    assert.deepEqual([next.expected, next.anomalous], [5, false]);
  });

  it('judges failure rates and p95 durations over at least 20 finished executions, the spread floored at 10% of expected', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const uuid = wf.uuid as string;
    const tenAm = W0 + 10 * HOUR;
    await ingest(ctx.db, [
      wf,
      // Baseline weeks: 20 finished each, 4, 4, 5, 4 failures (rates 0.2, 0.2, 0.25, 0.2), 1 s each.
      ...[4, 4, 5, 4].flatMap((failures, k) => burst(t, uuid, tenAm - (k + 1) * WEEK, 20, failures)),
      // Today at 10:00: half fail, and take 5 s.
      ...burst(t, uuid, tenAm, 20, 10, 5000),
      // At 11:00, 19 finished: no rate, no p95.
      ...burst(t, uuid, tenAm + HOUR, 19, 19, 9000),
    ]);
    const answer = await anomalies(t.key, {
      workflowUUID: uuid,
      ...DAY_WINDOW,
      metrics: ['DURATION_P95', 'FAILURE_RATE'],
    });
    assert.deepEqual(
      answer.series.map((s) => s.metric),
      ['FAILURE_RATE', 'DURATION_P95'],
      'in the contract order',
    );
    const rate = pointAt(seriesOf(answer, 'FAILURE_RATE'), tenAm);
    // Median 0.2, MAD 0: the spread is 10% of 0.2 = 0.02.
    assert.equal(rate.observed, 0.5);
    assert.equal(rate.expected, 0.2);
    close(rate.lower, 0.2 - 3 * 0.02);
    close(rate.upper, 0.2 + 3 * 0.02);
    assert.equal(rate.anomalous, true);
    const p95 = pointAt(seriesOf(answer, 'DURATION_P95'), tenAm);
    assert.deepEqual(
      [p95.observed, p95.expected, p95.lower, p95.upper, p95.anomalous],
      [5000, 1000, 700, 1300, true],
    );
    for (const metric of ['FAILURE_RATE', 'DURATION_P95']) {
      const eleven = pointAt(seriesOf(answer, metric), tenAm + HOUR);
      assert.equal(eleven.observed, null, metric);
      assert.equal(eleven.anomalous, false, metric);
      // An hour without 20 finished executions has no value, and none in the baseline either.
      assert.equal(pointAt(seriesOf(answer, metric), tenAm - HOUR).expected, null, metric);
    }
    // One hour: by score, highest first.
    assert.deepEqual(
      answer.data.map((a) => a.metric),
      ['DURATION_P95', 'FAILURE_RATE'],
    );
    close(answer.data[0]!.score, (5000 - 1000) / 100);
    close(answer.data[1]!.score, (0.5 - 0.2) / 0.02);
  });

  it('never calls a bucket that has not ended anomalous by its execution count', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const uuid = wf.uuid as string;
    const hour = Math.floor(Date.now() / HOUR) * HOUR;
    await ingest(ctx.db, [
      wf,
      ...[1, 2, 3, 4].flatMap((k) => [
        ...burst(t, uuid, hour - k * WEEK, 2),
        ...burst(t, uuid, hour - HOUR - k * WEEK, 2),
      ]),
      ...burst(t, uuid, hour - HOUR, 50),
      ...burst(t, uuid, hour, 50).map((record) => ({
        ...record,
        startedAt: iso(hour),
        finishedAt: iso(hour + 1),
      })),
    ]);
    const series = seriesOf(
      await anomalies(t.key, { workflowUUID: uuid, from: iso(hour - 3 * HOUR), metrics: ['EXECUTIONS'] }),
      'EXECUTIONS',
    );
    const ended = pointAt(series, hour - HOUR);
    const current = pointAt(series, hour);
    assert.deepEqual([ended.observed, ended.anomalous], [50, true]);
    assert.deepEqual([current.observed, current.expected, current.anomalous], [50, 2, false]);
  });

  it('covers the organization as a whole and each workflow, ordered by from, score and workflow, at most 500', async () => {
    const t = await createTenant(ctx.db);
    const stranger = await createTenant(ctx.db, 'Stranger');
    const workflows = Array.from({ length: 21 }, (_, i) => workflow(t.organizationId, { name: `wf-${i}` }));
    // Two hours in 5-minute buckets; every workflow began five weeks earlier and was idle since.
    const start = W0 + 8 * HOUR;
    const records: Raw[] = [];
    workflows.forEach((wf, i) => {
      const uuid = wf.uuid as string;
      records.push(wf, ...burst(t, uuid, start - 5 * WEEK, 1));
      for (let b = 0; b < 25; b++) records.push(...burst(t, uuid, start + b * 5 * MINUTE, 4 + (i % 10)));
    });
    const theirs = workflow(stranger.organizationId);
    records.push(theirs, ...burst(stranger, theirs.uuid as string, start, 500));
    await ingest(ctx.db, records);
    const answer = await anomalies(t.key, {
      from: iso(start),
      to: iso(start + 2 * HOUR),
      metrics: ['EXECUTIONS'],
    });
    // One series: the organization's.
    assert.deepEqual(
      answer.series.map((s) => [s.metric, s.workflowUUID, s.points.length]),
      [['EXECUTIONS', null, 25]],
    );
    const total = workflows.reduce((sum, _, i) => sum + 4 + (i % 10), 0);
    assert.equal(
      series0(answer).points[0]!.observed,
      total,
      "another organization's executions are not counted",
    );
    // 25 organization anomalies and 21 x 25 of workflows: 550, of which 500 are listed.
    assert.equal(answer.data.length, 500);
    const expectedOrder = [...answer.data].sort(
      (a, b) =>
        Date.parse(b.from) - Date.parse(a.from) ||
        b.score - a.score ||
        (a.workflowUUID ?? '').localeCompare(b.workflowUUID ?? ''),
    );
    assert.deepEqual(answer.data, expectedOrder);
    const latest = answer.data.filter((a) => a.from === timeText(start + 24 * 5 * MINUTE));
    assert.equal(latest.length, 22);
    assert.deepEqual(
      [latest[0]!.workflowUUID, latest[0]!.workflowName, latest[0]!.observed],
      [null, null, total],
    );
    const names = new Map(workflows.map((wf) => [wf.uuid as string, wf.name as string]));
    for (const a of latest.slice(1)) assert.equal(a.workflowName, names.get(a.workflowUUID!));
    // Ties of score (workflows i and i + 10 run alike) are broken by uuid.
    const tied = latest.filter((a) => a.score === latest[1]!.score);
    assert.ok(tied.length >= 2);
    // The oldest buckets fall past the cap: the list ends inside bucket 3 of 25.
    assert.ok(Date.parse(answer.data.at(-1)!.from) > start);

    function series0(a: { series: Series[] }) {
      return a.series[0]!;
    }
  });

  it("answers NOT_FOUND for an unknown or another organization's workflow, and refuses a sensitivity outside 1..10", async () => {
    const t = await createTenant(ctx.db);
    const stranger = await createTenant(ctx.db, 'Other');
    const theirs = workflow(stranger.organizationId);
    await ingest(ctx.db, [theirs]);
    const ask = (input: Record<string, unknown>) => ctx.server.gql(t.key, ANOMALIES, { input });
    for (const workflowUUID of [theirs.uuid, randomUUID(), 'nope']) {
      assertFieldError(await ask({ workflowUUID }), 'NOT_FOUND', 'workflow not found');
    }
    for (const sensitivity of [0.5, 11]) {
      assertFieldError(await ask({ sensitivity }), 'BAD_USER_INPUT', 'sensitivity must be between 1 and 10');
    }
    assertFieldError(await ask({ from: iso(W0 + DAY), to: iso(W0) }), 'BAD_USER_INPUT');
    // Defaults: the last 24 hours in hourly buckets, every metric, an empty organization.
    const empty = await anomalies(t.key, {});
    assert.deepEqual(
      empty.series.map((s) => [s.metric, s.workflowUUID]),
      [
        ['EXECUTIONS', null],
        ['FAILURE_RATE', null],
        ['DURATION_P95', null],
      ],
    );
    assert.ok(empty.series.every((s) => s.points.length >= 24 && s.points.length <= 25));
    assert.deepEqual(empty.data, []);
  });
});
