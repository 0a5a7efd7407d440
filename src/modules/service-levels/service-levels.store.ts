/**
 * The counts behind service levels, read from the rollups (O(buckets), exact edges: see
 * readWindows): for each objective its period and each burn window, all ending at `now`. Windows
 * are shared by the objectives and read as the segments between their edges, organization-wide
 * and grouped by workflow (SegmentedWindows), so an organization's hundred objectives cost one
 * read of each bucket, in at most four statements (execution counts by workflow, duration
 * histograms by workflow, the organization's own duration histograms, the executions of the
 * minutes the raw edges lie in: MinuteRows), besides the objectives themselves. What is read is
 * kept while its days are unchanged (window-cache.ts), so a request within the same minute reads
 * only the days' versions.
 */
import { LRUCache } from 'lru-cache';
import { genericPlan, type Queryable } from '../../db/database.js';
import type { ServiceLevelObjectiveRow } from '../../db/tables.js';
import { floorTo } from '../../lib/buckets.js';
import { sameItems } from '../../lib/same-items.js';
import { sha256 } from '../../lib/sha256.js';
import { firstAtOrAbove } from '../../lib/sorted.js';
import { DAY, MINUTE } from '../../lib/time.js';
import { BinCounts } from '../../rollups/bin-counts.js';
import { binOf, LOWER_BOUNDS_SQL } from '../../rollups/duration-bins.js';
import { durationMsSql, durations, EXECUTION_LEVEL } from '../../rollups/durations.rollup.js';
import { executionCounts } from '../../rollups/execution-counts.rollup.js';
import { type AnyRollup, isVisibleWorkflow } from '../../rollups/rollup.js';
import { type RollupWindow, readWindows } from '../../rollups/rollup-reader.store.js';
import { cachedReadsOf, KeptKind, type KeptWindow, keptPerWindow } from '../../rollups/window-cache.js';
import { coverWindow, halfOpen } from '../../rollups/windows.js';
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

/** A raw edge of a window: an instant to another, inside one finest bucket (or fifteen minutes of them). */
type RawEdge = Pick<KeptWindow, 'from' | 'to'>;

/** A window's parts: its segments of whole buckets, keys `first` to before `end` (contiguous), and its raw edges. */
interface WindowParts {
  readonly first: number;
  readonly end: number;
  readonly edges: readonly RawEdge[];
}

/**
 * The windows of start times `[now - length, now]` of the objectives, read as the segments
 * between their pieces' edges. Every window ends now, so they share their end and, nested in one
 * another, their buckets: read one by one, the longest window's days were read again for each
 * shorter period, and the buckets of the last hours for every window. Cut at every edge of every
 * window's rollup pieces (coverWindow, the cover the reader itself makes), each bucket is read
 * once, in a segment of whole buckets, and a window's counts are the sum of its run of segments
 * (disjoint, so exactly) and of its raw edges, kept apart (counted from MinuteRows). The segments
 * are organization-wide: one read, grouped by workflow, answers every workflow's windows at the
 * cost of the organization's, where a read per workflow cost a probe per piece and workflow.
 *
 * A raw edge moves with now, on every request. Cutting the other windows' pieces at it made
 * segments that moved too, each a ladder of finer pieces read and summed again every time; apart,
 * an edge is one piece under a minute (fifteen beyond the days that keep minute rows), and the
 * segments of whole buckets change only as now passes a bucket's end.
 */
class SegmentedWindows {
  /** The segments of whole buckets, keyed by their place. */
  readonly segments: KeptWindow[] = [];
  /** The raw edges, once each: windows share their end's. */
  readonly edges: RawEdge[] = [];
  private readonly lengths = new Set<number>();
  /** Each window's parts, by length. */
  private readonly parts = new Map<number, WindowParts>();

  constructor(
    private readonly now: number,
    private readonly rollup: Pick<AnyRollup, 'grains' | 'recentRungs'>,
  ) {}

