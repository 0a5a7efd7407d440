import type { Queryable } from '../../db/database.js';
import { BinCounts } from '../../rollups/bin-counts.js';
import { durations, EXECUTION_LEVEL } from '../../rollups/durations.rollup.js';
import { readWindows } from '../../rollups/rollup-reader.store.js';
import { type InclusiveWindow, rollupWindowOf } from '../shared/time-window.js';

export interface DurationFilter {
  /** null: every visible workflow. */
  readonly workflowUuid: string | null;
  /** null: whole executions. */
  readonly capabilityId: string | null;
  readonly statuses: readonly string[] | null;
}

export interface DurationSummary {
  readonly count: number;
  readonly sumMs: number;
  readonly minMs: number | null;
  readonly maxMs: number | null;
  readonly bins: BinCounts;
}

/** Durations of the finished executions (or calls) started in [from, to]: counts and bins. */
export async function summarizeDurations(
  db: Queryable,
  organizationId: string,
  window: InclusiveWindow,
  filter: DurationFilter,
): Promise<DurationSummary> {
  const [row] = await readWindows(
    db,
    durations,
    organizationId,
    [rollupWindowOf(window, filter.workflowUuid)],
    {
      where: { capability_id: [filter.capabilityId ?? EXECUTION_LEVEL], status: filter.statuses },
      groupBy: [],
      organizationRows: true,
    },
  );
  return {
    count: row?.values.finished_count ?? 0,
    sumMs: row?.values.duration_sum_ms ?? 0,
    minMs: row?.values.duration_min_ms ?? null,
    maxMs: row?.values.duration_max_ms ?? null,
    bins: row?.values.duration_bins ?? new BinCounts(),
  };
}
