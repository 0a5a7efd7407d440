/**
 * Anomalies of a scope over some buckets (contract section 7): read once for every bucket the
 * baselines need, then judged bucket by bucket. Shared by the `anomalies` query and the ANOMALY
 * alert condition.
 */
import type { Queryable } from '../../db/database.js';
import type { Bucket } from '../../lib/buckets.js';
import { BinCounts } from '../../rollups/bin-counts.js';
import type { AnomalyMetric } from '../../schema/schema-types.generated.js';
import { type BucketFigures, bucketFigures, firstExecutionStarts, WHOLE_SCOPE } from './anomalies.store.js';
import {
  baselineStarts,
  observedValue,
  type Point,
  pointOf,
  type ScopeFigures,
} from './anomaly-detection.js';

export interface SeriesOf {
  readonly metric: AnomalyMetric;
  /** Null: the organization as a whole. */
  readonly workflowUuid: string | null;
  readonly points: Point[];
}

export interface DetectQuery {
  /** The buckets to judge, contiguous, each `width` long. */
  readonly buckets: readonly Bucket[];
  readonly width: number;
  /** One workflow, or (null) the organization as a whole. */
  readonly workflowUuid: string | null;
  /** With an organization scope, also each workflow's series. */
  readonly perWorkflow: boolean;
  readonly metrics: readonly AnomalyMetric[];
  readonly sensitivity: number;
  readonly now: number;
}

/** The figures of a bucket nothing started in. */
const EMPTY: BucketFigures = {
  total: 0,
  finished: 0,
  failures: 0,
  durationCount: 0,
  bins: new BinCounts(),
  minMs: null,
  maxMs: null,
};

/**
 * The series of each metric for the scope (and, with `perWorkflow`, for each workflow that has
 * figures in any bucket read): the whole scope first, then workflows by uuid.
 */
export async function detectAnomalies(
  db: Queryable,
  organizationId: string,
  query: DetectQuery,
): Promise<SeriesOf[]> {
  const { buckets, width } = query;
  const starts = [...new Set(buckets.flatMap((b) => [b.from, ...baselineStarts(b.from, width)]))].sort(
    (a, b) => a - b,
  );
  const keyOf = new Map(starts.map((start, key) => [start, key]));
  const perWorkflow = query.workflowUuid === null && query.perWorkflow;
  const [figures, firsts] = await Promise.all([
    bucketFigures(db, organizationId, {
      starts,
      width,
      workflowUuid: query.workflowUuid,
      perWorkflow,
      withDurations: query.metrics.includes('DURATION_P95'),
    }),
    firstExecutionStarts(db, organizationId, query.workflowUuid),
  ]);
  const scopeOf = (scope: string): ScopeFigures => {
    // Each value once per metric and bucket (a p95 walks the bucket's bins), by the bucket's key.
    const values = new Map<AnomalyMetric, Array<number | null | undefined>>(
      query.metrics.map((metric) => [metric, new Array(starts.length)]),
    );
    return {
      valueAt: (metric, start) => {
        const key = keyOf.get(start)!;
        const known = values.get(metric)!;
        let value = known[key];
        if (value === undefined) {
          value = observedValue(metric, figures.get(key)?.get(scope) ?? EMPTY);
          known[key] = value;
        }
        return value;
      },
      firstExecution:
        scope === WHOLE_SCOPE
          ? firsts.size === 0
            ? undefined
            : Math.min(...firsts.values())
          : firsts.get(scope),
    };
  };
  const scopes: Array<[string, string | null]> = [[WHOLE_SCOPE, query.workflowUuid]];
  if (perWorkflow) {
    const workflows = new Set<string>();
    for (const byScope of figures.values()) for (const scope of byScope.keys()) workflows.add(scope);
    workflows.delete(WHOLE_SCOPE);
    for (const uuid of [...workflows].sort()) scopes.push([uuid, uuid]);
  }
  const series: SeriesOf[] = [];
  for (const [scope, workflowUuid] of scopes) {
    const figuresOfScope = scopeOf(scope);
    for (const metric of query.metrics) {
      series.push({
        metric,
        workflowUuid,
        points: buckets.map((b) =>
          pointOf(metric, figuresOfScope, b.from, width, query.sensitivity, query.now),
        ),
      });
    }
  }
  return series;
}
