import type { Queryable } from '../db/database.js';
import { LOWER_BOUNDS_SQL } from '../rollups/duration-bins.js';
import { EXECUTION_LEVEL } from '../rollups/durations.rollup.js';
import { ALL_TIME, DAY_GRAIN } from '../rollups/grains.js';

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
