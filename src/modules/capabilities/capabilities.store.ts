import type { Queryable } from '../../db/database.js';
import { BinCounts } from '../../rollups/bin-counts.js';
import { durations, EXECUTION_LEVEL } from '../../rollups/durations.rollup.js';
import { readWindows } from '../../rollups/rollup-reader.store.js';

export interface CapabilityCalls {
  readonly capabilityId: string;
  readonly calls: number;
  readonly failures: number;
  readonly minMs: number | null;
  readonly maxMs: number | null;
  readonly bins: BinCounts;
}

/** Calls of every capability started in [from, to], with their failures and duration bins. */
export async function capabilityCalls(
  db: Queryable,
  organizationId: string,
  window: { from: number; to: number },
  workflowUuid: string | null,
): Promise<CapabilityCalls[]> {
  const rows = await readWindows(
    db,
    durations,
    organizationId,
    [{ key: 0, from: window.from, to: window.to + 1, workflowUuid }],
    // The executions' own rows (capability '') are the widest histograms and none of the answer.
    {
      groupBy: ['capability_id', 'status'],
      except: { capability_id: [EXECUTION_LEVEL] },
      organizationRows: true,
    },
  );
  const byCapability = new Map<
    string,
    { calls: number; failures: number; min: number | null; max: number | null; bins: BinCounts }
  >();
  for (const row of rows) {
    const id = row.dimensions.capability_id;
    const entry = byCapability.get(id) ?? {
      calls: 0,
      failures: 0,
      min: null,
      max: null,
      bins: new BinCounts(),
    };
    entry.calls += row.values.item_count;
    if (row.dimensions.status === 'FAILURE') entry.failures += row.values.item_count;
    const { duration_min_ms: min, duration_max_ms: max } = row.values;
    if (min !== null && (entry.min === null || min < entry.min)) entry.min = min;
    if (max !== null && (entry.max === null || max > entry.max)) entry.max = max;
    entry.bins.addAll(row.values.duration_bins);
    byCapability.set(id, entry);
  }
  return [...byCapability.entries()]
    .filter(([, entry]) => entry.calls > 0)
    .map(([capabilityId, entry]) => ({
      capabilityId,
      calls: entry.calls,
      failures: entry.failures,
      minMs: entry.min,
      maxMs: entry.max,
      bins: entry.bins,
    }));
}
