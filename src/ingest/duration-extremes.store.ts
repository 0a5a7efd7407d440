import type { Transaction } from '../db/database.js';
import { callOutcomeSql, durationMsSql, durations } from '../rollups/durations.rollup.js';
import { EVERY_WORKFLOW, recentRowsFrom } from '../rollups/rollup.js';
import type { DeltaRow } from '../rollups/rollup-deltas.js';

type DurationRow = DeltaRow<(typeof durations.dimensionNames)[number]>;

/** The keyed rows ($1-$5, one array a dimension) as `k`. */
const KEYS = `with k as (
    select * from unnest($1::uuid[], $2::timestamptz[], $3::uuid[], $4::text[], $5::text[])
      as k(organization_id, bucket_start, workflow_uuid, capability_id, status)
  ),`;

/** Writes the extremes computed in `x` into the rows of `grain` (an SQL expression) it names. */
const setExtremes = (
  grain: string,
) => `update ${durations.table} r set duration_min_ms = x.lo, duration_max_ms = x.hi
  from x
  where r.organization_id = x.organization_id and r.grain = ${grain} and r.bucket_start = x.bucket_start
    and r.workflow_uuid = x.workflow_uuid and r.capability_id = x.capability_id and r.status = x.status`;

/**
 * Per-workflow rows ($6: their grain) whose bucket has no finer rows: the extremes of the raw
 * executions or calls of their bucket.
 */
const FROM_RAW = `
  ${KEYS}
  x as (
    select k.*, m.lo, m.hi from k cross join lateral (
      select min(d.ms) as lo, max(d.ms) as hi from (
        select ${durationMsSql('e.started_at', 'e.finished_at')} as ms
        from executions e
        where k.capability_id = '' and e.organization_id = k.organization_id and e.workflow_uuid = k.workflow_uuid
          and e.status = k.status and e.finished_at is not null
          and e.started_at >= k.bucket_start and e.started_at < k.bucket_start + make_interval(secs => $6::int)
        union all
        select ${durationMsSql('v.started_at', 'v.finished_at')}
        from execution_events v
        join executions e on e.organization_id = v.organization_id and e.uuid = v.workflow_execution_uuid
        where k.capability_id <> '' and v.organization_id = k.organization_id and e.workflow_uuid = k.workflow_uuid
          and v.capability_id = k.capability_id and v.finished_at is not null
          and v.started_at >= k.bucket_start and v.started_at < k.bucket_start + make_interval(secs => $6::int)
          and ${callOutcomeSql('v')} = k.status
      ) d
    ) m
  )
  ${setExtremes('$6::int')}`;

/** Coarser per-workflow rows ($6: their grain): the extremes of the finer rows ($7: their grain) they cover. */
const FROM_FINER = `
  ${KEYS}
  x as (
    select k.*, m.lo, m.hi from k cross join lateral (
      select min(f.duration_min_ms) as lo, max(f.duration_max_ms) as hi from ${durations.table} f
      where f.organization_id = k.organization_id and f.grain = $7::int
        and f.workflow_uuid = k.workflow_uuid and f.capability_id = k.capability_id and f.status = k.status
        and f.bucket_start >= k.bucket_start and f.bucket_start < k.bucket_start + make_interval(secs => $6::int)
    ) m
  )
  ${setExtremes('$6::int')}`;

/** Organization-wide rows ($6: their grain): the extremes of the visible workflows' rows. */
const FROM_WORKFLOWS = `
  ${KEYS}
  x as (
    select k.*, m.lo, m.hi from k cross join lateral (
      select min(f.duration_min_ms) as lo, max(f.duration_max_ms) as hi from ${durations.table} f
      where f.organization_id = k.organization_id and f.grain = $6::int and f.bucket_start = k.bucket_start
        and f.capability_id = k.capability_id and f.status = k.status and f.workflow_uuid <> '${EVERY_WORKFLOW}'
        and f.workflow_uuid in (select uuid from workflows w where w.organization_id = k.organization_id)
    ) m
  )
  ${setExtremes('$6::int')}`;

function keyParams(rows: readonly DurationRow[]): unknown[] {
  return [
    rows.map((r) => r.key.organizationId),
    rows.map((r) => new Date(r.key.bucketStart)),
    rows.map((r) => r.key.dimensions.workflow_uuid),
    rows.map((r) => r.key.dimensions.capability_id),
    rows.map((r) => r.key.dimensions.status),
  ];
}

/**
 * A removed duration may have been a row's min or max, which adding cannot undo: such rows get
 * their extremes again from what they stand for, finest first (raw rows, then the finest rows,
 * then the workflows' rows for the organization-wide ones). Removals are rare (a finished
 * execution corrected, moved or replaced), and each recount covers one bucket.
 */
export async function refreshDurationExtremes(
  tx: Transaction,
  stale: readonly DurationRow[],
  now: number = Date.now(),
): Promise<void> {
  if (stale.length === 0) return;
  const perWorkflow = stale.filter((r) => r.key.dimensions.workflow_uuid !== EVERY_WORKFLOW);
  const everyWorkflow = stale.filter((r) => r.key.dimensions.workflow_uuid === EVERY_WORKFLOW);
  // A bucket's finest rows: the finest rung's or, where the finer rungs are kept for recent
  // buckets only and this bucket is older, those of the first rung kept for every bucket
  // (grains.ts, recentRungsKeptFrom).
  const recent = durations.recentRungs;
  const keptFrom = recentRowsFrom(durations, now);
  const finestOf = (row: DurationRow) =>
    row.key.bucketStart >= keptFrom ? durations.grains[0]! : durations.grains[recent]!;
  for (const grain of durations.grains) {
    const rows = perWorkflow.filter((r) => r.key.grain === grain.seconds);
    const fromRaw = rows.filter((r) => grain.seconds <= finestOf(r).seconds);
    if (fromRaw.length > 0) await tx.query(FROM_RAW, [...keyParams(fromRaw), grain.seconds]);
    for (const finer of new Set([durations.grains[0]!, durations.grains[recent]!])) {
      const fromFiner = rows.filter((r) => finestOf(r) === finer && grain.seconds > finer.seconds);
      if (fromFiner.length > 0)
        await tx.query(FROM_FINER, [...keyParams(fromFiner), grain.seconds, finer.seconds]);
    }
  }
  for (const grain of durations.grains) {
    const rows = everyWorkflow.filter((r) => r.key.grain === grain.seconds);
    if (rows.length > 0) await tx.query(FROM_WORKFLOWS, [...keyParams(rows), grain.seconds]);
  }
}