  /** Names the set's windows: the segments of sets with the same lengths at the same now are the same. */
  get lengthsId(): string {
    return [...this.lengths].sort((a, b) => a - b).join(',');
  }

  add(lengthMs: number): void {
    this.lengths.add(lengthMs);
  }

  /** Makes the segments of every window added; call once, after the last add. */
  cut(): void {
    // Both ends inclusive, as section 5's windows: each is [now - length, now].
    const covers = new Map(
      [...this.lengths].map((length) => {
        const window = halfOpen({ from: this.now - length, to: this.now });
        return [length, coverWindow(this.rollup, window)] as const;
      }),
    );
    const edges = new Set<number>();
    for (const pieces of covers.values())
      for (const piece of pieces) {
        if (piece.grain <= 0) continue;
        edges.add(piece.from);
        edges.add(piece.to!);
      }
    const sorted = [...edges].sort((a, b) => a - b);
    for (let i = 0; i + 1 < sorted.length; i++)
      this.segments.push({ key: i, from: sorted[i]!, to: sorted[i + 1]! });
    const edgesById = new Map<string, RawEdge>();
    for (const [length, pieces] of covers) {
      const whole = pieces.filter((piece) => piece.grain > 0);
      const edges = pieces
        .filter((piece) => piece.grain <= 0)
        .map((piece) => {
          const id = `${piece.from}|${piece.to}`;
          let edge = edgesById.get(id);
          if (edge === undefined) {
            edge = { from: piece.from, to: piece.to! };
            edgesById.set(id, edge);
            this.edges.push(edge);
          }
          return edge;
        });
      // The whole buckets lie between the raw edges, contiguous: one run of segments.
      const first = whole.length === 0 ? 0 : sorted.indexOf(whole[0]!.from);
      const end = whole.length === 0 ? 0 : sorted.indexOf(whole.at(-1)!.to!);
      this.parts.set(length, { first, end, edges });
    }
  }

  /** Each window's parts, by length. */
  windows(): Iterable<[number, WindowParts]> {
    return this.parts;
  }

  partsOf(lengthMs: number): WindowParts {
    return this.parts.get(lengthMs)!;
  }
}

/** What an objective counts: a scope's executions, or for latency those in the bins below `bin`. */
interface Series {
  /** Names the series among a request's: the scope, with the bin before it for latency. */
  readonly id: string;
  /** A workflow's uuid, or ORGANIZATION. */
  readonly scope: string;
  readonly bin?: number;
}

/**
 * Each series' counts summed over runs of whole-bucket segments, from running sums made once per
 * series (a scope, with a latency threshold): an objective's windows then cost two lookups each,
 * where summing each window's segments cost the request tens of thousands of additions. A scope's
 * counts in each segment (`T`: executions, or finished durations) are gathered once for all its
 * series. Kept from request to request (`kept`) while every segment holds the very counts it held:
 * the segments of whole buckets change only as now passes a bucket's end, and kept counts are
 * replaced, never changed, when their days change.
 */
class SegmentSums<T> {
  readonly #sums = new Map<string, { readonly total: Float64Array; readonly good: Float64Array }>();
  readonly #byScope = new Map<string, ReadonlyArray<T | undefined>>();

  private constructor(
    /** Each whole-bucket segment's counts, by key. */
    private readonly counts: ReadonlyArray<SegmentCounts<T>>,
    private readonly totalOf: (found: T) => number,
    private readonly goodOf: (found: T, series: Series) => number,
  ) {}

  /** By organization and set of segments: the latest sums of each, the least recently used going first. */
  static readonly #kept = new LRUCache<string, SegmentSums<never>>({ max: 64 });

