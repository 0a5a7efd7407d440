import { floorTo } from '../lib/buckets.js';
import { DAY } from '../lib/time.js';
import { ALL_TIME, ALL_TIME_START } from './grains.js';
import {
  type Contributions,
  extreme,
  type MeasureKind,
  type Measures,
  type Rollup,
  recentRowsFrom,
} from './rollup.js';

/** One row of a rollup table, named by its key. */
export interface RollupKey<D extends string> {
  readonly organizationId: string;
  readonly grain: number;
  /** Start of the bucket in ms since the epoch (the epoch for all-time rows). */
  readonly bucketStart: number;
  readonly dimensions: Readonly<Record<D, string>>;
}

/** A measure's change: counts and decimal units add up, extremes keep candidates, histograms add per bin. */
export type DeltaValue = number | bigint | null | Map<number, number>;

export interface DeltaRow<D extends string> {
  readonly key: RollupKey<D>;
  readonly values: Record<string, DeltaValue>;
  /** A contribution was taken away: the row's stored extremes (min, max) may be stale. */
  removed: boolean;
}

function emptyValue(kind: MeasureKind): DeltaValue {
  switch (kind) {
    case 'count':
      return 0;
    case 'decimal':
      return 0n;
    case 'min':
    case 'max':
      return null;
    case 'histogram':
      return new Map();
  }
}

/**
 * Signed contributions of items (executions, events, error occurrences) to one rollup, summed per
 * row before they are written: +1 for a state now stored, -1 for the state it replaced. The
 * writer applies them in one statement (rollup-writer.store.ts). Keys are typed objects; the map
 * key is only their serialisation, never split back.
 */
export class RollupDeltas<D extends string, MS extends Measures> {
  /** Rows of the finest grain; the coarser ones are folded from them when the rows are taken. */
  private readonly finest = new Map<string, DeltaRow<D>>();

  constructor(readonly rollup: Rollup<D, MS>) {}

  get size(): number {
    return this.finest.size;
  }

  /**
   * Adds one item at `time` (ms): to its finest bucket now, and through it to the buckets of every
   * grain (and the all-time row when the rollup keeps one). Extremes only take candidates from
   * additions; a removal marks the row stale.
   */
  add(
    organizationId: string,
    time: number,
    dimensions: Readonly<Record<D, string>>,
    contributions: Contributions<MS>,
    sign: 1 | -1,
  ): void {
    const finest = this.rollup.grains[0]!;
    const key = {
      organizationId,
      grain: finest.seconds,
      bucketStart: floorTo(time, finest.ms),
      dimensions,
    };
    const row = this.rowOf(this.finest, key);
    if (sign < 0) row.removed = true;
    for (const name of this.rollup.measureNames) {
      const contribution = contributions[name];
      if (contribution === undefined) continue;
      const kind = this.rollup.measures[name]!;
      const current = row.values[name];
      if (kind === 'count') row.values[name] = (current as number) + sign * (contribution as number);
      else if (kind === 'decimal')
        row.values[name] = (current as bigint) + BigInt(sign) * (contribution as bigint);
      else if (kind === 'histogram') {
        const bins = current as Map<number, number>;
        const { bin } = contribution as { bin: number };
        bins.set(bin, (bins.get(bin) ?? 0) + sign);
      } else if (sign > 0) row.values[name] = extreme(kind, current as number | null, contribution as number);
    }
  }

  /** Each organization's days (UTC day starts, ms) that the rows fall in. */
  days(into: Map<string, Set<number>> = new Map()): Map<string, Set<number>> {
    for (const { key } of this.finest.values()) {
      const days = into.get(key.organizationId) ?? new Set<number>();
      days.add(floorTo(key.bucketStart, DAY));
      into.set(key.organizationId, days);
    }
    return into;
  }

  /**
   * Every row, of every grain, in key order, so that concurrent writers touch shared rows in one
   * order. Each grain's rows are folded from the next finer grain's (each bucket lies inside one
   * bucket of every coarser grain), so a row is folded once, not once per coarser grain. A rollup
   * that keeps its finest rungs for recent buckets only (RollupSpec.recentRungs) gets no rows of
   * them older than recentRungsKeptFrom(`now`); the rungs kept for ever still count them.
   */
  sorted(now: number = Date.now()): DeltaRow<D>[] {
    const recent = this.rollup.grains.slice(0, this.rollup.recentRungs).map((grain) => grain.seconds);
    const keptFrom = recentRowsFrom(this.rollup, now);
    const all = new Map<string, DeltaRow<D>>();
    const keep = (rows: ReadonlyMap<string, DeltaRow<D>>) => {
      for (const [id, row] of rows)
        if (row.key.bucketStart >= keptFrom || !recent.includes(row.key.grain)) all.set(id, row);
    };
    keep(this.finest);
    const coarser: Array<{ seconds: number; ms: number } | 'all-time'> = [
      ...this.rollup.grains.slice(1),
      ...(this.rollup.allTime ? (['all-time'] as const) : []),
    ];
    let finer = this.finest;
    for (const grain of coarser) {
      const rows = new Map<string, DeltaRow<D>>();
      for (const row of finer.values()) {
        const key =
          grain === 'all-time'
            ? { ...row.key, grain: ALL_TIME, bucketStart: ALL_TIME_START.getTime() }
            : { ...row.key, grain: grain.seconds, bucketStart: floorTo(row.key.bucketStart, grain.ms) };
        this.fold(this.rowOf(rows, key), row);
      }
      keep(rows);
      finer = rows;
    }
    return [...all.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
  }

  private rowOf(rows: Map<string, DeltaRow<D>>, key: RollupKey<D>): DeltaRow<D> {
    // The map key only identifies the row (U+0000 cannot occur in stored text); the typed key is kept.
    let id = `${key.organizationId}\u0000${key.grain}\u0000${key.bucketStart}`;
    for (const name of this.rollup.dimensionNames) id += `\u0000${key.dimensions[name]}`;
    let row = rows.get(id);
    if (!row) {
      const values: Record<string, DeltaValue> = {};
      for (const name of this.rollup.measureNames) values[name] = emptyValue(this.rollup.measures[name]!);
      row = { key, values, removed: false };
      rows.set(id, row);
    }
    return row;
  }

  /** Adds a finer row's summed values into a coarser row. */
  private fold(into: DeltaRow<D>, from: DeltaRow<D>): void {
    if (from.removed) into.removed = true;
    for (const name of this.rollup.measureNames) {
      const kind = this.rollup.measures[name]!;
      const value = from.values[name]!;
      const current = into.values[name]!;
      if (kind === 'count') into.values[name] = (current as number) + (value as number);
      else if (kind === 'decimal') into.values[name] = (current as bigint) + (value as bigint);
      else if (kind === 'histogram') {
        const bins = current as Map<number, number>;
        for (const [bin, n] of value as Map<number, number>) bins.set(bin, (bins.get(bin) ?? 0) + n);
      } else if (value !== null) into.values[name] = extreme(kind, current as number | null, value as number);
    }
  }
}
