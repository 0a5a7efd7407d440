import type { Database, Queryable, Transaction } from './database.js';

/**
 * The raw tables are range-partitioned by month (UTC) on their time column (contract section 6),
 * with a DEFAULT partition for rows of a month that has no partition yet. Partitions are named
 * `<table>_pYYYYMM` and `<table>_default`; retention reads a partition's month from its name.
 * See docs/partitions.md for the scheme and its decisions.
 */
export const PARTITIONED_TABLES = [
  { table: 'executions', column: 'started_at' },
  { table: 'execution_logs', column: 'timestamp' },
  { table: 'execution_events', column: 'started_at' },
] as const;

export type PartitionedTable = (typeof PARTITIONED_TABLES)[number];

/** Months created ahead of the current one, so that live data never lands in DEFAULT. */
export const MONTHS_AHEAD = 2;

/** Serialises partition maintenance across instances (any constant). */
const PARTITION_LOCK = 727_006;

/** A month as its first instant in UTC, in ms. */
export const monthStart = (ms: number): number => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};

export const addMonths = (month: number, n: number): number => {
  const d = new Date(month);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1);
};

export const partitionName = (table: string, month: number): string => {
  const d = new Date(month);
  return `${table}_p${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
};

export const defaultPartitionName = (table: string): string => `${table}_default`;

/**
 * A month's first instant as a literal PostgreSQL reads for every year it holds: toISOString
 * writes the month after December 9999 as `+010000-01-01T...`, which PostgreSQL refuses
 * ("time zone displacement out of range").
 */
const monthLiteral = (month: number): string => {
  const d = new Date(month);
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-01 00:00:00+00`;
};

const NAMED_MONTH = /_p(\d{4})(\d{2})$/;

/** The month partitions of `table` (name and month), oldest first; DEFAULT aside. */
export async function monthPartitions(
  db: Queryable,
  table: string,
): Promise<Array<{ name: string; month: number }>> {
  const rows = await db.query<{ name: string }>(
    `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
     where i.inhparent = $1::regclass`,
    [table],
  );
  return rows
    .flatMap(({ name }) => {
      const match = NAMED_MONTH.exec(name);
      return match ? [{ name, month: Date.UTC(Number(match[1]), Number(match[2]) - 1, 1) }] : [];
    })
    .sort((a, b) => a.month - b.month);
}

/** The months (first instants) that rows of the DEFAULT partition fall in. */
async function monthsInDefault(tx: Queryable, spec: PartitionedTable): Promise<number[]> {
  const rows = await tx.query<{ month: Date }>(
    `select distinct date_trunc('month', ${spec.column}, 'UTC') as month from ${defaultPartitionName(spec.table)}`,
  );
  return rows.map((row) => row.month.getTime());
}

/**
 * Creates the month partition of `month` unless it exists. Rows of that month already in the
 * DEFAULT partition (which would make a plain CREATE ... PARTITION OF fail) move into it: the new
 * table is filled from DEFAULT and then attached, under a lock on DEFAULT taken first, so that no
 * row of the month can arrive there meanwhile. Returns whether it created one.
 */
export async function createMonthPartition(
  tx: Transaction,
  spec: PartitionedTable,
  month: number,
  existing: ReadonlySet<string>,
): Promise<boolean> {
  const name = partitionName(spec.table, month);
  if (existing.has(name)) return false;
  const lo = monthLiteral(month);
  const hi = monthLiteral(addMonths(month, 1));
  const fallback = defaultPartitionName(spec.table);
  await tx.query(`lock table ${fallback} in access exclusive mode`);
  await tx.query(`create table ${name} (like ${spec.table} including defaults)`);
  await tx.query(
    `with moved as (delete from ${fallback} where ${spec.column} >= $1 and ${spec.column} < $2 returning *)
     insert into ${name} select * from moved`,
    [lo, hi],
  );
  await tx.query(`alter table ${spec.table} attach partition ${name} for values from ('${lo}') to ('${hi}')`);
  return true;
}

export interface MaintenanceResult {
  /** Partitions created (names). */
  readonly created: string[];
  /** Partitions dropped by retention (names). */
  readonly dropped: string[];
  /** Rows deleted from DEFAULT partitions by retention. */
  readonly defaultRowsDeleted: number;
  /**
   * Partitions whose work failed (the partition's name, or `<table>_default` for retention's
   * deletion there) with the database's reason; the rest of the round went on without them.
   */
  readonly failed: Array<{ partition: string; error: string }>;
}

/**
 * Runs one partition's work under a savepoint: a failure rolls back that work only, is noted
 * with the partition's name, and leaves the transaction usable for the others.
 */