  /** The sums of `counts` (the whole-bucket segments' by key), those made for the same counts if kept under `id`. */
  static kept<T>(
    id: string,
    counts: ReadonlyArray<SegmentCounts<T>>,
    totalOf: (found: T) => number,
    goodOf: (found: T, series: Series) => number,
  ): SegmentSums<T> {
    const before = SegmentSums.#kept.get(id) as SegmentSums<T> | undefined;
    if (before !== undefined && sameItems(before.counts, counts)) return before;
    const made = new SegmentSums(counts, totalOf, goodOf);
    SegmentSums.#kept.set(id, made as unknown as SegmentSums<never>);
    return made;
  }

  /** The counts of `series` over the segments `first` to before `end`, and over the raw edges `more`. */
  of(series: Series, first: number, end: number, more: ReadonlyArray<SegmentCounts<T>>): Counts {
    const sums = this.#run(series);
    let total = sums.total[end]! - sums.total[first]!;
    let good = sums.good[end]! - sums.good[first]!;
    for (const edge of more) {
      const counts = edge.get(series.scope);
      if (counts === undefined) continue;
      total += this.totalOf(counts);
      good += this.goodOf(counts, series);
    }
    return { total, good };
  }

  #ofScope(scope: string): ReadonlyArray<T | undefined> {
    let found = this.#byScope.get(scope);
    if (found === undefined) {
      found = this.counts.map((counts) => counts.get(scope));
      this.#byScope.set(scope, found);
    }
    return found;
  }

  #run(series: Series): { readonly total: Float64Array; readonly good: Float64Array } {
    let sums = this.#sums.get(series.id);
    if (sums === undefined) {
      const found = this.#ofScope(series.scope);
      const total = new Float64Array(found.length + 1);
      const good = new Float64Array(found.length + 1);
      for (let key = 0; key < found.length; key++) {
        const counts = found[key];
        total[key + 1] = total[key]! + (counts === undefined ? 0 : this.totalOf(counts));
        good[key + 1] = good[key]! + (counts === undefined ? 0 : this.goodOf(counts, series));
      }
      sums = { total, good };
      this.#sums.set(series.id, sums);
    }
    return sums;
  }
}

const lengthsOf = (objective: ObjectiveScope) => [
  objective.period_days * DAY,
  ...BURN_WINDOWS.map((window) => window.ms),
];

/** The organization as a whole, among the counts kept by workflow. */
const ORGANIZATION = '';

/** A scope's finished executions in a segment, and how many of them lie in the bins below any bin. */
class Finished {
  private constructor(
    readonly total: number,
    /** The bins that hold a count, ascending, and sums[i] the counts of those before bins[i]. */
    private readonly bins: Int32Array,
    private readonly sums: Float64Array,
  ) {}

  static of(total: number, histogram: BinCounts): Finished {
    const bins: number[] = [];
    const sums = [0];
    histogram.forEach((bin, count) => {
      bins.push(bin);
      sums.push(sums.at(-1)! + count);
    });
    return new Finished(total, Int32Array.from(bins), Float64Array.from(sums));
  }

  /** Finished executions in bins below `bin`. */
  below(bin: number): number {
    return this.sums[firstAtOrAbove(this.bins, bin)]!;
  }

  /** What it takes in memory, estimated. */
  get bytes(): number {
    return 200 + 12 * this.bins.length;
  }
}

/**
 * The finished executions (FINISHED) of the organization's visible workflows that started in one
 * minute, in start order: what the raw edges inside the minute count. The raw edges of windows
 * that end now move on every request, inside minutes that do not: a minute's rows are read once
 * and kept while its day is unchanged (its bounds are fixed instants: KeptWindow.fixed), and each
 * edge is counted from them, where each request read every edge again (three statements, the
 * better part of the request's database time, growing with the executions a minute holds).
 */
interface MinuteRows {
  /** Start instants (ms), ascending. */
  readonly starts: Float64Array;
  readonly workflows: readonly string[];
  /** 1 where the execution succeeded. */
  readonly success: Uint8Array;
  /** The bin of its duration (duration-bins.ts, as the duration rollups bin it); -1 without `finished_at`. */
  readonly bins: Int16Array;
}

