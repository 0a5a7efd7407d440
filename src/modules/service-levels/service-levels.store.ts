/**
 * The counts behind service levels, read from the rollups (O(buckets), exact edges: see
 * readWindows): for each objective its period and each burn window, all ending at `now`. Windows
 * are shared by the objectives of one scope (a workflow, or the whole organization), so an
 * organization's hundred objectives cost the reads of its scopes' windows, in at most four
 * statements.
 */
import type { Queryable } from '../../db/database.js';
import type { ServiceLevelObjectiveRow } from '../../db/tables.js';
import { binOf } from '../../rollups/duration-bins.js';
import { durations, EXECUTION_LEVEL } from '../../rollups/durations.rollup.js';
import { countWindows } from '../../rollups/execution-counts.store.js';
import { type RollupWindow, readWindows } from '../../rollups/rollup-reader.store.js';
import { DAY } from '../shared/time.js';
import { BURN_WINDOWS, type Counts } from './burn-rates.js';

/** Finished, as section 7 means it. */
export const FINISHED = ['SUCCESS', 'FAILURE'] as const;

export interface ObjectiveCounts {
  readonly period: Counts;
  /** In BURN_WINDOWS order. */
  readonly windows: readonly Counts[];
}

export type ObjectiveScope = Pick<
  ServiceLevelObjectiveRow,
  'workflow_uuid' | 'indicator' | 'threshold_ms' | 'period_days'
>;

/** Windows of start times `[now - length, now]`, one per distinct scope and length. */
class WindowSet {
  readonly windows: RollupWindow[] = [];
  private readonly keys = new Map<string, number>();

  constructor(private readonly now: number) {}

  keyOf(workflowUuid: string | null, lengthMs: number): number {
    const id = `${workflowUuid}|${lengthMs}`;
    let key = this.keys.get(id);
    if (key === undefined) {
      key = this.windows.length;
      this.keys.set(id, key);
      // Both ends inclusive, as section 5's windows: `to` is exclusive in a rollup window.
      this.windows.push({ key, from: this.now - lengthMs, to: this.now + 1, workflowUuid });
    }
    return key;
  }
}

const lengthsOf = (objective: ObjectiveScope) => [
  objective.period_days * DAY,
  ...BURN_WINDOWS.map((window) => window.ms),
];

/**
 * Each objective's counts at `now`: SUCCESS objectives from the execution counts (finished =
 * SUCCESS or FAILURE, good = SUCCESS); LATENCY objectives from the duration histograms of
 * finished executions, good = those in the bins below the threshold (a bin bound, so exactly).
 */
export async function readObjectiveCounts(
  db: Queryable,
  organizationId: string,
  objectives: readonly ObjectiveScope[],
  now: number,
): Promise<ObjectiveCounts[]> {
  const success = new WindowSet(now);
  const latency = new WindowSet(now);
  const keys = objectives.map((objective) =>
    lengthsOf(objective).map((length) =>
      (objective.indicator === 'LATENCY' ? latency : success).keyOf(objective.workflow_uuid, length),
    ),
  );
  const [counts, histograms] = await Promise.all([
    success.windows.length === 0 ? undefined : countWindows(db, organizationId, success.windows, FINISHED),
    latency.windows.length === 0
      ? undefined
      : readWindows(db, durations, organizationId, latency.windows, {
          where: { capability_id: [EXECUTION_LEVEL], status: FINISHED },
          groupBy: [],
          organizationRows: true,
          extremes: false,
        }),
  ]);
  const bins = new Map((histograms ?? []).map((row) => [row.key, row.values]));
  return objectives.map((objective, i) => {
    const countsOf = (key: number): Counts => {
      if (objective.indicator !== 'LATENCY') {
        const window = counts!.get(key)!;
        return { total: window.total, good: window.byStatus.get('SUCCESS') ?? 0 };
      }
      const values = bins.get(key);
      if (!values) return { total: 0, good: 0 };
      const below = binOf(objective.threshold_ms!);
      let good = 0;
      values.duration_bins.forEach((bin, count) => {
        if (bin < below) good += count;
      });
      return { total: values.finished_count, good };
    };
    const [period, ...windows] = keys[i]!.map(countsOf);
    return { period: period!, windows };
  });
}

/** The names of some workflows of the organization, by uuid. */
export async function workflowNames(
  db: Queryable,
  organizationId: string,
  uuids: readonly string[],
): Promise<Map<string, string>> {
  if (uuids.length === 0) return new Map();
  const rows = await db.query<{ uuid: string; name: string }>(
    'select uuid, name from workflows where organization_id = $1 and uuid = any($2::uuid[])',
    [organizationId, [...new Set(uuids)]],
  );
  return new Map(rows.map((row) => [row.uuid, row.name]));
}
