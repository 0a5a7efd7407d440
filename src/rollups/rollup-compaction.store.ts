import type { Database, Queryable } from '../db/database.js';
import { durations } from './durations.rollup.js';
import { errorGroupCounts } from './error-groups.rollup.js';
import { executionCounts } from './execution-counts.rollup.js';

/** The tables whose indexes upkeep keeps compact: every rollup's. */
export const ROLLUP_TABLES: readonly string[] = [durations, errorGroupCounts, executionCounts].map(
  (rollup) => rollup.table,
);

/**
 * An index is rebuilt once it takes this many times the size its entries would take written in
 * key order. Ingestion adds a rollup's new buckets at one point of its key per organization and
 * rung, where a full page splits in halves: the half left behind holds past buckets, which get no
 * new keys, and stays half full for good (a loaded million: 54% full, 1.8 times; a rebuilt index
 * estimates at 1.05-1.1 times, so one rebuild is not followed by another for a long time).
 */
export const REBUILD_RATIO = 1.4;

/** Indexes smaller than this are never rebuilt: what a rebuild would give back is not worth it. */
export const REBUILD_MIN_BYTES = 16 * 1024 * 1024;

/** Serialises rebuilds across instances (any constant; partitions.ts uses another). */
export const COMPACTION_LOCK = 727_045;

const PAGE = 8192;
/** A btree leaf page's room for entries: the page less its header (24 bytes) and special space (16). */
const LEAF_ROOM = PAGE - 24 - 16;
/** A btree's leaf fillfactor when it is built (PostgreSQL's default, 90). */
const BUILD_FILL = 0.9;
/** Inner pages over the leaves: about one for every hundred leaves, at least the root. */
const innerPages = (leaves: number) => (leaves > 1 ? Math.ceil(leaves / 100) : 0);

const ALIGNMENT: Readonly<Record<string, number>> = { c: 1, s: 2, i: 4, d: 8 };
const alignUp = (offset: number, to: number) => Math.ceil(offset / to) * to;

/** One column of an index entry: its type's length (-1: variable) and alignment, its average width. */
interface EntryColumn {
  readonly len: number;
  readonly align: string;
  readonly avgWidth: number;
}

/**
 * An index entry's bytes on a leaf page: its header (8 bytes), each column at its alignment, the
 * whole aligned to 8, and its 4-byte line pointer. A variable-length value under 127 bytes is
 * stored with a one-byte header and no alignment (pg_stats' widths count its header).
 */
export function entryBytes(columns: readonly EntryColumn[]): number {
  let offset = 8;
  for (const column of columns) {
    const width = column.len > 0 ? column.len : column.avgWidth;
    const align = column.len > 0 || column.avgWidth >= 127 ? (ALIGNMENT[column.align] ?? 8) : 1;
    offset = alignUp(offset, align) + width;
  }
  return alignUp(offset, 8) + 4;
}

/** A rollup index: its size now and the size its entries would take written compactly. */
export interface IndexFill {
  readonly index: string;
  readonly table: string;
  readonly bytes: number;
  /** Bytes of the same entries in a freshly built index (leaves 90% full), from the table's statistics. */
  readonly compactBytes: number;
}

/**
 * The btree indexes of `tables` with their size and estimated compact size. An index whose table
 * has no statistics yet (never analyzed) or that indexes an expression is left out: its compact
 * size cannot be estimated.
 */
export async function indexFill(
  db: Queryable,
  tables: readonly string[] = ROLLUP_TABLES,
): Promise<IndexFill[]> {
  const rows = await db.query<{
    index: string;
    table: string;
    bytes: number;
    tuples: number;
    lens: number[];
    aligns: string[];
    widths: Array<number | null>;
  }>(
    `select ix.relname as index, t.relname as table, pg_relation_size(ix.oid)::int8 as bytes,
            t.reltuples::float8 as tuples,
            array_agg(ty.typlen::int order by k.n) as lens,
            array_agg(ty.typalign::text order by k.n) as aligns,
            array_agg(s.avg_width order by k.n) as widths
     from pg_index i
     join pg_class ix on ix.oid = i.indexrelid
     join pg_am am on am.oid = ix.relam and am.amname = 'btree'
     join pg_class t on t.oid = i.indrelid
     cross join lateral unnest(i.indkey::int2[]) with ordinality k(attnum, n)
     left join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum
     left join pg_type ty on ty.oid = a.atttypid
     left join pg_stats s on s.schemaname = t.relnamespace::regnamespace::text
                         and s.tablename = t.relname and s.attname = a.attname
     where t.relname = any($1::text[]) and t.relnamespace = current_schema()::regnamespace and i.indisvalid
     group by ix.relname, ix.oid, t.relname, t.reltuples
     order by ix.relname`,
    [tables],
  );
  return rows.flatMap((row) => {
    if (row.tuples <= 0 || row.lens.some((len) => len === null) || row.widths.some((w) => w === null))
      return [];
    const columns = row.lens.map((len, i) => ({ len, align: row.aligns[i]!, avgWidth: row.widths[i]! }));
    const leaves = Math.ceil((row.tuples * entryBytes(columns)) / (LEAF_ROOM * BUILD_FILL));
    return [
      {
        index: row.index,
        table: row.table,
        bytes: row.bytes,
        // The leaves, the inner pages over them and the metapage.
        compactBytes: (leaves + innerPages(leaves) + 1) * PAGE,
      },
    ];
  });
}