const MINUTE_ROWS = new KeptKind<MinuteRows>('service level raw minute');

const minuteRowsBytes = (rows: MinuteRows) => 200 + 90 * rows.starts.length;

/**
 * The rows of each minute (a window of one minute, keyed), by the rules of the rollups' raw rows:
 * executions counts' (status) and the durations' (a duration's bin, finished_at) of the
 * organization's visible workflows.
 */
async function readMinuteRows(
  db: Queryable,
  organizationId: string,
  minutes: readonly KeptWindow[],
): Promise<Map<number, MinuteRows>> {
  const rows = await db.query<{
    key: number;
    started_at: Date;
    workflow_uuid: string;
    success: boolean;
    bin: number | null;
  }>(
    genericPlan(`select m.key, e.started_at, e.workflow_uuid, e.status = 'SUCCESS' as success,
            case when e.finished_at is null then null
                 else width_bucket(${durationMsSql('e.started_at', 'e.finished_at')}, ${LOWER_BOUNDS_SQL}) - 1
            end as bin
     from unnest($2::int[], $3::timestamptz[], $4::timestamptz[]) as m(key, lo, hi)
     cross join lateral (
       select e.started_at, e.finished_at, e.workflow_uuid, e.status from executions e
       where e.organization_id = $1 and e.started_at >= m.lo and e.started_at < m.hi
         and e.status in (${FINISHED.map((status) => `'${status}'`).join(', ')})
         and ${isVisibleWorkflow('e.workflow_uuid', 'hashed')}
       -- Not pulled up: pulled up, the generic plan scanned every execution once and filtered
       -- each minute from them (6.5 s at ten million), where this probes the index per minute.
       offset 0
     ) e
     order by m.key, e.started_at`),
    [
      organizationId,
      minutes.map(({ key }) => key),
      minutes.map(({ from }) => new Date(from)),
      minutes.map(({ to }) => new Date(to)),
    ],
  );
  const byKey = new Map<number, typeof rows>(minutes.map(({ key }) => [key, []]));
  for (const row of rows) byKey.get(row.key)!.push(row);
  return new Map(
    [...byKey].map(([key, of]) => [
      key,
      {
        starts: Float64Array.from(of, (row) => row.started_at.getTime()),
        workflows: of.map((row) => row.workflow_uuid),
        success: Uint8Array.from(of, (row) => (row.success ? 1 : 0)),
        bins: Int16Array.from(of, (row) => row.bin ?? -1),
      },
    ]),
  );
}

/** The counts of a raw edge per scope (each workflow, and the organization under ''): of finished executions, and of finished durations. */
interface EdgeCounts {
  readonly success: SegmentCounts<Counts>;
  readonly latency: SegmentCounts<Finished>;
}

/** The rows of one kept minute that a raw edge counts: indexes `from` to before `to`. */
interface RowRange {
  readonly rows: MinuteRows;
  readonly from: number;
  readonly to: number;
}

/** The rows of `minutes` (those the edge lies in) that started in [from, to). */
const rangesOf = (minutes: readonly MinuteRows[], from: number, to: number): RowRange[] =>
  minutes.map((rows) => ({
    rows,
    from: firstAtOrAbove(rows.starts, from),
    to: firstAtOrAbove(rows.starts, to),
  }));

/** The counts of the rows of `ranges`. */
function edgeCounts(ranges: readonly RowRange[]): EdgeCounts {
  const success = new Map<string, { total: number; good: number }>();
  const finished = new Map<string, { count: number; bins: BinCounts }>();
  const add = (scope: string, good: number, bin: number) => {
    const counts = success.get(scope);
    if (counts === undefined) success.set(scope, { total: 1, good });
    else {
      counts.total += 1;
      counts.good += good;
    }
    if (bin < 0) return;
    let ofScope = finished.get(scope);
    if (ofScope === undefined) {
      ofScope = { count: 0, bins: new BinCounts() };
      finished.set(scope, ofScope);
    }
    ofScope.count += 1;
    ofScope.bins.addOne(bin);
  };
  for (const { rows, from, to } of ranges)
    for (let i = from; i < to; i++) {
      add(rows.workflows[i]!, rows.success[i]!, rows.bins[i]!);
      add(ORGANIZATION, rows.success[i]!, rows.bins[i]!);
    }
  return {
    success,
    latency: new Map([...finished].map(([scope, { count, bins }]) => [scope, Finished.of(count, bins)])),
  };
}

