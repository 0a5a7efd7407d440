import type { Transaction } from '../db/database.js';
import { floorTo, GRAINS } from '../modules/shared/buckets.js';
import { fromUnits, toUnits } from './decimal.js';

/** What the rollups count of one execution state. */
export interface CountedExecution {
  readonly organizationId: string;
  readonly workflowUUID: string;
  readonly status: string;
  readonly startedAt: Date;
  readonly executedInTee: boolean | null;
  readonly creditUsed: string | null;
}

interface Delta {
  count: number;
  success: number;
  failure: number;
  tee: number;
  credit: bigint;
}

/**
 * Signed contributions of execution states to the rollups (+1 for a state now stored, -1 for the
 * state it replaced), summed per rollup row here (credits exactly, see decimal.ts) and applied
 * with one statement per rollup table. The caller must hold the organization's ingestion lock and
 * have read the replaced states under it: the deltas are then exact whatever the arrival order,
 * so the rollups always equal a recount of the executions.
 */
export class RollupDeltas {
  private readonly workflows = new Map<string, Delta>();
  private readonly buckets = new Map<string, Delta>();

  get size(): number {
    return this.workflows.size;
  }

  add(execution: CountedExecution, sign: 1 | -1): void {
    const credit = BigInt(sign) * toUnits(execution.creditUsed);
    const tee = execution.executedInTee ? sign : 0;
    const success = execution.status === 'SUCCESS' ? sign : 0;
    const failure = execution.status === 'FAILURE' ? sign : 0;
    const scope = `${execution.organizationId}|${execution.workflowUUID}`;
    accumulate(this.workflows, scope, sign, success, failure, tee, credit);
    for (const grain of GRAINS) {
      const bucket = floorTo(execution.startedAt.getTime(), grain * 1000);
      accumulate(this.buckets, `${scope}|${grain}|${bucket}|${execution.status}`, sign, 0, 0, tee, credit);
    }
  }

  async apply(tx: Transaction): Promise<void> {
    if (this.size === 0) return;
    const scopes = [...this.workflows.keys()]
      .sort()
      .map((key) => [key.split('|'), this.workflows.get(key)!] as const);
    await tx.query(
      `insert into workflow_rollups (organization_id, workflow_uuid, execution_count, success_count, failure_count,
                                     tee_count, credit_used)
       select * from unnest($1::uuid[], $2::uuid[], $3::int8[], $4::int8[], $5::int8[], $6::int8[], $7::numeric[])
       on conflict (organization_id, workflow_uuid) do update set
         execution_count = workflow_rollups.execution_count + excluded.execution_count,
         success_count = workflow_rollups.success_count + excluded.success_count,
         failure_count = workflow_rollups.failure_count + excluded.failure_count,
         tee_count = workflow_rollups.tee_count + excluded.tee_count,
         credit_used = workflow_rollups.credit_used + excluded.credit_used`,
      [
        scopes.map(([[org]]) => org),
        scopes.map(([[, workflow]]) => workflow),
        scopes.map(([, d]) => d.count),
        scopes.map(([, d]) => d.success),
        scopes.map(([, d]) => d.failure),
        scopes.map(([, d]) => d.tee),
        scopes.map(([, d]) => fromUnits(d.credit)),
      ],
    );
    // Sorted keys: concurrent writers of different organizations touch rows in one order.
    const rows = [...this.buckets.keys()]
      .sort()
      .map((key) => [key.split('|'), this.buckets.get(key)!] as const);
    await tx.query(
      `insert into execution_rollups (organization_id, workflow_uuid, grain, bucket_start, status, execution_count,
                                      tee_count, credit_used)
       select * from unnest($1::uuid[], $2::uuid[], $3::int[], $4::timestamptz[], $5::text[], $6::int8[], $7::int8[],
                            $8::numeric[])
       on conflict (organization_id, grain, workflow_uuid, bucket_start, status) do update set
         execution_count = execution_rollups.execution_count + excluded.execution_count,
         tee_count = execution_rollups.tee_count + excluded.tee_count,
         credit_used = execution_rollups.credit_used + excluded.credit_used`,
      [
        rows.map(([[org]]) => org),
        rows.map(([[, workflow]]) => workflow),
        rows.map(([[, , grain]]) => Number(grain)),
        rows.map(([[, , , bucket]]) => new Date(Number(bucket))),
        rows.map(([[, , , , status]]) => status),
        rows.map(([, d]) => d.count),
        rows.map(([, d]) => d.tee),
        rows.map(([, d]) => fromUnits(d.credit)),
      ],
    );
  }
}

function accumulate(
  into: Map<string, Delta>,
  key: string,
  count: number,
  success: number,
  failure: number,
  tee: number,
  credit: bigint,
): void {
  const delta = into.get(key);
  if (!delta) {
    into.set(key, { count, success, failure, tee, credit });
    return;
  }
  delta.count += count;
  delta.success += success;
  delta.failure += failure;
  delta.tee += tee;
  delta.credit += credit;
}
