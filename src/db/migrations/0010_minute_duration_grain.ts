/**
 * The duration rollups gain a one-minute grain (src/rollups/grains.ts), below their five-minute
 * one, so that the raw edges of a window, which are read call by call, are under a minute each
 * instead of under five: the edges were the part of a window's cost that grew with the data.
 *
 * A one-minute row cannot be derived from the five-minute rows, so the rows are built from the raw
 * executions and calls, as ingestion keeps them (durations.rollup.ts): per workflow, the finished
 * executions (capability '') and the calls of stored executions (their outcome as status), with
 * the count, the finished count, the sum, the extremes and the histogram of their durations; then
 * the organization-wide rows, which sum the visible workflows. Each histogram is written as
 * ingestion writes it, `[lo:hi]={...}` from its first bin to its last with zeros between. The rows
 * are deleted first: migration 0003's recount, which runs today's ingestion code, already writes
 * them when an older database upgrades, and building them again gives the same rows.
 */

import type { Transaction } from '../database.js';

// Frozen as version 10 had them (a migration never imports live code): the rollup table, the
// organization-wide rows' workflow, a duration in whole ms, a call's outcome, and the histogram's
// bin bounds (src/rollups/duration-bins.ts), which test/db/migrations.test.ts holds equal.
const GRAIN = 60;
const TABLE = 'duration_rollups';
const EVERY_WORKFLOW = '00000000-0000-0000-0000-000000000000';
const durationMsSql = (from: string, to: string) =>
  `greatest(0, (date_part('epoch', ${to} - ${from}) * 1000)::int8)`;
const callOutcomeSql = (event: string) =>
  `case when coalesce(jsonb_array_length(${event}.errors), 0) > 0 or ${event}.status not in ('COMPLETED', 'SUCCESS')
        then 'FAILURE' else 'SUCCESS' end`;

/**
 * The bin bounds: every ms below 100, the Renard R10 series' round numbers of every decade up to
 * 10^10 ms, and from 100 ms steps of 2% (rounded down) up to 10^10 ms.
 */
export const LOWER_BOUNDS_SQL = `(
  select array_agg(bound order by bound) from (
    select generate_series(0, 99)::int8 as bound
    union
    select round(step * 10::numeric ^ decade)::int8
      from unnest('{1,1.25,1.6,2,2.5,3.2,4,5,6.3,8}'::numeric[]) step, generate_series(0, 10) decade
      where round(step * 10::numeric ^ decade) <= 10000000000
    union
    select 0
    union
    (with recursive geometric(ms) as (
      select 100::int8 union all select ms + floor(ms * 0.02)::int8 from geometric where ms + floor(ms * 0.02) <= 10000000000
    ) select ms from geometric)
  ) bounds
)`;

/**
 * The minute rows of the binned items in `minute_bins`, per workflow or (EVERY_WORKFLOW) over the
 * visible ones: each bin's counts summed first, then one row per key with its histogram's text.
 */
function insertRows(workflow: 'per-workflow' | 'every-workflow'): string {
  const workflowColumn = workflow === 'per-workflow' ? 'workflow_uuid' : `'${EVERY_WORKFLOW}'::uuid`;
  const key = 'organization_id, bucket_start, workflow_uuid, capability_id, status';
  // Renamed in a subquery first: a GROUP BY name means the input column before an output alias.
  return `
    with binned as (
      select organization_id, bucket_start, ${workflowColumn} as workflow_uuid, capability_id, status, bin,
             items, finished, total, lo, hi
      from minute_bins
      ${workflow === 'per-workflow' ? '' : 'where visible'}
    ),
    bins as (
      select ${key}, bin, sum(items) as items, sum(finished) as finished, sum(total) as total, min(lo) as lo,
             max(hi) as hi
      from binned
      group by ${key}, bin
    ),
    spaced as (
      select *, coalesce(bin - lag(bin) over (partition by ${key} order by bin) - 1, 0) as gap from bins
    )
    insert into ${TABLE}
      (organization_id, grain, bucket_start, workflow_uuid, capability_id, status, item_count, finished_count,
       duration_sum_ms, duration_min_ms, duration_max_ms, duration_bins)
    select organization_id, ${GRAIN}, bucket_start, workflow_uuid, capability_id, status,
           sum(items), sum(finished), sum(total), min(lo), max(hi),
           case when count(bin) = 0 then null else format('[%s:%s]={%s}', min(bin), max(bin),
             string_agg(repeat('0,', gap::int) || finished, ',' order by bin) filter (where bin is not null))::int8[] end
    from spaced
    group by ${key}`;
}

export async function up(tx: Transaction): Promise<void> {
  await tx.query(`delete from ${TABLE} where grain = ${GRAIN}`);
  await tx.query(`
    create temporary table minute_bins on commit drop as
    with items as (
      select e.organization_id, e.workflow_uuid, ''::text as capability_id, e.status, e.started_at,
             ${durationMsSql('e.started_at', 'e.finished_at')} as ms
      from executions e
      where e.finished_at is not null
      union all
      select v.organization_id, e.workflow_uuid, v.capability_id, ${callOutcomeSql('v')}, v.started_at,
             case when v.finished_at is null then null else ${durationMsSql('v.started_at', 'v.finished_at')} end
      from execution_events v
      join executions e on e.organization_id = v.organization_id and e.uuid = v.workflow_execution_uuid
    )
    select organization_id, date_bin(interval '${GRAIN} seconds', started_at, timestamptz 'epoch') as bucket_start,
           workflow_uuid, capability_id, status, width_bucket(ms, ${LOWER_BOUNDS_SQL}) - 1 as bin,
           count(*) as items, count(ms) as finished, coalesce(sum(ms), 0) as total, min(ms) as lo, max(ms) as hi,
           exists (select 1 from workflows w where w.organization_id = i.organization_id and w.uuid = i.workflow_uuid)
             as visible
    from items i
    group by 1, 2, 3, 4, 5, 6`);
  await tx.query(insertRows('per-workflow'));
  await tx.query(insertRows('every-workflow'));
}