/** A segment's counts by scope (the organization's under ''): of executions, or of finished durations. */
type SegmentCounts<T> = ReadonlyMap<string, T>;

/**
 * Each segment's counts, kept while its days are unchanged (window-cache.ts): the segments of
 * windows that end now move only at their edges, so most of a request's are the last request's.
 */
const SUCCESS_SEGMENTS = new KeptKind<SegmentCounts<Counts>>('service level success counts');
const LATENCY_SEGMENTS = new KeptKind<SegmentCounts<Finished>>('service level latency counts');

const countsBytes = (counts: SegmentCounts<Counts>) => 100 + 150 * counts.size;
const finishedBytes = (counts: SegmentCounts<Finished>) => {
  let bytes = 100;
  for (const finished of counts.values()) bytes += 100 + finished.bytes;
  return bytes;
};

/** An empty map of counts for each segment of `segments`. */
const emptyBy = <T>(segments: readonly KeptWindow[]) =>
  new Map(segments.map(({ key }) => [key, new Map<string, T>()]));

/** Segments as organization-wide rollup windows. */
const organizationWide = (segments: readonly KeptWindow[]): RollupWindow[] =>
  segments.map((segment) => ({ ...segment, workflowUuid: null }));

/** Counts kept per organization, the latest first (sets of objectives, or their scopes, apart). */
const MADE_PER_ORGANIZATION = 4;

/** By organization: the counts of its latest requests, with what they were made of. */
const MADE = new LRUCache<
  string,
  ReadonlyArray<{ readonly madeOf: readonly unknown[]; readonly counts: readonly ObjectiveCounts[] }>
>({
  max: 64,
});

/**
 * Each objective's counts at `now`: SUCCESS objectives from the execution counts (finished =
 * SUCCESS or FAILURE, good = SUCCESS; the organization's are the sum of its workflows', as an
 * organization-wide read of them sums them); LATENCY objectives from the duration histograms of
 * finished executions (the organization's from its own rows), good = those in the bins below the
 * threshold (a bin bound, so exactly).
 */
