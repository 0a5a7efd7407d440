/**
 * What deployment impact reads: the deployments of a workflow with their neighbours, and, for
 * many windows of that workflow at once, finished executions, duration bins and error groups,
 * all from the rollups (exact window edges, O(buckets): rollup-reader.store.ts).
 */
import { genericPlan, type Queryable } from '../../db/database.js';
import { BinCounts } from '../../rollups/bin-counts.js';
import { durations, EXECUTION_LEVEL } from '../../rollups/durations.rollup.js';
import { ANY_LEVEL, errorGroupCounts } from '../../rollups/error-groups.rollup.js';
import { executionCounts } from '../../rollups/execution-counts.rollup.js';
import { type RollupWindow, readWindows } from '../../rollups/rollup-reader.store.js';
import { KeptKind, type KeptWindow, keptPerWindow } from '../../rollups/window-cache.js';
import type { GroupCount } from '../error-groups/error-groups.store.js';

export const FINISHED = ['SUCCESS', 'FAILURE'] as const;

/**
 * A window of one workflow's execution starts: `from` inclusive, `to` exclusive (ms); `fixed`
 * says which of its edges are deployments' instants, not now.
 */
export interface SideWindow extends KeptWindow {
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

/**
 * A side's figures and error groups, kept per window while its days are unchanged
 * (window-cache.ts): every side but the latest deployment's after lies between two deployments'
 * instants, so it is read once, not on every request for the workflow's deployments.
 */
const SIDE_FIGURES = new KeptKind<SideFigures>('deployment side figures');
const SIDE_GROUPS = new KeptKind<ReadonlyMap<string, GroupCount>>('deployment side error groups');

const sideFiguresBytes = (figures: SideFigures) => 300 + 8 * figures.bins.span;
const sideGroupsBytes = (groups: ReadonlyMap<string, GroupCount>) => 100 + 200 * groups.size;

/** Finished executions, failures and durations of each window: two statements for those not kept. */
export function sideFigures(
  db: Queryable,
  organizationId: string,
  workflowUuid: string,
  windows: readonly SideWindow[],
): Promise<ReadonlyMap<number, SideFigures>> {
  return keptPerWindow(db, SIDE_FIGURES, organizationId, windows, {
    rollups: [executionCounts, durations],
    id: `side|${workflowUuid}`,
    bytes: sideFiguresBytes,
    derive: async (missing) => {
      const rollupWindows = toRollupWindows(workflowUuid, missing);
      const [counts, durationRows] = await Promise.all([
        readWindows(db, executionCounts, organizationId, rollupWindows, {
          where: { status: FINISHED },
          groupBy: ['status'],
          measures: ['execution_count'],
        }),
        readWindows(db, durations, organizationId, rollupWindows, {
          where: { capability_id: [EXECUTION_LEVEL], status: FINISHED },
          groupBy: [],
          measures: ['finished_count', 'duration_min_ms', 'duration_max_ms', 'duration_bins'],
        }),
      ]);
      const answer = new Map<number, SideFigures>(
        missing.map((w) => [
          w.key,
          {
            executions: 0,
            failures: 0,
            durationCount: 0,
            bins: new BinCounts(),
            minMs: null,
            maxMs: null,
          },
        ]),
      );
      for (const row of counts) {
        const side = answer.get(row.key)!;
        const n = row.values.execution_count;
        answer.set(row.key, {
          ...side,
          executions: side.executions + n,
          failures: side.failures + (row.dimensions.status === 'FAILURE' ? n : 0),
        });
      }
      for (const row of durationRows) {
        answer.set(row.key, {
          ...answer.get(row.key)!,
          durationCount: row.values.finished_count,
          bins: row.values.duration_bins,
          minMs: row.values.duration_min_ms,
          maxMs: row.values.duration_max_ms,
        });
      }
      return answer;
    },
  });
}

/**
 * The error groups of the workflow in each window, at any level (each execution once): one
 * statement for the windows not kept.
 */
export function groupsInWindows(
  db: Queryable,
  organizationId: string,
  workflowUuid: string,
  windows: readonly SideWindow[],
): Promise<ReadonlyMap<number, ReadonlyMap<string, GroupCount>>> {
  return keptPerWindow(db, SIDE_GROUPS, organizationId, windows, {
    rollups: [errorGroupCounts],
    id: `groups|${workflowUuid}`,
    bytes: sideGroupsBytes,
    derive: async (missing) => {
      const rows = await readWindows(
        db,
        errorGroupCounts,
        organizationId,
        toRollupWindows(workflowUuid, missing),
        {
          where: { capability_id: [ANY_LEVEL] },
          groupBy: ['fingerprint'],
        },
      );
      const answer = new Map(missing.map((w) => [w.key, new Map<string, GroupCount>()]));
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
    },
  });
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
