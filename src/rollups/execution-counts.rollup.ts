import { defineRollup } from './rollup.js';

/**
 * Executions counted per workflow and status: the counts, TEE share and credits behind every
 * aggregate of the hosted API (workflow totals, activity, deployment reigns, list counts, deep
 * pages). Kept at every grain and as an all-time total per workflow and status (the inventory).
 */
export const executionCounts = defineRollup({
  table: 'execution_rollups',
  dimensions: { workflow_uuid: 'uuid', status: 'text' },
  measures: { execution_count: 'count', tee_count: 'count', credit_used: 'decimal' },
  allTime: true,
  // Organization-wide: the 30-day activity was 15-18% dearer with a generic plan.
  genericPlans: 'per-workflow',
  raw: (sql) => `
    select e.workflow_uuid, e.status, 1::int8 as execution_count,
           case when e.executed_in_tee then 1 else 0 end::int8 as tee_count,
           coalesce(e.credit_used, 0) as credit_used
    from executions e
    where e.organization_id = $1 ${sql.scope('e.workflow_uuid')}
      and e.started_at >= p.lo and e.started_at < coalesce(p.hi, 'infinity')
      and ${sql.filter('workflow_uuid', 'e.workflow_uuid')} and ${sql.filter('status', 'e.status')}`,
});
