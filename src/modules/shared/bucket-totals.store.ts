import type { Queryable } from '../../db/database.js';

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
     from execution_rollups r
     where r.organization_id = $1 and r.grain = $2
       and r.bucket_start >= $3 and r.bucket_start < coalesce($4::timestamptz, 'infinity')
       and ($5::uuid is null or r.workflow_uuid = $5)
       and ($6::text[] is null or r.status = any($6))
       and r.workflow_uuid in (select uuid from workflows where organization_id = $1)
     group by r.bucket_start
     having sum(r.execution_count) > 0
     order by r.bucket_start ${query.newestFirst ? 'desc' : 'asc'}`,
    [organizationId, query.grain, query.from, query.to, query.workflowUuid, query.statuses],
  );
  return rows.map((row) => ({ start: row.bucket_start.getTime(), count: row.n }));
}
