/**
 * Anomalies of a scope over some buckets (contract section 7): read once for every bucket the
 * baselines need, then judged bucket by bucket. Shared by the `anomalies` query and the ANOMALY
 * alert condition.
 */
import { LRUCache } from 'lru-cache';
import type { Queryable } from '../../db/database.js';
import type { Bucket } from '../../lib/buckets.js';
import { sameItems } from '../../lib/same-items.js';
import { BinCounts } from '../../rollups/bin-counts.js';
import { KeptKind, keptPerWindow } from '../../rollups/window-cache.js';
import type { AnomalyMetric } from '../../schema/schema-types.generated.js';
import {
  type BucketFigures,
  bucketFigures,
  bucketRollups,
  scopeWorkflows,
  WHOLE_SCOPE,
} from './anomalies.store.js';
import { Baselines, observedValue, type Point, type ScopeFigures } from './anomaly-detection.js';

export interface SeriesOf {
  readonly metric: AnomalyMetric;
  /** Null: the organization as a whole. */
  readonly workflowUuid: string | null;
  /** The workflow's name; null for the organization as a whole. */
  readonly workflowName: string | null;
  /** Every bucket's point for the scope asked for; a workflow's series within it holds its anomalous points only. */
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

/**
 * A bucket's observed value of each metric read (anomaly-detection.ts, observedValue), in the
 * order of the metrics read (`read` below, which the kept values' id names).
 */
type ObservedValues = ReadonlyArray<number | null>;

/**
 * A bucket's values per scope ('' (WHOLE_SCOPE) the scope as a whole, else a workflow's uuid):
 * the i-th scope's values of the metrics read are `values[i * metrics]` on. Flat, so that
 * reading a request's thousands of them allocates nothing.
 */
interface BucketValues {
  readonly scopes: readonly string[];
  readonly values: ReadonlyArray<number | null>;
}

/**
 * Each bucket's observed values, kept while the bucket's days are unchanged (window-cache.ts): a
 * bucket is the baseline of up to twelve others and of every later request over the same hours,
 * so its rows are read, summed and reduced to values (a p95 walks the bins) once.
 */
const BUCKET_VALUES = new KeptKind<BucketValues>('anomaly bucket values');

/** The map and, per scope, its entry, key and values (estimated). */
const bucketValuesBytes = (bucket: BucketValues) =>
  150 + 80 * bucket.scopes.length + 16 * bucket.values.length;

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

const observedValues = (figures: BucketFigures, metrics: readonly AnomalyMetric[]): ObservedValues =>
  metrics.map((metric) => observedValue(metric, figures));

/**
 * The points judged of one bucket, per scope and metric (the request's metrics, in order; null for
 * a workflow's point that is not anomalous), kept beside the bucket's kept values while the bucket
 * and each bucket of its baseline hold the very values they were judged from: kept values are
 * replaced, never changed, when their days change, so a judged bucket is judged again exactly
 * when anything it was judged from has changed. Also under the same first executions,
 * sensitivity, metrics and partiality (an EXECUTIONS bucket not ended at now).
 */
interface Judged {
  readonly firsts: string;
  readonly sensitivity: number;
  readonly metrics: string;
  readonly partial: boolean;
  /** The baseline's buckets' values, by position (Baselines.keysOf). */
  readonly baseline: ReadonlyArray<BucketValues | undefined>;
  readonly points: ReadonlyMap<string, ReadonlyArray<Point | null>>;
}

/** By the judged bucket's kept values: gone with them. */
const JUDGED = new WeakMap<BucketValues, Judged>();

/**
 * A request's series, kept with the judged buckets they were assembled from, the scopes those
 * buckets hold and the scopes' names: while every judged bucket is the very one kept (so are the
 * buckets of its baseline, hence the scopes) and no name has changed, the series are the same, and
 * a repeated request assembles nothing (the organization's series are 150, of 24 points each).
 */
interface Assembled {
  readonly judged: readonly Judged[];
  readonly scopes: ReadonlyArray<readonly [string, string | null]>;
  readonly names: ReadonlyArray<string | null>;
  readonly series: SeriesOf[];
}

/** By organization, buckets and scope: the latest of each, the least recently used going first. */
const ASSEMBLED = new LRUCache<string, Assembled>({ max: 64 });

/** Each scope's values by metric and bucket key, filled in one pass over the kept values. */
function scopeFigures(
  values: ReadonlyMap<number, BucketValues>,
  starts: readonly number[],
  read: readonly AnomalyMetric[],
  perWorkflow: boolean,
  firsts: ReadonlyMap<string, number>,
): (scope: string) => ScopeFigures {
  const nothing = observedValues(EMPTY, read);
  const firstOfAll = firsts.size === 0 ? undefined : Math.min(...firsts.values());
  // A bucket without the scope's figures holds those of nothing started.
  const columnsOf = new Map<string, Array<Array<number | null>>>();
  const columns = (scope: string) => {
    let found = columnsOf.get(scope);
    if (found === undefined) {
      found = nothing.map((value) => new Array<number | null>(starts.length).fill(value));
      columnsOf.set(scope, found);
    }
    return found;
  };
  for (let key = 0; key < starts.length; key++) {
    const bucket = values.get(key);
    if (bucket === undefined) continue;
    for (let i = 0; i < bucket.scopes.length; i++) {
      const scope = bucket.scopes[i]!;
      if (scope !== WHOLE_SCOPE && !perWorkflow) continue;
      const found = columns(scope);
      for (let m = 0; m < read.length; m++) found[m]![key] = bucket.values[i * read.length + m]!;
    }
  }
  const metricIndex = new Map(read.map((metric, i) => [metric, i]));
  return (scope) => {
    const found = columns(scope);
    return {
      valuesOf: (metric) => found[metricIndex.get(metric)!]!,
      firstExecution: scope === WHOLE_SCOPE ? firstOfAll : firsts.get(scope),
    };
  };
}

/**
 * The series of each metric for the scope (and, with `perWorkflow`, for each workflow that has
 * figures in any bucket read, with its anomalous points only: what is listed of it): the whole
 * scope first, then workflows by uuid.
 */
export async function detectAnomalies(
  db: Queryable,
  organizationId: string,
  query: DetectQuery,
): Promise<readonly SeriesOf[]> {
  const { buckets, width } = query;
  if (buckets.length === 0) return [];
  // The buckets are contiguous (DetectQuery.buckets).
  const baselines = Baselines.of(buckets[0]!.from, buckets.length, width);
  const { starts } = baselines;
  const perWorkflow = query.workflowUuid === null && query.perWorkflow;
  const withDurations = query.metrics.includes('DURATION_P95');
  // Every metric the figures read give: the values kept serve any request that reads as much.
  const read: readonly AnomalyMetric[] = withDurations
    ? ['EXECUTIONS', 'FAILURE_RATE', 'DURATION_P95']
    : ['EXECUTIONS', 'FAILURE_RATE'];
  const [values, workflows] = await Promise.all([
    keptPerWindow(
      db,
      BUCKET_VALUES,
      organizationId,
      starts.map((from, key) => ({ key, from, to: from + width })),
      {
        rollups: bucketRollups(withDurations),
        id: `${query.workflowUuid}|${perWorkflow}|${withDurations}`,
        bytes: bucketValuesBytes,
        derive: async (missing) => {
          const figures = await bucketFigures(db, organizationId, {
            buckets: missing,
            workflowUuid: query.workflowUuid,
            perWorkflow,
            withDurations,
          });
          const derived = new Map<number, BucketValues>();
          for (const [key, byScope] of figures)
            derived.set(key, {
              scopes: [...byScope.keys()],
              values: [...byScope.values()].flatMap((of) => observedValues(of, read)),
            });
          return derived;
        },
      },
    ),
    scopeWorkflows(db, organizationId, query.workflowUuid),
  ]);
  const firsts = new Map<string, number>();
  for (const [uuid, { firstStartedAt }] of workflows)
    if (firstStartedAt !== undefined) firsts.set(uuid, firstStartedAt);
  const shape = {
    firsts: [...firsts]
      .map(([uuid, first]) => `${uuid}=${first}`)
      .sort()
      .join(','),
    sensitivity: query.sensitivity,
    metrics: query.metrics.join(','),
  };
  /** Whether the i-th judged bucket has not ended at now. */
  const partialAt = (i: number) => baselines.judged[i]! + width > query.now;
  // Each judged bucket's points, kept or judged now.
  const judged = baselines.judged.map((_, i) => {
    const { judged: key, baseline } = baselines.keysOf(i);
    const observed = values.get(key);
    const kept = observed === undefined ? undefined : JUDGED.get(observed);
    if (
      kept === undefined ||
      kept.firsts !== shape.firsts ||
      kept.sensitivity !== shape.sensitivity ||
      kept.metrics !== shape.metrics ||
      kept.partial !== partialAt(i) ||
      kept.baseline.some((was, k) => values.get(baseline[k]!) !== was)
    )
      return undefined;
    return kept;
  });
  const missing = judged.flatMap((kept, i) => (kept === undefined ? [i] : []));
  const assembledId = `${organizationId}|${baselines.id}|${query.workflowUuid}|${perWorkflow}|${shape.metrics}`;
  const before = ASSEMBLED.get(assembledId);
  const sameBuckets = before !== undefined && missing.length === 0 && sameItems(before.judged, judged);
  // The whole scope first, then (perWorkflow) each workflow with figures in any bucket read, by uuid.
  const scopes: ReadonlyArray<readonly [string, string | null]> = sameBuckets
    ? before.scopes
    : [[WHOLE_SCOPE, query.workflowUuid], ...(perWorkflow ? workflowScopes(values) : [])];
  if (missing.length > 0) {
    const points = missing.map(() => new Map<string, Array<Point | null>>());
    const scopeOf = scopeFigures(values, starts, read, perWorkflow, firsts);
    for (const [scope, workflowUuid] of scopes) {
      const figures = scopeOf(scope);
      for (const [m, metric] of query.metrics.entries()) {
        const at = baselines.pointsAt(missing, metric, figures, query.sensitivity, query.now);
        for (const [j, point] of at.entries()) {
          let ofScope = points[j]!.get(scope);
          if (ofScope === undefined) {
            ofScope = [];
            points[j]!.set(scope, ofScope);
          }
          // A workflow's point is listed only when anomalous (SeriesOf.points).
          ofScope[m] = workflowUuid === query.workflowUuid || point.anomalous ? point : null;
        }
      }
    }
    for (const [j, i] of missing.entries()) {
      const { judged: key, baseline } = baselines.keysOf(i);
      const made: Judged = {
        ...shape,
        partial: partialAt(i),
        baseline: Array.from(baseline, (k) => values.get(k)),
        points: points[j]!,
      };
      judged[i] = made;
      const observed = values.get(key);
      if (observed !== undefined) JUDGED.set(observed, made);
    }
  }
  const names = scopes.map(([, uuid]) => (uuid === null ? null : (workflows.get(uuid)?.name ?? null)));
  if (sameBuckets && sameItems(names, before.names)) return before.series;
  const series: SeriesOf[] = [];
  for (const [k, [scope, workflowUuid]] of scopes.entries()) {
    for (const [m, metric] of query.metrics.entries()) {
      const points: Point[] = [];
      for (const of of judged) {
        const point = of!.points.get(scope)?.[m];
        if (point) points.push(point);
      }
      series.push({ metric, workflowUuid, workflowName: names[k]!, points });
    }
  }
  ASSEMBLED.set(assembledId, { judged: judged as Judged[], scopes, names, series });
  return series;
}

/** The workflows with figures in any of the buckets, by uuid. */
function workflowScopes(values: ReadonlyMap<number, BucketValues>): Array<readonly [string, string]> {
  const workflows = new Set<string>();
  for (const bucket of values.values()) for (const scope of bucket.scopes) workflows.add(scope);
  workflows.delete(WHOLE_SCOPE);
  return [...workflows].sort().map((uuid) => [uuid, uuid] as const);
}