/** Whether an index is worth rebuilding: large enough, and far enough over its compact size. */
export const needsRebuild = (fill: IndexFill, minBytes = REBUILD_MIN_BYTES): boolean =>
  fill.bytes >= minBytes && fill.bytes >= REBUILD_RATIO * fill.compactBytes;

/** A rebuilt index, its size before and after. */
export interface Rebuilt {
  readonly index: string;
  readonly bytesBefore: number;
  readonly bytesAfter: number;
}

export interface CompactionRound {
  readonly rebuilt: readonly Rebuilt[];
  /** Invalid leftovers of an interrupted concurrent rebuild, dropped. */
  readonly dropped: readonly string[];
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Rebuilds each rollup index that has grown to REBUILD_RATIO times its compact size (and at least
 * `minBytes`). On PostgreSQL with `REINDEX INDEX CONCURRENTLY`: reads and ingestion go on while it
 * runs, it needs the index's size again on disk meanwhile, and one instance rebuilds at a time (an
 * advisory lock; the others skip the round). Before that it drops the invalid `_ccnew`/`_ccold`
 * leftovers a rebuild interrupted by a crash or a lost connection leaves behind. The embedded
 * database has one connection and no concurrent writer: a plain `REINDEX` (the server schedules
 * none there, see app.ts).
 *
 * On PostgreSQL `db` must be one connection (the lock is the session's) that runs statements
 * without a time limit (a rebuild of a large index outlasts any request's): the server opens one
 * for the round. `stopped` ends the round between two indexes.
 */
export async function compactRollupIndexes(
  db: Database,
  options: { readonly minBytes?: number; readonly stopped?: () => boolean } = {},
): Promise<CompactionRound> {
  const stopped = options.stopped ?? (() => false);
  const concurrent = db.kind === 'postgres';
  if (concurrent) {
    const [lock] = await db.query<{ held: boolean }>('select pg_try_advisory_lock($1) as held', [
      COMPACTION_LOCK,
    ]);
    if (!lock?.held) return { rebuilt: [], dropped: [] };
  }
  try {
    const dropped = concurrent ? await dropInterruptedRebuilds(db) : [];
    const rebuilt: Rebuilt[] = [];
    for (const fill of await indexFill(db)) {
      if (stopped()) break;
      if (!needsRebuild(fill, options.minBytes)) continue;
      await db.query(`reindex index ${concurrent ? 'concurrently ' : ''}${quoted(fill.index)}`);
      const [after] = await db.query<{ bytes: number }>(
        'select pg_relation_size($1::regclass)::int8 as bytes',
        [quoted(fill.index)],
      );
      rebuilt.push({ index: fill.index, bytesBefore: fill.bytes, bytesAfter: after!.bytes });
    }
    return { rebuilt, dropped };
  } finally {
    // A failed unlock (the connection lost) must not hide the round's own error: closing the
    // connection, as its opener does after the round, releases the lock anyway.
    if (concurrent) await db.query('select pg_advisory_unlock($1)', [COMPACTION_LOCK]).catch(() => {});
  }
}

/** Drops the invalid indexes a concurrent rebuild of a rollup index left when it was interrupted. */
async function dropInterruptedRebuilds(db: Queryable): Promise<string[]> {
  const leftovers = await db.query<{ index: string }>(
    `select ix.relname as index from pg_index i
     join pg_class ix on ix.oid = i.indexrelid join pg_class t on t.oid = i.indrelid
     where not i.indisvalid and t.relname = any($1::text[]) and t.relnamespace = current_schema()::regnamespace
       and ix.relname ~ '_cc(new|old)[0-9]*$'`,
    [ROLLUP_TABLES],
  );
  for (const { index } of leftovers) await db.query(`drop index concurrently if exists ${quoted(index)}`);
  return leftovers.map((row) => row.index);
}
