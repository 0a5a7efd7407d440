/**
 * One description per rollup table. The ingest writer (rollup-writer.store.ts) and the window
 * reader (rollup-reader.store.ts) both work from it, so a new aggregate is one definition here
 * plus one migration that creates its table.
 *
 * Every rollup table has the key `(organization_id, grain, bucket_start, ...dimensions)` and one
 * column per measure. Rows exist at every grain the rollup keeps (`grains`, rungs of the ladder in
 * grains.ts), and, for rollups with `allTime`, at the all-time grain too.
 */

import type { Columns } from '../db/unnest-insert.js';
import type { BinCounts } from './bin-counts.js';
import { DEFAULT_LADDER, type Grain, ladderOf, recentRungsKeptFrom } from './grains.js';

/** How a dimension is typed in SQL; its JavaScript value is always a string. */
export type DimensionType = 'uuid' | 'text';

/**
 * How a measure combines. `count` and `decimal` add (decimal exactly, as 10^-18 units); `min`
 * and `max` keep the extreme (a removal makes the row's extreme stale: see `refreshExtremes`);
 * `histogram` adds bin counts, stored as an int4[] whose lower bound is the first bin's index,
 * empty bins null (migrations 0014 and 0017).
 */
export type MeasureKind = 'count' | 'decimal' | 'min' | 'max' | 'histogram';

/** The extreme a `min` or `max` measure keeps of `current` (null: none yet) and `candidate`. */
export function extreme(kind: MeasureKind, current: number | null, candidate: number): number {
  if (current === null) return candidate;
  return kind === 'min' ? Math.min(current, candidate) : Math.max(current, candidate);
}

export const MEASURE_SQL_TYPE: Readonly<Record<MeasureKind, string>> = {
  count: 'int8',
  decimal: 'numeric',
  min: 'int8',
  max: 'int8',
  histogram: 'int4[]',
};

/** What one item adds to a measure: a count, decimal units, an extreme candidate, or a bin index. */
export type Contribution<K extends MeasureKind> = K extends 'decimal'
  ? bigint
  : K extends 'histogram'
    ? { readonly bin: number }
    : number;

/** A measure's value once summed over rows: bin counts for a histogram. */
export type MeasureValue<K extends MeasureKind> = K extends 'decimal'
  ? string
  : K extends 'histogram'
    ? BinCounts
    : K extends 'min' | 'max'
      ? number | null
      : number;

export interface RawSql {
  /** `and <column> = p.workflow_uuid` for per-workflow windows, else the organization's visible workflows. */
  scope(workflowColumn: string): string;
  /**
   * The reader's filter on a dimension: `<column>` is one of the allowed values (when some are
   * given) and none of the excepted ones (when some are given).
   */
  filter(dimension: string, column: string): string;
  /** The reader's allowed values of a dimension, as an array parameter: null when any value is allowed. */
  allowed(dimension: string): string;
}

export type Measures = Readonly<Record<string, MeasureKind>>;

export interface RollupSpec<D extends string, MS extends Measures> {
  readonly table: string;
  /** Dimension columns besides organization_id, grain and bucket_start; part of the key. */
  readonly dimensions: Readonly<Record<D, DimensionType>>;
  readonly measures: MS;
  /**
   * The rungs of the grain ladder (grains.ts) it keeps, finest first, from the finest to the day;
   * absent, DEFAULT_LADDER.
   */
  readonly grains?: readonly Grain[];
  /**
   * How many of its finest rungs it keeps for recent buckets only (grains.ts, recentRungsKeptFrom):
   * ingestion skips them for older buckets, the server's rollup upkeep deletes them as they age
   * (rollup-upkeep.store.ts), and readers cover older parts of a window with the coarser rungs
   * (windows.ts, coverWindow). Absent, none: every rung is kept for ever.
   */
  readonly recentRungs?: number;
  /** Also keep one all-time row per key (grain ALL_TIME). */
  readonly allTime?: boolean;
  /**
   * Which of its window reads are planned generically, once per connection (db/database.ts,
   * genericPlan): `all`, or `per-workflow` (organization-wide reads keep PostgreSQL's own choice);
   * absent, none. Chosen by measurement, side by side (README, "Generic plans for window reads").
   */
  readonly genericPlans?: 'all' | 'per-workflow';
  /**
   * The raw rows of a window's partial edge, in the reader's output shape: every dimension
   * column, then every measure (a count as 1 per row, a histogram as `<m>_lo` (the bin) and
   * `<m>` ('1')), for rows whose time lies in `[p.lo, p.hi)` of the organization `$1`. It must
   * apply `scope` to its workflow column and `filter` to each dimension it can filter.
   */
  readonly raw: (sql: RawSql) => string;
  /**
   * The tables `raw` reads rows from by time, each with its time column (indexed with the
   * organization as `(organization_id, <time>)`): counting their index entries on each side of
   * an edge tells cheaply which side holds fewer rows to read (rollup-reader.store.ts). Absent:
   * edges are always read row by row (cheap rows, where weighing the sides costs more). `when`,
   * a condition on the reader's parameters alone, tells when `raw` reads the table at all (a
   * read whose filters leave it out does not weigh its rows either).
   */
  readonly rawTables?: readonly (readonly [
    table: string,
    timeColumn: string,
    when?: (sql: Pick<RawSql, 'allowed'>) => string,
  ])[];
}

