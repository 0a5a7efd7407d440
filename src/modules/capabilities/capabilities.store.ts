import type { Queryable } from '../../db/database.js';
import { BinCounts } from '../../rollups/bin-counts.js';
import { durations, EXECUTION_LEVEL } from '../../rollups/durations.rollup.js';
import { readWindows } from '../../rollups/rollup-reader.store.js';
import { type InclusiveWindow, rollupWindowOf } from '../shared/time-window.js';

export interface CapabilityCalls {
  readonly capabilityId: string;
  readonly calls: number;
  readonly failures: number;
  readonly bins: BinCounts;
}

/** Calls of every capability started in [from, to], with their failures and duration bins. */
export async function capabilityCalls(
  db: Queryable,
  organizationId: string,
  window: InclusiveWindow,
  workflowUuid: string | null,
): Promise<CapabilityCalls[]> {
  const rows = await readWindows(db, durations, organizationId, [rollupWindowOf(window, workflowUuid)], {
    groupBy: ['capability_id', 'status'],
    // The executions' own rows (capability '') are the widest histograms and none of the answer.
    except: { capability_id: [EXECUTION_LEVEL] },
    organizationRows: true,
    // The answer has percentiles but no minimum or maximum, so each edge of the window may be
    // read by subtraction: at most half of its minute's calls (percentiles.ts reads the bins alone).
    extremes: false,
  });
  const byCapability = new Map<string, { calls: number; failures: number; bins: BinCounts }>();
  for (const row of rows) {
    const id = row.dimensions.capability_id;
    const entry = byCapability.get(id) ?? { calls: 0, failures: 0, bins: new BinCounts() };
    entry.calls += row.values.item_count;
    if (row.dimensions.status === 'FAILURE') entry.failures += row.values.item_count;
    entry.bins.addAll(row.values.duration_bins);
    byCapability.set(id, entry);
  }
  return [...byCapability.entries()]
    .filter(([, entry]) => entry.calls > 0)
    .map(([capabilityId, entry]) => ({ capabilityId, ...entry }));
}
