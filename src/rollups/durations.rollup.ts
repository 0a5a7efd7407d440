import { executionEvents, executions } from '../db/tables.js';
import { LOWER_BOUNDS_SQL } from './duration-bins.js';
import { GRAINS } from './grains.js';
import { defineRollup, type RawSql } from './rollup.js';

/** The `capability_id` of an execution's own duration rows. */
export const EXECUTION_LEVEL = '';

/** A capability call's outcome, as its rows' `status`: it fails with an error or a status other than these. */
export const SUCCESSFUL_CALL_STATUSES = ['COMPLETED', 'SUCCESS'] as const;

/** A call's outcome in SQL, for the events table aliased `event` (stored-events.store.ts has it in TypeScript). */
export const callOutcomeSql = (event: string) =>
  `case when coalesce(jsonb_array_length(${event}.errors), 0) > 0
             or ${event}.status not in (${SUCCESSFUL_CALL_STATUSES.map((s) => `'${s}'`).join(', ')})
        then 'FAILURE' else 'SUCCESS' end`;

/**
 * Whole milliseconds from `from` to `to` in SQL, never negative. `date_part` gives the seconds as
 * a double, where `extract` gives a numeric and cost about 1 µs a row more in a window's edges.
 * Stored times have millisecond precision, so for any duration under a thousand years the product
 * is within a twentieth of a millisecond of a whole number and rounds to ingestion's count
 * (test/db/duration-ms.test.ts compares them).
 */
export const durationMsSql = (from: string, to: string) =>
  `greatest(0, (date_part('epoch', ${to} - ${from}) * 1000)::int8)`;

/**
 * Whether a read asks for capability calls (any capability_id other than ''): a condition on the
 * parameters alone, which PostgreSQL checks once, before any scan of the calls' table.
 */
const readsCalls = (sql: Pick<RawSql, 'allowed'>) =>
  `(${sql.allowed('capability_id')} is null or exists (select from unnest(${sql.allowed('capability_id')}) a where a <> ''))`;

/**
 * Durations and calls: per workflow and status, the finished executions (capability '') and the
 * capability calls (capability_id, status SUCCESS or FAILURE) started in each bucket, with a
 * log-scale histogram of their durations (duration-bins.ts), the exact sum, min and max. Rows with
 * `workflow_uuid` EVERY_WORKFLOW sum the visible workflows, so that organization-wide statistics
 * read one row per bucket and status, not one per workflow.
 */
export const durations = defineRollup({
  table: 'duration_rollups',
  // Every rung: a histogram row is dear to read, so fewer buckets per window pay for the extra
  // rows ingestion writes (migration 0009); and the one-minute rung (migration 0010) bounds the
  // raw edges of a window, read call by call, to under a minute each. The one-minute and
  // five-minute rungs are most of the table's rows, so they are kept for the last days only
  // (grains.ts, RECENT_RUNGS_DAYS), the ones most windows end in; older windows are read from
  // fifteen-minute and coarser buckets, their edges under fifteen minutes (issue 45).
  grains: GRAINS,
  recentRungs: 2,
  genericPlans: 'all',
  dimensions: { workflow_uuid: 'uuid', capability_id: 'text', status: 'text' },
  measures: {
    item_count: 'count',
    finished_count: 'count',
    duration_sum_ms: 'count',
    duration_min_ms: 'min',
    duration_max_ms: 'max',
    duration_bins: 'histogram',
  },
  rawTables: [
    [executions.name, 'started_at'],
    [executionEvents.name, 'started_at', readsCalls],
  ],
  raw: (sql) => `
    select e.workflow_uuid, ''::text as capability_id, e.status,
           1::int8 as item_count, 1::int8 as finished_count,
           d.ms as duration_sum_ms, d.ms as duration_min_ms, d.ms as duration_max_ms,
           width_bucket(d.ms, ${LOWER_BOUNDS_SQL}) - 1 as duration_bins_lo, '1' as duration_bins
    from executions e
    cross join lateral (select ${durationMsSql('e.started_at', 'e.finished_at')} as ms) d
    where e.organization_id = $1 ${sql.scope('e.workflow_uuid')}
      and e.started_at >= p.lo and e.started_at < coalesce(p.hi, 'infinity') and e.finished_at is not null
      and ${sql.filter('capability_id', "''")} and ${sql.filter('workflow_uuid', 'e.workflow_uuid')}
      and ${sql.filter('status', 'e.status')}
    union all
    select c.workflow_uuid, c.capability_id, c.status,
           1::int8, (c.ms is not null)::int::int8, coalesce(c.ms, 0), c.ms, c.ms,
           width_bucket(c.ms, ${LOWER_BOUNDS_SQL}) - 1, case when c.ms is null then null else '1' end
    from (
      select e.workflow_uuid, v.capability_id, ${callOutcomeSql('v')} as status,
             case when v.finished_at is null then null else ${durationMsSql('v.started_at', 'v.finished_at')} end as ms
      from execution_events v
      -- One probe per call (the limit keeps the planner from joining all executions by hash: it
      -- cannot know how few calls a window's edge holds).
      cross join lateral (
        select x.workflow_uuid from executions x
        where x.organization_id = v.organization_id and x.uuid = v.workflow_execution_uuid limit 1
      ) e
      where v.organization_id = $1 and v.started_at >= p.lo and v.started_at < coalesce(p.hi, 'infinity')
        -- Read no calls when only executions are asked for (capability '').
        and ${readsCalls(sql)}
        ${sql.scope('e.workflow_uuid')}
        and ${sql.filter('capability_id', 'v.capability_id')} and ${sql.filter('workflow_uuid', 'e.workflow_uuid')}
      -- Keeps the planner from pulling the subquery up: pulled up, its outcome and duration are
      -- computed once for each of their five uses above, a fifth of the edges' cost.
      offset 0
    ) c
    where c.capability_id <> '' and ${sql.filter('status', 'c.status')}`,
});
