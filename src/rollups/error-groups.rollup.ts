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
  // Driven by the executions of the window's edge, each probing its own groups (offset 0 keeps
  // the planner from joining every execution's groups by hash: it cannot know how few
  // executions an edge holds).
  raw: (sql) => `
    select e.workflow_uuid, g.fingerprint, g.capability_id, g.occurrences, 1::int8 as execution_count
    from executions e
    cross join lateral (
      select g.fingerprint, g.capability_id, g.occurrences from execution_error_groups g
      where g.organization_id = e.organization_id and g.execution_uuid = e.uuid
        and ${sql.filter('fingerprint', 'g.fingerprint')} and ${sql.filter('capability_id', 'g.capability_id')}
      offset 0
    ) g
    where e.organization_id = $1 ${sql.scope('e.workflow_uuid')}
      and e.started_at >= p.lo and e.started_at < coalesce(p.hi, 'infinity')
      and ${sql.filter('workflow_uuid', 'e.workflow_uuid')}
    union all
    select e.workflow_uuid, g.fingerprint, '${ANY_LEVEL}'::text, g.occurrences, 1::int8
    from executions e
    cross join lateral (
      select g.fingerprint, sum(g.occurrences)::int8 as occurrences from execution_error_groups g
      where g.organization_id = e.organization_id and g.execution_uuid = e.uuid
        and ${sql.filter('fingerprint', 'g.fingerprint')}
      group by g.fingerprint
    ) g
    where e.organization_id = $1 ${sql.scope('e.workflow_uuid')}
      and e.started_at >= p.lo and e.started_at < coalesce(p.hi, 'infinity')
      and ${sql.filter('workflow_uuid', 'e.workflow_uuid')} and ${sql.filter('capability_id', `'${ANY_LEVEL}'`)}`,
});
