import type { Queryable } from '../db/database.js';
import { fromUnits, toUnits } from '../lib/decimal.js';
import { executionCounts } from './execution-counts.rollup.js';
import { ALL_TIME } from './grains.js';
import { isVisibleWorkflow } from './rollup.js';
import { type RollupWindow, readWindows } from './rollup-reader.store.js';

export interface WindowCounts {
  readonly total: number;
  readonly byStatus: ReadonlyMap<string, number>;
  readonly tee: number;
  /** Sum of creditUsed as a decimal string without trailing zeros. */
  readonly credit: string;
}

export const EMPTY_COUNTS: WindowCounts = Object.freeze({
  total: 0,
  byStatus: new Map(),
  tee: 0,
  credit: '0',
});

/** Counts of (status, count, tee, credit) rows, summed across statuses. */
function countsOf(
  rows: ReadonlyArray<{ status: string; count: number; tee: number; credit: string }>,
): WindowCounts {
  if (rows.length === 0) return EMPTY_COUNTS;
  const byStatus = new Map<string, number>();
  let total = 0;
  let tee = 0;
  let credit = 0n;
  for (const row of rows) {
    byStatus.set(row.status, (byStatus.get(row.status) ?? 0) + row.count);
    total += row.count;
    tee += row.tee;
    credit += toUnits(row.credit);
  }
  return { total, byStatus, tee, credit: fromUnits(credit) };
}

/**
 * Counts executions in many windows with at most two statements (rollups for the aligned middle
 * of each window, index scans of executions for its edges; see readWindows). Only executions of
 * workflows that exist are counted, like every read. `statuses` restricts to those statuses.
 */
export async function countWindows(
  db: Queryable,
  organizationId: string,
  windows: readonly RollupWindow[],
  statuses?: readonly string[],
): Promise<Map<number, WindowCounts>> {
  const rows = await readWindows(db, executionCounts, organizationId, windows, {
    where: { status: statuses ?? null },
    groupBy: ['status'],
  });
  const byWindow = new Map<number, Array<{ status: string; count: number; tee: number; credit: string }>>();
  for (const row of rows) {
    const list = byWindow.get(row.key) ?? [];
    list.push({
      status: row.dimensions.status,
      count: row.values.execution_count,
      tee: row.values.tee_count,
      credit: row.values.credit_used,
    });
    byWindow.set(row.key, list);
  }
  return new Map(windows.map((window) => [window.key, countsOf(byWindow.get(window.key) ?? [])]));
}

/** All-time counts of many workflows, from the all-time rows: one index probe per workflow. */
export async function allTimeCounts(
  db: Queryable,
  organizationId: string,
  workflowUuids: readonly string[],
): Promise<Map<string, WindowCounts>> {
  const rows = await db.query<{
    workflow_uuid: string;
    status: string;
    n: number;
    tee: number;
    credit: string;
  }>(
    `select workflow_uuid, status, execution_count as n, tee_count as tee, trim_scale(credit_used)::text as credit
     from ${executionCounts.table}
     where organization_id = $1 and grain = ${ALL_TIME} and workflow_uuid = any($2::uuid[])`,
    [organizationId, workflowUuids],
  );
  const byWorkflow = new Map<string, Array<{ status: string; count: number; tee: number; credit: string }>>();
  for (const row of rows) {
    const list = byWorkflow.get(row.workflow_uuid) ?? [];
    list.push({ status: row.status, count: row.n, tee: row.tee, credit: row.credit });
    byWorkflow.set(row.workflow_uuid, list);
  }
  return new Map(workflowUuids.map((uuid) => [uuid, countsOf(byWorkflow.get(uuid) ?? [])]));
}

export interface BucketTotal {
  readonly start: number;
  readonly count: number;
}

/**
 * Execution counts per rollup bucket of one grain in [from, to), newest first or oldest first,
 * for one workflow or every visible workflow, optionally restricted to some statuses.
 */
export async function bucketTotals(
  db: Queryable,
  organizationId: string,
  query: {
    grain: number;
    workflowUuid: string | null;
    statuses: readonly string[] | null;
    from: Date;
    to: Date | null;
    newestFirst: boolean;
  },
): Promise<BucketTotal[]> {
  const rows = await db.query<{ bucket_start: Date; n: number }>(
    `select r.bucket_start, sum(r.execution_count)::int8 as n
     from ${executionCounts.table} r
     where r.organization_id = $1 and r.grain = $2
       and r.bucket_start >= $3 and r.bucket_start < coalesce($4::timestamptz, 'infinity')
       and ($5::uuid is null or r.workflow_uuid = $5)
       and ($6::text[] is null or r.status = any($6))
       and ${isVisibleWorkflow('r.workflow_uuid', 'hashed')}
     group by r.bucket_start
     having sum(r.execution_count) > 0
     order by r.bucket_start ${query.newestFirst ? 'desc' : 'asc'}`,
    [organizationId, query.grain, query.from, query.to, query.workflowUuid, query.statuses],
  );
  return rows.map((row) => ({ start: row.bucket_start.getTime(), count: row.n }));
}