export async function readObjectiveCounts(
  db: Queryable,
  organizationId: string,
  objectives: readonly ObjectiveScope[],
  now: number,
): Promise<readonly ObjectiveCounts[]> {
  const success = new SegmentedWindows(now, executionCounts);
  const latency = new SegmentedWindows(now, durations);
  const organizationLatency = new SegmentedWindows(now, durations);
  const latencyWorkflows = new Set<string>();
  const setOf = (objective: ObjectiveScope) =>
    objective.indicator !== 'LATENCY'
      ? success
      : objective.workflow_uuid === null
        ? organizationLatency
        : latency;
  for (const objective of objectives) {
    if (objective.indicator === 'LATENCY' && objective.workflow_uuid !== null)
      latencyWorkflows.add(objective.workflow_uuid);
    for (const length of lengthsOf(objective)) setOf(objective).add(length);
  }
  for (const set of [success, latency, organizationLatency]) set.cut();
  const histogramOptions = {
    where: { capability_id: [EXECUTION_LEVEL], status: FINISHED },
    extremes: false,
    measures: ['finished_count', 'duration_bins'],
  } as const;
  const workflows = [...latencyWorkflows].sort();
  const latencyId = `latency|${sha256(workflows.join(',')).toString('hex')}`;
  /** A latency set's counts per segment, from `read`'s rows (a workflow's, or without one the organization's). */
  const latencyOf = (
    set: SegmentedWindows,
    id: string,
    read: (segments: readonly KeptWindow[]) => Promise<
      ReadonlyArray<{
        readonly key: number;
        readonly dimensions: { readonly workflow_uuid?: string };
        readonly values: { readonly finished_count: number; readonly duration_bins: BinCounts };
      }>
    >,
  ) =>
    keptPerWindow(db, LATENCY_SEGMENTS, organizationId, set.segments, {
      rollups: [durations],
      id,
      bytes: finishedBytes,
      derive: async (missing) => {
        const answer = emptyBy<Finished>(missing);
        for (const row of await read(missing))
          answer
            .get(row.key)!
            .set(
              row.dimensions.workflow_uuid ?? ORGANIZATION,
              Finished.of(row.values.finished_count, row.values.duration_bins),
            );
        return answer;
      },
    });
  // Every minute a raw edge of any set lies in.
  const minuteStarts = new Set<number>();
  for (const set of [success, latency, organizationLatency])
    for (const { from, to } of set.edges)
      for (let minute = floorTo(from, MINUTE); minute < to; minute += MINUTE) minuteStarts.add(minute);
  const minutes: KeptWindow[] = [...minuteStarts]
    .sort((a, b) => a - b)
    .map((from, key) => ({ key, from, to: from + MINUTE, fixed: 'both' }));
  const [minuteRows, successCounts, latencyCounts, organizationLatencyCounts] = await Promise.all([
    keptPerWindow(db, MINUTE_ROWS, organizationId, minutes, {
      rollups: [executionCounts, durations],
      id: 'minute rows',
      bytes: minuteRowsBytes,
      derive: (missing) => readMinuteRows(db, organizationId, missing),
    }),
    keptPerWindow(db, SUCCESS_SEGMENTS, organizationId, success.segments, {
      rollups: [executionCounts],
      id: 'success',
      bytes: countsBytes,
      derive: async (missing) => {
        const answer = emptyBy<Counts>(missing);
        const rows = await readWindows(db, executionCounts, organizationId, organizationWide(missing), {
          where: { status: FINISHED },
          groupBy: ['workflow_uuid', 'status'],
          measures: ['execution_count'],
        });
        for (const row of rows) {
          const n = row.values.execution_count;
          const good = row.dimensions.status === 'SUCCESS' ? n : 0;
          const scopes = answer.get(row.key)!;
          for (const scope of [row.dimensions.workflow_uuid, ORGANIZATION]) {
            const found = scopes.get(scope) ?? { total: 0, good: 0 };
            scopes.set(scope, { total: found.total + n, good: found.good + good });
          }
        }
        return answer;
      },
    }),
    latencyOf(latency, latencyId, (segments) =>
      readWindows(db, durations, organizationId, organizationWide(segments), {
        ...histogramOptions,
        where: { ...histogramOptions.where, workflow_uuid: workflows },
        groupBy: ['workflow_uuid'],
      }),
    ),
    // The organization's own rows are kept under its scope (''), apart from the workflows'.
    latencyOf(organizationLatency, 'organization latency', (segments) =>
      readWindows(db, durations, organizationId, organizationWide(segments), {
        ...histogramOptions,
        groupBy: [],
        organizationRows: true,
      }),
    ),
  ]);
  /** Each raw edge's rows, and once asked its counts, by `from|to`: windows and sets share them. */
  const rawEdges = new Map<string, { readonly ranges: readonly RowRange[]; counts?: EdgeCounts }>();
  const rawEdgeOf = ({ from, to }: RawEdge) => {
    const id = `${from}|${to}`;
    let found = rawEdges.get(id);
    if (found === undefined) {
      const within = minutes.filter((minute) => minute.to > from && minute.from < to);
      found = {
        ranges: rangesOf(
          within.map(({ key }) => minuteRows.get(key)!),
          from,
          to,
        ),
      };
      rawEdges.set(id, found);
    }
    return found;
  };
  const edgeOf = (edge: RawEdge) => {
    const found = rawEdgeOf(edge);
    found.counts ??= edgeCounts(found.ranges);
    return found.counts;
  };
  /** Per set, a series' counts over a window of a length: its whole-bucket segments' sums (kept) and its raw edges. */
  const measures = new Map<SegmentedWindows, (series: Series, length: number) => Counts>();
  const sumsOf = new Map<SegmentedWindows, object>();
  const measure = <T>(
    set: SegmentedWindows,
    id: string,
    counts: ReadonlyMap<number, SegmentCounts<T>>,
    countsOfEdge: (edge: RawEdge) => SegmentCounts<T>,
    totalOf: (found: T) => number,
    goodOf: (found: T, series: Series) => number,
  ) => {
    const whole = set.segments.map(({ key }) => counts.get(key)!);
    const sums = SegmentSums.kept(`${organizationId}|${id}|${set.lengthsId}`, whole, totalOf, goodOf);
    sumsOf.set(set, sums);
    // Per window length: its run of segments and its raw edges' counts, found once per request.
    const parts = new Map<number, { first: number; end: number; edges: Array<SegmentCounts<T>> }>();
    measures.set(set, (series, length) => {
      let found = parts.get(length);
      if (found === undefined) {
        const { first, end, edges } = set.partsOf(length);
        found = { first, end, edges: edges.map(countsOfEdge) };
        parts.set(length, found);
      }
      return sums.of(series, found.first, found.end, found.edges);
    });
  };
  measure(
    success,
    'success',
    successCounts,
    (edge) => edgeOf(edge).success,
    (counts) => counts.total,
    (counts) => counts.good,
  );
  for (const [set, id, counts] of [
    [latency, latencyId, latencyCounts],
    [organizationLatency, 'organization latency', organizationLatencyCounts],
  ] as const)
    measure(
      set,
      id,
      counts,
      (edge) => edgeOf(edge).latency,
      (finished) => finished.total,
      (finished, { bin }) => finished.below(bin!),
    );
  // What the counts are made of, each compared by identity: what each objective counts, each
  // set's sums of whole segments (kept while the segments hold the very counts), each window's run
  // of them, and the rows of each raw edge (kept minutes, by index). While all are the last
  // request's, so are the counts: an edge that moved past no execution counts what it counted.
  const madeOf: unknown[] = [];
  for (const objective of objectives)
    madeOf.push(objective.workflow_uuid, objective.indicator, objective.threshold_ms, objective.period_days);
  for (const set of [success, latency, organizationLatency]) {
    madeOf.push(sumsOf.get(set));
    for (const [length, { first, end, edges }] of set.windows()) {
      madeOf.push(length, first, end);
      for (const edge of edges)
        for (const { rows, from, to } of rawEdgeOf(edge).ranges) madeOf.push(rows, from, to);
    }
  }
  const made = MADE.get(organizationId) ?? [];
  const same = made.find((kept) => sameItems(kept.madeOf, madeOf));
  if (same !== undefined) return same.counts;
  const counts = objectives.map((objective) => {
    const scope = objective.workflow_uuid ?? ORGANIZATION;
    const of = measures.get(setOf(objective))!;
    const bin = objective.indicator === 'LATENCY' ? binOf(objective.threshold_ms!) : undefined;
    const series: Series = bin === undefined ? { id: scope, scope } : { id: `${bin}|${scope}`, scope, bin };
    const [period, ...windows] = lengthsOf(objective).map((length) => of(series, length));
    return { period: period!, windows };
  });
  // Read without a cache (inside a transaction: the SLO_BURN alert), nothing was kept to compare.
  if (cachedReadsOf(db) !== undefined)
    MADE.set(organizationId, [{ madeOf, counts }, ...made.slice(0, MADE_PER_ORGANIZATION - 1)]);
  return counts;
}