async function onePartition(
  tx: Transaction,
  partition: string,
  failed: MaintenanceResult['failed'],
  work: () => Promise<void>,
): Promise<boolean> {
  await tx.query('savepoint wfapi_partition');
  try {
    await work();
  } catch (error) {
    await tx.query('rollback to savepoint wfapi_partition');
    failed.push({ partition, error: (error as Error).message });
    return false;
  }
  await tx.query('release savepoint wfapi_partition');
  return true;
}

/**
 * One round of partition upkeep, under a lock that serialises instances:
 * - the month partitions from the current month to MONTHS_AHEAD ahead exist;
 * - rows that landed in DEFAULT (a far past or future timestamp) move into partitions of their
 *   months, which are created for them (not for months that retention would drop at once);
 * - with `retentionDays`, each month partition that lies wholly before now minus that many days
 *   is detached and dropped, and DEFAULT rows before the first month kept are deleted.
 * Each partition's work is its own (a savepoint): one that fails is listed in `failed` and
 * tried again at the next round, and never stops the others.
 */
export async function maintainPartitions(
  db: Database,
  options: MaintenanceOptions = {},
): Promise<MaintenanceResult> {
  return db.transaction((tx) => maintainPartitionsIn(tx, options));
}

export interface MaintenanceOptions {
  /** The current instant (ms); tests pass another. */
  readonly now?: number;
  /** WFAPI_RETENTION_DAYS; absent: keep everything. */
  readonly retentionDays?: number | undefined;
}

/** maintainPartitions in the caller's transaction (the migration's). */
export async function maintainPartitionsIn(
  tx: Transaction,
  options: MaintenanceOptions = {},
): Promise<MaintenanceResult> {
  const now = options.now ?? Date.now();
  const keepFrom =
    options.retentionDays === undefined ? undefined : monthStart(now - options.retentionDays * 86_400_000);
  {
    await tx.query('select pg_advisory_xact_lock($1)', [PARTITION_LOCK]);
    const created: string[] = [];
    const dropped: string[] = [];
    const failed: MaintenanceResult['failed'] = [];
    if (keepFrom !== undefined) {
      await tx.query(
        `insert into raw_retention (kept_from) values ($1)
         on conflict (only_row) do update set kept_from = greatest(raw_retention.kept_from, excluded.kept_from)`,
        [new Date(keepFrom).toISOString()],
      );
    }
    let defaultRowsDeleted = 0;
    for (const spec of PARTITIONED_TABLES) {
      const partitions = await monthPartitions(tx, spec.table);
      const existing = new Set(partitions.map((p) => p.name));
      if (keepFrom !== undefined) {
        for (const partition of partitions) {
          if (addMonths(partition.month, 1) > keepFrom) continue;
          const gone = await onePartition(tx, partition.name, failed, async () => {
            await tx.query(`alter table ${spec.table} detach partition ${partition.name}`);
            await tx.query(`drop table ${partition.name}`);
          });
          if (!gone) continue;
          existing.delete(partition.name);
          dropped.push(partition.name);
        }
        await onePartition(tx, defaultPartitionName(spec.table), failed, async () => {
          const deleted = await tx.query<{ n: number }>(
            `with gone as (delete from ${defaultPartitionName(spec.table)} where ${spec.column} < $1 returning 1)
             select count(*)::int as n from gone`,
            [new Date(keepFrom).toISOString()],
          );
          defaultRowsDeleted += deleted[0]?.n ?? 0;
        });
      }
      const current = monthStart(now);
      const months = new Set<number>();
      for (let i = 0; i <= MONTHS_AHEAD; i++) months.add(addMonths(current, i));
      for (const month of await monthsInDefault(tx, spec)) months.add(month);
      for (const month of [...months].sort((a, b) => a - b)) {
        if (keepFrom !== undefined && month < keepFrom) continue;
        const name = partitionName(spec.table, month);
        let made = false;
        await onePartition(tx, name, failed, async () => {
          made = await createMonthPartition(tx, spec, month, existing);
        });
        if (made) {
          existing.add(name);
          created.push(name);
        }
      }
    }
    return { created, dropped, defaultRowsDeleted, failed };
  }
}

/**
 * The first instant whose raw rows are kept, once retention has run: the rollups still count what
 * lies before it, so readers that pair rollup counts with raw rows (a list's count, a deep page's
 * seek) start their window there, and list only what remains.
 */
export async function retainedFrom(db: Queryable): Promise<Date | undefined> {
  const [row] = await db.query<{ kept_from: Date }>('select kept_from from raw_retention');
  return row?.kept_from;
}
