import type { Queryable } from '../db/database.js';
import { LOWER_BOUNDS_SQL } from '../rollups/duration-bins.js';
import { EXECUTION_LEVEL } from '../rollups/durations.rollup.js';
import { ALL_TIME, DAY_GRAIN } from '../rollups/grains.js';
import { EVERY_WORKFLOW } from '../rollups/rollup.js';

/** Per organization, workflow and status: all-time executions and credits (the all-time rollup rows). */
export interface ExecutionTotalRow {
  readonly organization_id: string;
  readonly workflow_uuid: string;
  readonly workflow_name: string;
  readonly status: string;
  readonly n: number;
  /** Sum of creditUsed, a decimal string. */
  readonly credit: string;
}

/**
 * All-time counts of every visible workflow: one index range of the all-time rows per
 * organization (grain ALL_TIME), never the executions themselves.
 */
export function readExecutionTotals(db: Queryable): Promise<ExecutionTotalRow[]> {
  return db.query<ExecutionTotalRow>(
    `select r.organization_id, r.workflow_uuid, w.name as workflow_name, r.status,
            r.execution_count as n, trim_scale(r.credit_used)::text as credit
     from organizations o
     join execution_rollups r on r.organization_id = o.id and r.grain = ${ALL_TIME}
     join workflows w on w.organization_id = r.organization_id and w.uuid = r.workflow_uuid
     where r.execution_count > 0
     order by r.organization_id, r.workflow_uuid, r.status`,
  );
}

/** Finished executions of one organization and workflow (null: every workflow not kept) in one bucket. */
export interface DurationBucketRow {
  readonly organization_id: string;
  readonly workflow_uuid: string | null;
  /** Index into the bounds asked for; the bounds' length means +Inf. */
  readonly bucket: number;
  readonly n: number;
}

export interface DurationSumRow {
  readonly organization_id: string;
  readonly workflow_uuid: string | null;
  readonly n: number;
  readonly sum_ms: number;
}

/**
 * Execution durations of all time, summed from the daily duration rollups (their log-scale bins,
 * see duration-bins.ts) into buckets whose bounds `boundsMs` must be bin bounds: a duration counts
 * in the first bucket whose bound is greater than it. Workflows outside `kept` are summed under
 * a null workflow.
 */
export async function readDurationHistograms(
  db: Queryable,
  boundsMs: readonly number[],
  kept: ReadonlyArray<{ organizationId: string; workflowUuid: string }>,
): Promise<{ buckets: DurationBucketRow[]; sums: DurationSumRow[] }> {
  const keptParams = [kept.map((k) => k.organizationId), kept.map((k) => k.workflowUuid)];
  const rows = (lateral: string) => `
     from organizations o
     join duration_rollups r on r.organization_id = o.id and r.grain = ${DAY_GRAIN.seconds}
     join workflows w on w.organization_id = r.organization_id and w.uuid = r.workflow_uuid
     left join unnest($1::uuid[], $2::uuid[]) as k (organization_id, workflow_uuid)
       on k.organization_id = r.organization_id and k.workflow_uuid = r.workflow_uuid
     ${lateral}
     where r.capability_id = '${EXECUTION_LEVEL}' and r.finished_count > 0`;
  const [buckets, sums] = await Promise.all([
    // Bin i (0-based) of a row's array, whose lower bound is array_lower, ends at bound i + 1:
    // the 1-based element array_lower + ordinality + 1. Its durations are below that end, so
    // they belong to the first bucket bound at or above it (none past the last bound: +Inf).
    db.query<DurationBucketRow>(
      `select r.organization_id, k.workflow_uuid,
              coalesce(width_bucket(b.bin_end - 1, $3::int8[]), cardinality($3::int8[])) as bucket,
              sum(b.n)::int8 as n
       ${rows(`cross join lateral (
         select u.n, (${LOWER_BOUNDS_SQL})[array_lower(r.duration_bins, 1) + u.i::int + 1] as bin_end
         from unnest(r.duration_bins) with ordinality as u (n, i)
         where u.n > 0
       ) b`)}
       group by 1, 2, 3`,
      [...keptParams, boundsMs],
    ),
    db.query<DurationSumRow>(
      `select r.organization_id, k.workflow_uuid, sum(r.finished_count)::int8 as n,
              sum(r.duration_sum_ms)::int8 as sum_ms
       ${rows('')}
       group by 1, 2`,
      keptParams,
    ),
  ]);
  return { buckets, sums };
}

/** Each organization's freshness mark (contract section 4's `dataAsOf`). */
export function readDataAsOf(db: Queryable): Promise<Array<{ organization_id: string; data_as_of: Date }>> {
  return db.query(
    `select w.organization_id, w.data_as_of
     from ingest_watermarks w
     join organizations o on o.id = w.organization_id`,
  );
}

/** Per service level objective: its finished executions of all time and the good ones among them. */
export interface ObjectiveTotalRow {
  readonly organization_id: string;
  readonly objective: string;
  readonly total: number;
  readonly good: number;
}

/**
 * All-time counts of every objective (contract section 7), read from the rollups: SUCCESS
 * objectives from the all-time execution counts (finished: SUCCESS or FAILURE; good: SUCCESS),
 * LATENCY objectives from the daily duration histograms of finished executions (good: the bins
 * below the threshold, a bin bound, so exactly). One index range per objective.
 */
export async function readObjectiveTotals(db: Queryable): Promise<ObjectiveTotalRow[]> {
  const [success, latency] = await Promise.all([
    db.query<ObjectiveTotalRow>(
      `select o.organization_id, o.id as objective,
              coalesce(sum(r.execution_count), 0)::int8 as total,
              coalesce(sum(r.execution_count) filter (where r.status = 'SUCCESS'), 0)::int8 as good
       from service_level_objectives o
       left join execution_rollups r on r.organization_id = o.organization_id and r.grain = ${ALL_TIME}
         and r.status in ('SUCCESS', 'FAILURE')
         and (r.workflow_uuid = o.workflow_uuid
              or (o.workflow_uuid is null
                  and r.workflow_uuid in (select w.uuid from workflows w where w.organization_id = o.organization_id)))
       where o.indicator = 'SUCCESS'
       group by o.organization_id, o.id`,
    ),
    db.query<ObjectiveTotalRow>(
      `select o.organization_id, o.id as objective,
              coalesce(sum(r.finished_count), 0)::int8 as total, coalesce(sum(b.good), 0)::int8 as good
       from service_level_objectives o
       left join duration_rollups r on r.organization_id = o.organization_id and r.grain = ${DAY_GRAIN.seconds}
         and r.capability_id = '${EXECUTION_LEVEL}' and r.status in ('SUCCESS', 'FAILURE')
         and r.workflow_uuid = coalesce(o.workflow_uuid, '${EVERY_WORKFLOW}'::uuid)
       left join lateral (
         select sum(u.n) as good from unnest(r.duration_bins) with ordinality as u (n, i)
         where array_lower(r.duration_bins, 1) + u.i::int - 1 < width_bucket(o.threshold_ms, ${LOWER_BOUNDS_SQL}) - 1
       ) b on true
       where o.indicator = 'LATENCY'
       group by o.organization_id, o.id`,
    ),
  ]);
  return [...success, ...latency];
}
