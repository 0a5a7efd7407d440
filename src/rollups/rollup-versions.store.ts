/**
 * What a kept rollup answer is checked against (window-cache.ts): a counter per organization and
 * day of buckets, raised in the transaction of every ingestion that changes a rollup row of that
 * day (migration 0015), and the organization's number of workflows, which decides which workflows'
 * rows are visible (a workflow is never deleted, so the number changes exactly when the set does).
 */
import { LRUCache } from 'lru-cache';
import { genericPlan, type Queryable, type Transaction } from '../db/database.js';
import { rawRetention, rollupVersions } from '../db/tables.js';
import { floorTo } from '../lib/buckets.js';
import { sameItems } from '../lib/same-items.js';
import { firstAtOrAbove } from '../lib/sorted.js';
import { DAY } from '../lib/time.js';

/**
 * Raises the counter of each organization's day in `days` (day starts, ms). Called by ingestion
 * under the organizations' ingestion locks, after its rollup rows, in key order.
 */
export async function raiseRollupVersions(
  tx: Transaction,
  days: ReadonlyMap<string, ReadonlySet<number>>,
): Promise<void> {
  const organizations: string[] = [];
  const starts: Date[] = [];
  for (const organizationId of [...days.keys()].sort()) {
    for (const day of [...days.get(organizationId)!].sort((a, b) => a - b)) {
      organizations.push(organizationId);
      starts.push(new Date(day));
    }
  }
  if (organizations.length === 0) return;
  await tx.query(
    `insert into ${rollupVersions.name} as v (organization_id, day, version)
     select o, d, 1 from unnest($1::uuid[], $2::timestamptz[]) as k(o, d)
     on conflict (organization_id, day) do update set version = v.version + 1`,
    [organizations, starts],
  );
}

/**
 * The state of an organization's rollups over some days, as a reader saw it just before reading
 * them. Each counter only rises and the workflows only grow, so two states of the same days are
 * equal only when no ingestion changed those days, and no workflow arrived, in between.
 */
export class RollupVersions {
  /** Days read, ascending, and the running sum of their counters: sums[i] is that of days before days[i]. */
  private readonly days: number[];
  private readonly sums: number[];

  constructor(
    versions: ReadonlyMap<number, number>,
    private readonly workflows: number,
    /**
     * The retention mark read in the same statement (partitions.ts, retainedFrom: the first
     * instant whose raw rows are kept), ms; undefined before retention ever ran. Not a state of
     * the rollups: carried for readers that pair rollup counts with raw rows, so that they need
     * no statement of their own for it.
     */
    readonly keptFrom?: number,
  ) {
    this.days = [...versions.keys()].sort((a, b) => a - b);
    this.sums = [0];
    for (const day of this.days) this.sums.push(this.sums.at(-1)! + versions.get(day)!);
  }

  /** Whether `other` holds the very days, counters and workflows. */
  equals(other: RollupVersions): boolean {
    return (
      this.workflows === other.workflows &&
      this.keptFrom === other.keptFrom &&
      sameItems(this.days, other.days) &&
      sameItems(this.sums, other.sums)
    );
  }

  /** The state of the days that `[from, to)` touches (to null: every later day read). */
  of(from: number, to: number | null): string {
    const sum = this.sums[this.#firstAtOrAfter(to)]! - this.sums[this.#firstAtOrAfter(floorTo(from, DAY))]!;
    return `${sum}/${this.workflows}`;
  }

  /** The index of the first day read at or after `at` (null: past the last). */
  #firstAtOrAfter(at: number | null): number {
    return at === null ? this.days.length : firstAtOrAbove(this.days, at);
  }
}

/** The `day` of the statement's row that carries the retention mark: no day starts at -1 ms. */
const RETENTION_MARK = -1;

/** The versions read last, by organization and first day. */
const LATEST = new LRUCache<string, RollupVersions>({ max: 256 });

/**
 * The counters of the organization's days from `from`'s day on, every later one included (a day
 * has one row: a request's later reads of other windows then find theirs read already).
 */
export async function readRollupVersions(
  db: Queryable,
  organizationId: string,
  from: number,
): Promise<RollupVersions> {
  // Planned once per connection, as the rollup reads it comes before: no switch of the
  // connection's plan mode between them.
  const rows = await db.query<{ day: number | null; version: number }>(
    genericPlan(`select (extract(epoch from day) * 1000)::int8 as day, version from ${rollupVersions.name}
     where organization_id = $1 and day >= $2
     union all
     select null, count(*) from workflows where organization_id = $1
     union all
     select ${RETENTION_MARK}, (extract(epoch from kept_from) * 1000)::int8 from ${rawRetention.name}`),
    [organizationId, new Date(floorTo(from, DAY))],
  );
  const versions = new Map<number, number>();
  let workflows = 0;
  let keptFrom: number | undefined;
  for (const row of rows) {
    if (row.day === null) workflows = Number(row.version);
    else if (Number(row.day) === RETENTION_MARK) keptFrom = Number(row.version);
    else versions.set(Number(row.day), Number(row.version));
  }
  const read = new RollupVersions(versions, workflows, keptFrom);
  // The very versions read last for the same days while they are unchanged: what was derived
  // under them can be known unchanged by identity (keptPerWindow).
  const id = `${organizationId}|${floorTo(from, DAY)}`;
  const last = LATEST.get(id);
  if (last?.equals(read)) return last;
  LATEST.set(id, read);
  return read;
}
