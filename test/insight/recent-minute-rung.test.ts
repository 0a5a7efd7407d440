import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { durations } from '../../src/rollups/durations.rollup.js';
import { executionCounts } from '../../src/rollups/execution-counts.rollup.js';
import { recentRungsFrom } from '../../src/rollups/grains.js';
import { pruneRecentRungs } from '../../src/rollups/rollup-upkeep.store.js';
import { coverWindow, RAW, splitWindow, type WindowPiece } from '../../src/rollups/windows.js';
import { openTestDatabase, type TestDatabase } from '../harness/database.js';
import { createTenant, event, execution, ingest, workflow } from '../harness/fixtures.js';
import { startServer } from '../harness/server.js';
import { rollupDrift } from '../ingest/rollup-drift.js';
import { DAY, HOUR, iso, MINUTE, SECOND } from './reference.js';

/** The start of the day eight days back: the first one-minute bucket readers use. */
const CUT = Math.floor(Date.now() / DAY) * DAY - 8 * DAY;
/** Ingestion writes, and upkeep keeps, one-minute rows from a day earlier (the margin). */
const KEPT_FROM = CUT - DAY;
/** A minute of the last hours. */
const LAST_HOUR = Math.floor(Date.now() / MINUTE) * MINUTE - HOUR;

/** The pieces end to end: each starts where the one before ends, from the window's start to its end. */
function assertContiguous(pieces: readonly WindowPiece[], from: number, to: number): void {
  const sorted = [...pieces].sort((a, b) => a.from - b.from);
  assert.equal(sorted[0]!.from, from);
  for (let i = 1; i < sorted.length; i++) assert.equal(sorted[i]!.from, sorted[i - 1]!.to);
  assert.equal(sorted.at(-1)!.to, to);
}

describe('the window cover of a rollup that keeps its one-minute and five-minute rungs for recent buckets only', () => {
  const now = Date.now();

  it('reads windows before the cut from fifteen-minute and coarser buckets, and raw edges under fifteen minutes', () => {
    const from = CUT - 3 * DAY + 7 * MINUTE + 13 * SECOND;
    const to = CUT - DAY + 2 * HOUR + 3 * MINUTE + 30 * SECOND;
    const pieces = coverWindow(durations, { from, to }, now);
    assertContiguous(pieces, from, to);
    assert.ok(pieces.every((piece) => piece.grain !== 60 && piece.grain !== 300));
    const edges = pieces.filter((piece) => piece.grain === RAW);
    assert.deepEqual(
      edges.map((piece) => [piece.bucket, piece.bucketSeconds]),
      [
        [CUT - 3 * DAY, 900],
        [CUT - DAY + 2 * HOUR, 900],
      ],
    );
  });

  it('reads windows after the cut as before, with one-minute buckets and raw edges under a minute', () => {
    const window = { from: CUT + 7 * MINUTE + 13 * SECOND, to: CUT + 2 * DAY + 3 * MINUTE + 30 * SECOND };
    const pieces = coverWindow(durations, window, now);
    assert.deepEqual(pieces, splitWindow(window, durations.grains));
    assert.ok(pieces.some((piece) => piece.grain === 60));
    assert.ok(pieces.filter((piece) => piece.grain === RAW).every((piece) => piece.bucketSeconds === 60));
  });

  it('cuts a window across the cut at the start of that day, adding no raw piece there', () => {
    const from = CUT - 5 * HOUR - 2 * MINUTE - 1;
    const to = CUT + 3 * HOUR + 30 * SECOND;
    const pieces = coverWindow(durations, { from, to }, now);
    assertContiguous(pieces, from, to);
    const raw = pieces.filter((piece) => piece.grain === RAW);
    assert.equal(raw.length, 2);
    assert.ok(
      pieces
        .filter((piece) => piece.to !== null && piece.to <= CUT)
        .every((piece) => piece.grain !== 60 && piece.grain !== 300),
    );
    assert.ok(pieces.some((piece) => piece.from === CUT && piece.grain > 0));
    assert.deepEqual(
      raw.map((piece) => piece.bucketSeconds),
      [900, 60],
    );
  });

  it('leaves the cover of a rollup that keeps every rung for every bucket as it was', () => {
    const window = { from: CUT - 3 * DAY + 7 * MINUTE + 13 * SECOND, to: null };
    assert.deepEqual(coverWindow(executionCounts, window, now), splitWindow(window, executionCounts.grains));
  });

  it('cuts at the start of the day eight days before now', () => {
    assert.equal(recentRungsFrom(Date.parse('2026-12-06T23:59:59.999Z')), Date.parse('2026-11-28T00:00:00Z'));
    assert.equal(recentRungsFrom(Date.parse('2026-12-07T00:00:00Z')), Date.parse('2026-11-29T00:00:00Z'));
  });
});