export interface Rollup<D extends string, MS extends Measures> extends RollupSpec<D, MS> {
  readonly grains: readonly Grain[];
  readonly recentRungs: number;
  readonly dimensionNames: readonly D[];
  readonly measureNames: readonly (keyof MS & string)[];
}

export type AnyRollup = Rollup<string, Measures>;

/** What one item adds to each measure it touches. */
export type Contributions<MS extends Measures> = { readonly [K in keyof MS]?: Contribution<MS[K]> };

/** Measures summed over rows. */
export type MeasureValues<MS extends Measures> = { [K in keyof MS]: MeasureValue<MS[K]> };

export function defineRollup<D extends string, MS extends Measures>(spec: RollupSpec<D, MS>): Rollup<D, MS> {
  const grains = ladderOf(spec.grains ?? DEFAULT_LADDER);
  const recentRungs = spec.recentRungs ?? 0;
  if (recentRungs >= grains.length) throw new Error('a rollup keeps at least its coarsest rung for ever');
  return Object.freeze({
    ...spec,
    grains,
    recentRungs,
    dimensionNames: Object.keys(spec.dimensions) as D[],
    measureNames: Object.keys(spec.measures) as (keyof MS & string)[],
  });
}

/**
 * The first bucket that `rollup`'s recent-only rungs (RollupSpec.recentRungs) keep at `now`
 * (grains.ts, recentRungsKeptFrom); minus infinity when it keeps every rung for ever.
 */
export function recentRowsFrom(rollup: Pick<AnyRollup, 'recentRungs'>, now: number): number {
  return rollup.recentRungs > 0 ? recentRungsKeptFrom(now) : Number.NEGATIVE_INFINITY;
}

/** A rollup table's columns with their types: the key, then the measures. */
export function rollupColumns(rollup: AnyRollup): Columns {
  return [
    ['organization_id', 'uuid'],
    ['grain', 'int4'],
    ['bucket_start', 'timestamptz'],
    ...rollup.dimensionNames.map((name): [string, string] => [name, rollup.dimensions[name]!]),
    ...rollup.measureNames.map((name): [string, string] => [name, MEASURE_SQL_TYPE[rollup.measures[name]!]]),
  ];
}

/** The key columns of a rollup, in the order the writer sends them. */
export function keyColumns(rollup: AnyRollup): string[] {
  return ['organization_id', 'grain', 'bucket_start', ...rollup.dimensionNames];
}

/** The nil uuid, standing for "every visible workflow" in rollups that keep organization-wide rows. */
export const EVERY_WORKFLOW = '00000000-0000-0000-0000-000000000000';

/**
 * SQL: `column` names a workflow of the organization $1, the visibility every read applies (a
 * workflow's rows count once it has arrived), in one of two forms.
 * - `hashed`: an `exists` kept out of the join tree (`is true`), which PostgreSQL answers from
 *   one hash of the organization's workflows per statement, or, when they do not fit in work_mem
 *   (4 MB by default: some 50,000 workflows), by probing the workflows' key for each row. For
 *   generic plans, which cannot see a window's pieces and expect one row per piece: there a bare
 *   `in` became a join that rescanned the workflows for every rollup row (error groups' spread
 *   costs 0.75 of that, the deep page's seek 0.7). And for reads whose access path is a plain
 *   range of one index, where the check only filters. (An `in` kept out of the join tree hashes
 *   as well, but past work_mem it scans the whole list for each row.)
 * - `joined`: a bare `in`, which the planner turns into a join and estimates. For custom-planned
 *   window reads: the membership test hides how selective the check is, and the planner then
 *   read the organization's rollups whole (its 24-hour activity took 42 ms instead of 1.3).
 */
export const isVisibleWorkflow = (column: string, form: 'hashed' | 'joined') =>
  form === 'hashed'
    ? `(exists (select 1 from workflows vw where vw.organization_id = $1 and vw.uuid = ${column})) is true`
    : `${column} in (select uuid from workflows where organization_id = $1)`;
