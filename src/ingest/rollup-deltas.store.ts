import type { Transaction } from '../db/database.js';
import { floorTo, GRAINS } from '../modules/shared/buckets.js';

/** What the rollups count of one execution state. */
export interface CountedExecution {
  readonly organizationId: string;
  readonly workflowUUID: string;
  readonly status: string;
  readonly startedAt: Date;
  readonly executedInTee: boolean | null;
  readonly creditUsed: string | null;
}

/**
 * Signed contributions of execution states to the rollups (+1 for a state now stored, -1 for the
 * state it replaced), applied with one statement per rollup table. The caller must hold the
 * organization's ingestion lock and have read the replaced states under it: the deltas are then
 * exact whatever the arrival order, so the rollups always equal a recount of the executions.
 */
export class RollupDeltas {
  private readonly org: string[] = [];
  private readonly workflow: string[] = [];
  private readonly status: string[] = [];
  private readonly startedAt: Date[] = [];
  private readonly sign: number[] = [];
  private readonly tee: number[] = [];
  private readonly credit: (string | null)[] = [];

  get size(): number {
    return this.sign.length;
  }

  add(execution: CountedExecution, sign: 1 | -1): void {
    this.org.push(execution.organizationId);
    this.workflow.push(execution.workflowUUID);
    this.status.push(execution.status);
    this.startedAt.push(execution.startedAt);
    this.sign.push(sign);
    this.tee.push(execution.executedInTee ? sign : 0);
    this.credit.push(execution.creditUsed);
  }

  async apply(tx: Transaction): Promise<void> {
    if (this.size === 0) return;
    const columns = [this.org, this.workflow, this.status, this.sign, this.tee, this.credit];
    await tx.query(
      `insert into workflow_rollups (organization_id, workflow_uuid, execution_count, success_count, failure_count,
                                     tee_count, credit_used)
       select org, workflow, sum(sign), coalesce(sum(sign) filter (where status = 'SUCCESS'), 0),
              coalesce(sum(sign) filter (where status = 'FAILURE'), 0), sum(tee), sum(sign * coalesce(credit, 0))
       from unnest($1::uuid[], $2::uuid[], $3::text[], $4::int[], $5::int[], $6::numeric[])
         as c(org, workflow, status, sign, tee, credit)
       group by org, workflow
       order by org, workflow
       on conflict (organization_id, workflow_uuid) do update set
         execution_count = workflow_rollups.execution_count + excluded.execution_count,
         success_count = workflow_rollups.success_count + excluded.success_count,
         failure_count = workflow_rollups.failure_count + excluded.failure_count,
         tee_count = workflow_rollups.tee_count + excluded.tee_count,
         credit_used = workflow_rollups.credit_used + excluded.credit_used`,
      columns,
    );
    const grains: number[] = [];
    const buckets: Date[] = [];
    const index: number[] = [];
    this.startedAt.forEach((startedAt, i) => {
      for (const grain of GRAINS) {
        grains.push(grain);
        buckets.push(new Date(floorTo(startedAt.getTime(), grain * 1000)));
        index.push(i + 1);
      }
    });
    await tx.query(
      `insert into execution_rollups (organization_id, grain, workflow_uuid, bucket_start, status, execution_count,
                                      tee_count, credit_used)
       select c.org, b.grain, c.workflow, b.bucket_start, c.status, sum(c.sign), sum(c.tee),
              sum(c.sign * coalesce(c.credit, 0))
       from unnest($7::int[], $8::int[], $9::timestamptz[]) as b(i, grain, bucket_start)
       join unnest($1::uuid[], $2::uuid[], $3::text[], $4::int[], $5::int[], $6::numeric[])
         with ordinality as c(org, workflow, status, sign, tee, credit, i) on c.i = b.i
       group by c.org, b.grain, c.workflow, b.bucket_start, c.status
       order by c.org, b.grain, c.workflow, b.bucket_start, c.status
       on conflict (organization_id, grain, workflow_uuid, bucket_start, status) do update set
         execution_count = execution_rollups.execution_count + excluded.execution_count,
         tee_count = execution_rollups.tee_count + excluded.tee_count,
         credit_used = execution_rollups.credit_used + excluded.credit_used`,
      [...columns, index, grains, buckets],
    );
  }
}
