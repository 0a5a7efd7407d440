import { defineRollup } from './rollup.js';

/** The `capability_id` of occurrences in an execution's own errors. */
export const EXECUTION_ERRORS = '';
/** The `capability_id` of rows that count an execution once whichever level its errors are at. */
export const ANY_LEVEL = '*';

/**
 * Error occurrences per group (fingerprint), workflow and level, in buckets of the execution's
 * start: the level is the execution's own errors (''), one capability's events, or any level
 * ('*'). `execution_count` counts executions with at least one error of the group at that level,
 * so the '*' rows count each execution once even when its errors repeat at several levels.
 */
export const errorGroupCounts = defineRollup({
  table: 'error_group_rollups',
  dimensions: { workflow_uuid: 'uuid', fingerprint: 'text', capability_id: 'text' },
  measures: { occurrences: 'count', execution_count: 'count' },
  genericPlans: 'all',
  // Driven by the error rows of the window's edge (dated by their execution's start, migration
  // 0008): only executions with errors are read, each probing its execution once for its
  // workflow (offset 0 keeps the planner from joining every execution by hash: it cannot know how
  // few rows an edge holds). Each row counts at its level, and each execution once at any level.
  raw: (sql) => `
    with edge as (
      select e.workflow_uuid, g.execution_uuid, g.fingerprint, g.capability_id, g.occurrences
      from execution_error_groups g
      cross join lateral (
        select x.workflow_uuid from executions x
        where x.organization_id = g.organization_id and x.started_at = g.started_at and x.uuid = g.execution_uuid
        offset 0
      ) e
      where g.organization_id = $1 and g.started_at >= p.lo and g.started_at < coalesce(p.hi, 'infinity')
        and ${sql.filter('fingerprint', 'g.fingerprint')}
        ${sql.scope('e.workflow_uuid')} and ${sql.filter('workflow_uuid', 'e.workflow_uuid')}
    )
    select workflow_uuid, fingerprint, capability_id, occurrences, 1::int8 as execution_count
    from edge where ${sql.filter('capability_id', 'capability_id')}
    union all
    select workflow_uuid, fingerprint, '${ANY_LEVEL}'::text, sum(occurrences)::int8, 1::int8
    from edge where ${sql.filter('capability_id', `'${ANY_LEVEL}'`)}
    group by workflow_uuid, execution_uuid, fingerprint`,
});
