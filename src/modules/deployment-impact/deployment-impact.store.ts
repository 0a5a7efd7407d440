/**
 * What deployment impact reads: the deployments of a workflow with their neighbours, and, for
 * many windows of that workflow at once, finished executions, duration bins and error groups,
 * all from the rollups (exact window edges, O(buckets): rollup-reader.store.ts).
 */
import { genericPlan, type Queryable } from '../../db/database.js';
import { BinCounts } from '../../rollups/bin-counts.js';
import { durations, EXECUTION_LEVEL } from '../../rollups/durations.rollup.js';
import { ANY_LEVEL, errorGroupCounts } from '../../rollups/error-groups.rollup.js';
import { countWindows } from '../../rollups/execution-counts.store.js';
import { type RollupWindow, readWindows } from '../../rollups/rollup-reader.store.js';
import type { GroupCount } from '../error-groups/error-groups.store.js';

export const FINISHED = ['SUCCESS', 'FAILURE'] as const;

/** A window of one workflow's execution starts: `from` inclusive, `to` exclusive (ms). */
export interface SideWindow {
  readonly key: number;
  readonly from: number;
  readonly to: number;
  /** Which of its edges are deployments' instants, not now (RollupWindow.fixed). */
  readonly fixed: 'both' | 'from';
}

export interface SideFigures {
  /** Finished executions (SUCCESS or FAILURE) started in the window. */
  readonly executions: number;
  readonly failures: number;
  /** Durations of the finished executions: their bins and exact extremes. */
  readonly durationCount: number;
  readonly bins: BinCounts;
  readonly minMs: number | null;
  readonly maxMs: number | null;
}

const toRollupWindows = (workflowUuid: string, windows: readonly SideWindow[]): RollupWindow[] =>
  windows.map((w) => ({
    key: w.key,
    from: w.from,
    to: Math.max(w.from, w.to),
    workflowUuid,
    fixed: w.fixed,
  }));

/** Finished executions, failures and durations of each window: two statements for all of them. */
export async function sideFigures(
  db: Queryable,
  organizationId: string,
  workflowUuid: string,
  windows: readonly SideWindow[],
): Promise<Map<number, SideFigures>> {
  const rollupWindows = toRollupWindows(workflowUuid, windows);
  const [counts, durationRows] = await Promise.all([
    countWindows(db, organizationId, rollupWindows, FINISHED),
    readWindows(db, durations, organizationId, rollupWindows, {
      where: { capability_id: [EXECUTION_LEVEL], status: FINISHED },
      groupBy: [],
      measures: ['finished_count', 'duration_min_ms', 'duration_max_ms', 'duration_bins'],
    }),
  ]);
  const byKey = new Map(durationRows.map((row) => [row.key, row.values]));
  return new Map(
    windows.map((w) => {
      const count = counts.get(w.key)!;
      const d = byKey.get(w.key);
      return [
        w.key,
        {
          executions: count.total,
          failures: count.byStatus.get('FAILURE') ?? 0,
          durationCount: d?.finished_count ?? 0,
          bins: d?.duration_bins ?? new BinCounts(),
          minMs: d?.duration_min_ms ?? null,
          maxMs: d?.duration_max_ms ?? null,
        },
      ];
    }),
  );
}

/**
 * The error groups of the workflow in each window, at any level (each execution once): one
 * statement for all the windows.
 */
export async function groupsInWindows(
  db: Queryable,
  organizationId: string,
  workflowUuid: string,
  windows: readonly SideWindow[],
): Promise<Map<number, Map<string, GroupCount>>> {
  const rows = await readWindows(
    db,
    errorGroupCounts,
    organizationId,
    toRollupWindows(workflowUuid, windows),
    {
      where: { capability_id: [ANY_LEVEL] },
      groupBy: ['fingerprint'],
    },
  );
  const answer = new Map(windows.map((w) => [w.key, new Map<string, GroupCount>()]));
  for (const row of rows) {
    if (row.values.execution_count <= 0) continue;
    const { fingerprint } = row.dimensions;
    answer.get(row.key)!.set(fingerprint, {
      fingerprint,
      occurrences: row.values.occurrences,
      executionCount: row.values.execution_count,
    });
  }
  return answer;
}

/**
 * Of the given fingerprints, those the workflow had before each instant (any execution started
 * earlier, at any level): one statement, a window from the earliest storable time per instant,
 * read through the rollup's coarsest buckets and narrowed to the fingerprints asked about.
 */
export async function groupsSeenBefore(
  db: Queryable,
  organizationId: string,
  workflowUuid: string,
  asked: ReadonlyArray<{
    readonly key: number;
    readonly before: number;
    readonly fingerprints: readonly string[];
  }>,
  earliest: number,
): Promise<Map<number, Set<string>>> {
  const answer = new Map(asked.map((a) => [a.key, new Set<string>()]));
  const fingerprints = [...new Set(asked.flatMap((a) => a.fingerprints))];
  if (fingerprints.length === 0) return answer;
  const rows = await readWindows(
    db,
    errorGroupCounts,
    organizationId,
    // From the earliest storable time to a deployment: neither edge moves.
    asked.map((a) => ({ key: a.key, from: earliest, to: a.before, workflowUuid, fixed: 'both' })),
    { where: { capability_id: [ANY_LEVEL], fingerprint: fingerprints }, groupBy: ['fingerprint'] },
  );
  for (const row of rows) {
    if (row.values.execution_count > 0) answer.get(row.key)!.add(row.dimensions.fingerprint);
  }
  return answer;
}

/** The deployedAt of the record before each of the workflow's deployments (null for its first). */
export async function previousDeployedAt(
  db: Queryable,
  organizationId: string,
  workflowUuid: string,
  deploymentUuids: readonly string[],
): Promise<Map<string, Date | null>> {
  // Planned once per connection, as the rollup reads after it: key lookups whatever the values.
  const rows = await db.query<{ uuid: string; previous: Date | null }>(
    genericPlan(`select d.uuid,
            (select p.deployed_at from deployments p
             where p.organization_id = d.organization_id and p.workflow_uuid = d.workflow_uuid
               and (p.deployed_at, p.uuid) < (d.deployed_at, d.uuid)
             order by p.deployed_at desc, p.uuid desc limit 1) as previous
     from deployments d
     where d.organization_id = $1 and d.workflow_uuid = $2 and d.uuid = any($3::uuid[])`),
    [organizationId, workflowUuid, deploymentUuids],
  );
  return new Map(rows.map((row) => [row.uuid, row.previous]));
}