describe('the one-minute and five-minute duration rows, kept for recent buckets only', () => {
  let database: TestDatabase;
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database?.close());

  const rowsOf = async (organizationId: string, grain: number) =>
    (
      await database.db.query<{ bucket_start: Date }>(
        'select bucket_start from duration_rollups where organization_id = $1 and grain = $2 order by bucket_start',
        [organizationId, grain],
      )
    ).map((row) => row.bucket_start.getTime());
  const minuteRows = (organizationId: string) => rowsOf(organizationId, 60);
  const fiveMinuteRows = (organizationId: string) => rowsOf(organizationId, 300);
  /** Rows of the rungs kept for ever. */
  const coarseRows = async (organizationId: string) =>
    (
      await database.db.query<{ n: number }>(
        'select count(*)::int as n from duration_rollups where organization_id = $1 and grain > 300',
        [organizationId],
      )
    )[0]!.n;
  const fourOf = (buckets: readonly number[]) =>
    buckets.flatMap((bucket) => [bucket, bucket, bucket, bucket]);

  /** An execution and a call of `wf`, `ms` long, started at `at`. */
  const run = (organizationId: string, wf: string, at: number, ms: number) => {
    const uuid = randomUUID();
    return [
      execution(organizationId, wf, {
        uuid,
        status: 'SUCCESS',
        startedAt: iso(at),
        finishedAt: iso(at + ms),
      }),
      event(organizationId, uuid, {
        capabilityID: 'cap-a@1',
        status: 'COMPLETED',
        startedAt: iso(at + SECOND),
        finishedAt: iso(at + SECOND + ms),
      }),
    ];
  };

  it('are written by ingestion for buckets from the day before the cut on, and the coarser rows for every bucket', async () => {
    const t = await createTenant(database.db);
    const wf = workflow(t.organizationId);
    const times = [KEPT_FROM - 2 * DAY, KEPT_FROM - MINUTE, KEPT_FROM, CUT + 10 * MINUTE, LAST_HOUR];
    await ingest(database.db, [
      wf,
      ...times.flatMap((at, i) => run(t.organizationId, wf.uuid as string, at, 100 + i)),
    ]);
    // Per workflow and organization-wide, the execution's row and the call's: four rows a minute.
    const kept = times.filter((at) => at >= KEPT_FROM);
    assert.deepEqual(
      await minuteRows(t.organizationId),
      fourOf(kept.map((at) => Math.floor(at / MINUTE) * MINUTE)),
    );
    assert.deepEqual(
      await fiveMinuteRows(t.organizationId),
      fourOf(kept.map((at) => Math.floor(at / (5 * MINUTE)) * 5 * MINUTE)),
    );
    // Fifteen-minute rows for every bucket, the two before the margin included.
    const quarters = await rowsOf(t.organizationId, 900);
    assert.ok(quarters.includes(KEPT_FROM - 2 * DAY) && quarters.includes(KEPT_FROM - 15 * MINUTE));
    const drift = await rollupDrift(database.db);
    assert.equal(drift.actual, drift.expected);
  });

  it('that have aged past the margin are deleted in batches, and nothing else', async () => {
    const t = await createTenant(database.db);
    const wf = workflow(t.organizationId);
    // The newest rows today's: upkeep's now is at most the end of the organization's newest day,
    // and in the first hour after midnight the last hour is yesterday's (CUT is today's).
    const recent = [CUT + HOUR, Math.max(LAST_HOUR, Math.floor(Date.now() / DAY) * DAY)];
    await ingest(database.db, [
      wf,
      ...recent.flatMap((at) => run(t.organizationId, wf.uuid as string, at, 250)),
    ]);
    const coarse = await coarseRows(t.organizationId);
    // Rows an earlier version kept for every bucket: 12,000 minutes and 3,000 five-minute buckets
    // before the margin, more than two batches, and the bucket the margin starts at.
    await database.db.query(
      `insert into duration_rollups (organization_id, grain, bucket_start, workflow_uuid, capability_id, status, item_count)
       select $1, g.grain, to_timestamp(($2::int8 - m * g.grain * 1000) / 1000.0), $3, '', 'SUCCESS', 1
       from (values (60, 12000), (300, 3000)) g (grain, n) cross join lateral generate_series(0, g.n) m`,
      [t.organizationId, KEPT_FROM, wf.uuid],
    );
    assert.equal(await pruneRecentRungs(database.db), 15000);
    const kept = [KEPT_FROM, ...fourOf(recent)];
    assert.deepEqual(await minuteRows(t.organizationId), kept);
    assert.deepEqual(await fiveMinuteRows(t.organizationId), [
      KEPT_FROM,
      ...fourOf(recent.map((at) => Math.floor(at / (5 * MINUTE)) * 5 * MINUTE)),
    ]);
    assert.equal(await coarseRows(t.organizationId), coarse);
    // A clock five days ahead of the data deletes nothing more: "now" is at most the end of the
    // organization's newest day.
    assert.equal(await pruneRecentRungs(database.db, Date.now() + 5 * DAY), 0);
    assert.deepEqual(await minuteRows(t.organizationId), kept);
  });

  it("are kept for the last days of an organization whose data ended weeks ago, for readers on that data's clock", async () => {
    const t = await createTenant(database.db);
    const wf = workflow(t.organizationId);
    // The data ends 20 days before the cut; a writer and readers on its clock keep the one-minute
    // rows of its last nine days (here written directly, as that writer would).
    const end = CUT - 20 * DAY;
    await ingest(database.db, [wf, ...run(t.organizationId, wf.uuid as string, end + HOUR, 250)]);
    await database.db.query(
      `insert into duration_rollups (organization_id, grain, bucket_start, workflow_uuid, capability_id, status, item_count)
       values ($1, 60, $2, $3, '', 'SUCCESS', 1), ($1, 60, $4, $3, '', 'SUCCESS', 1)`,
      [t.organizationId, new Date(end - 3 * DAY), wf.uuid, new Date(end - 12 * DAY)],
    );
    await pruneRecentRungs(database.db);
    assert.deepEqual(await minuteRows(t.organizationId), [end - 3 * DAY]);
  });

  it('that have aged are deleted by a server soon after it starts', async () => {
    const t = await createTenant(database.db);
    const wf = workflow(t.organizationId);
    await ingest(database.db, [wf, ...run(t.organizationId, wf.uuid as string, LAST_HOUR, 250)]);
    await database.db.query(
      `insert into duration_rollups (organization_id, grain, bucket_start, workflow_uuid, capability_id, status, item_count)
       values ($1, 60, $2, $3, '', 'SUCCESS', 1), ($1, 60, $4, $3, '', 'SUCCESS', 1)`,
      [t.organizationId, new Date(KEPT_FROM - 5 * DAY), wf.uuid, new Date(CUT + DAY)],
    );
    const server = await startServer(database.db);
    try {
      const deadline = Date.now() + 30_000;
      while ((await minuteRows(t.organizationId)).length > 5 && Date.now() < deadline)
        await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(await minuteRows(t.organizationId), [
        CUT + DAY,
        ...Array.from({ length: 4 }, () => LAST_HOUR),
      ]);
    } finally {
      await server.close();
    }
  });
});
