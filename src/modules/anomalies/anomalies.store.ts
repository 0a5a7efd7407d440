/**
 * What anomaly detection reads: per bucket (and per workflow when asked), executions started,
 * finished ones, failures and the duration bins, from the rollups with exact edges (O(buckets)),
 * and when each workflow's first execution started (one index probe per workflow).
 */
import { genericPlan, type Queryable } from '../../db/database.js';
import { BinCounts } from '../../rollups/bin-counts.js';
import { durations, EXECUTION_LEVEL } from '../../rollups/durations.rollup.js';
import { executionCounts } from '../../rollups/execution-counts.rollup.js';
import { type RollupWindow, readWindows } from '../../rollups/rollup-reader.store.js';
import type { KeptWindow } from '../../rollups/window-cache.js';

const FINISHED = ['SUCCESS', 'FAILURE'];

export interface BucketFigures {
  /** Executions started, any status. */
  total: number;
  /** Finished ones: SUCCESS or FAILURE. */
  finished: number;
  failures: number;
  /** Durations of the finished executions, with their exact extremes. */
  durationCount: number;
  bins: BinCounts;
  minMs: number | null;
  maxMs: number | null;
}

const emptyFigures = (): BucketFigures => ({
  total: 0,
  finished: 0,
  failures: 0,
  durationCount: 0,
  bins: new BinCounts(),
  minMs: null,
  maxMs: null,
});

/** The rollups bucketFigures reads: the durations' only `withDurations`. */
export const bucketRollups = (withDurations: boolean) =>
  withDurations ? [executionCounts, durations] : [executionCounts];

/** The key of the figures of the scope as a whole: '' (a workflow's own figures are keyed by its uuid). */
export const WHOLE_SCOPE = '';

/**
 * Figures of each bucket (a window, keyed) of the scope: one workflow's, or the organization's
 * visible workflows together. With `perWorkflow` (organization scope only), each workflow's as
 * well. Durations are read only when `withDurations`. Two statements at most.
 */
export async function bucketFigures(
  db: Queryable,
  organizationId: string,
  query: {
    readonly buckets: readonly KeptWindow[];
    readonly workflowUuid: string | null;
    readonly perWorkflow: boolean;
    readonly withDurations: boolean;
  },
): Promise<Map<number, Map<string, BucketFigures>>> {
  const windows: RollupWindow[] = query.buckets.map(({ key, from, to }) => ({
    key,
    from,
    to,
    workflowUuid: query.workflowUuid,
  }));
  const perWorkflow = query.workflowUuid === null && query.perWorkflow;
  const [counts, durationRows] = await Promise.all([
    readWindows(db, executionCounts, organizationId, windows, {
      groupBy: perWorkflow ? ['workflow_uuid', 'status'] : ['status'],
      measures: ['execution_count'],
    }),
    query.withDurations
      ? readWindows(db, durations, organizationId, windows, {
          where: { capability_id: [EXECUTION_LEVEL], status: FINISHED },
          groupBy: perWorkflow ? ['workflow_uuid'] : [],
          // The organization as a whole reads the rows kept for every workflow together.
          organizationRows: !perWorkflow,
          measures: ['finished_count', 'duration_min_ms', 'duration_max_ms', 'duration_bins'],
        })
      : [],
  ]);
  const answer = new Map<number, Map<string, BucketFigures>>(
    query.buckets.map(({ key }) => [key, new Map([[WHOLE_SCOPE, emptyFigures()]])]),
  );
  const figuresOf = (key: number, workflow: string | undefined) => {
    const byScope = answer.get(key)!;
    const scopes = [byScope.get(WHOLE_SCOPE)!];
    if (workflow !== undefined) {
      let own = byScope.get(workflow);
      if (own === undefined) {
        own = emptyFigures();
        byScope.set(workflow, own);
      }
      scopes.push(own);
    }
    return scopes;
  };
  for (const row of counts) {
    const n = row.values.execution_count;
    const status = row.dimensions.status;
    for (const figures of figuresOf(row.key, perWorkflow ? row.dimensions.workflow_uuid : undefined)) {
      figures.total += n;
      if (FINISHED.includes(status)) figures.finished += n;
      if (status === 'FAILURE') figures.failures += n;
    }
  }
  for (const row of durationRows) {
    const dimensions = row.dimensions as Record<string, string>;
    const scopes = figuresOf(row.key, perWorkflow ? dimensions.workflow_uuid : undefined);
    for (const [i, figures] of scopes.entries()) {
      figures.durationCount += row.values.finished_count;
      // A row is the only one of its window and group (the reader sums them): the scope it alone
      // makes up, the last one (the workflow's own, or the whole scope's when it is read without
      // workflows), takes its bins rather than a copy of them.
      if (i === scopes.length - 1) figures.bins = row.values.duration_bins;
      else figures.bins.addAll(row.values.duration_bins);
      const { duration_min_ms: min, duration_max_ms: max } = row.values;
      if (min !== null) figures.minMs = figures.minMs === null ? min : Math.min(figures.minMs, min);
      if (max !== null) figures.maxMs = figures.maxMs === null ? max : Math.max(figures.maxMs, max);
    }
  }
  return answer;
}

/** A workflow of the scope: its name, and when its first execution started (undefined without one). */
export interface ScopeWorkflow {
  readonly name: string;
  readonly firstStartedAt: number | undefined;
}

/**
 * The scope's workflows (of `workflowUuid` alone when given), each with its name and when its
 * first execution started: one index probe per workflow, in the statement that names them, so
 * that the anomalies listed need no statement of their own for their workflows' names.
 */
export async function scopeWorkflows(
  db: Queryable,
  organizationId: string,
  workflowUuid: string | null,
): Promise<Map<string, ScopeWorkflow>> {
  // Planned once per connection, as the rollup reads beside it: no switch of the connection's plan mode.
  const rows = await db.query<{ uuid: string; name: string; started_at: Date | null }>(
    genericPlan(`select w.uuid, w.name, x.started_at
     from workflows w
     left join lateral (
       select e.started_at from executions e
       where e.organization_id = $1 and e.workflow_uuid = w.uuid
       order by e.started_at limit 1
     ) x on true
     where w.organization_id = $1 and ($2::uuid is null or w.uuid = $2)`),
    [organizationId, workflowUuid],
  );
  return new Map(
    rows.map((row) => [row.uuid, { name: row.name, firstStartedAt: row.started_at?.getTime() }]),
  );
}
