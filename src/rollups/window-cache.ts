/**
 * Answers of rollup reads kept in memory, per piece of a window (windows.ts), for as long as the
 * rollups they were read from are unchanged. Most pieces of the windows wfapi reads lie in days
 * that no longer change: the hours of last week an anomaly baseline reads, the days of an
 * objective's period, the windows around a past deployment. A kept piece is used again only when
 * its organization's rollup versions over the piece's days (rollup-versions.store.ts) are those it
 * was read under, so an answer is never older than one read from the database.
 *
 * Bounded in bytes (estimated), least recently used first out. One cache per server process and
 * database: kept answers are that database's, and never leave the process.
 */
import type { Database, Queryable } from '../db/database.js';
import { floorTo } from '../lib/buckets.js';
import { DAY } from '../lib/time.js';
import { type RollupVersions, readRollupVersions } from './rollup-versions.store.js';

/** A kept piece's rows, in the shape the reader folds them into (rollup-reader.store.ts). */
export interface KeptRow {
  readonly dimensions: Readonly<Record<string, string>>;
  readonly values: Readonly<Record<string, unknown>>;
}

interface Entry {
  readonly version: string;
  readonly rows: readonly KeptRow[];
  readonly bytes: number;
}

export interface WindowCacheUse {
  readonly hits: number;
  readonly misses: number;
  readonly bytes: number;
  readonly entries: number;
}

/**
 * A kept entry's size: its overhead, its key, and each row (a row of counts with two dimensions
 * takes about 220 bytes of heap; measured with rows like the reader's, 2026-12-06).
 */
const ENTRY_BYTES = 300;
const ROW_BYTES = 220;

export class WindowCache {
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;
  #hits = 0;
  #misses = 0;

  /** @param maxBytes what the kept rows may take, estimated; 0 keeps nothing. */
  constructor(readonly maxBytes: number) {}

  /** The rows kept for `key` when they were read under `version`; undefined otherwise. */
  get(key: string, version: string): readonly KeptRow[] | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined || entry.version !== version) {
      this.#misses++;
      return undefined;
    }
    this.#hits++;
    // Most recently used last.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.rows;
  }

  /** Keeps `rows`, read under `version`, for `key`; `extraBytes` is what their values hold beyond a row. */
  set(key: string, version: string, rows: readonly KeptRow[], extraBytes: number): void {
    const bytes = ENTRY_BYTES + key.length * 2 + rows.length * ROW_BYTES + extraBytes;
    this.#remove(key);
    if (bytes > this.maxBytes / 16) return;
    this.#entries.set(key, { version, rows, bytes });
    this.#bytes += bytes;
    for (const oldest of this.#entries.keys()) {
      if (this.#bytes <= this.maxBytes) break;
      this.#remove(oldest);
    }
  }

  use(): WindowCacheUse {
    return { hits: this.#hits, misses: this.#misses, bytes: this.#bytes, entries: this.#entries.size };
  }

  #remove(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}

/**
 * What the rollup reads of one request share: the server's cache, and the versions read so far
 * (a request that reads several rollups over the same days, as `serviceLevels` and `anomalies`
 * do, reads their versions once). Versions read earlier in the request stand for the request's
 * later reads: a piece kept under them is as old as a read at that moment, and one read after is
 * kept under them, so stale at the next check if a commit came between.
 */
export class CachedReads {
  readonly #versions: Array<{
    readonly organizationId: string;
    readonly from: number;
    readonly to: number | null;
    readonly versions: Promise<RollupVersions>;
  }> = [];

  constructor(readonly cache: WindowCache) {}

  /** The versions of the organization's days from `from`'s day to before `to` (null: no end). */
  versions(db: Queryable, organizationId: string, from: number, to: number | null): Promise<RollupVersions> {
    const day = floorTo(from, DAY);
    const covering = this.#versions.find(
      (read) =>
        read.organizationId === organizationId &&
        read.from <= day &&
        (read.to === null || (to !== null && to <= read.to)),
    );
    if (covering !== undefined) return covering.versions;
    const versions = readRollupVersions(db, organizationId, day, to);
    this.#versions.push({ organizationId, from: day, to, versions });
    return versions;
  }
}

/** A database handle whose rollup reads may use a cache. */
interface WithCachedReads {
  readonly cachedReads?: CachedReads;
}

/**
 * `db` for one request, its rollup reads using `cache`. Only a handle outside a transaction gets
 * one: a transaction sees its own uncommitted rollups, which a kept answer must never hold.
 */
export function withWindowCache(db: Database, cache: WindowCache | undefined): Database {
  if (cache === undefined || cache.maxBytes === 0) return db;
  const cached: Database & WithCachedReads = {
    kind: db.kind,
    query: (text, params) => db.query(text, params),
    transaction: (fn) => db.transaction(fn),
    abortable: (signal) => withWindowCache(db.abortable(signal), cache),
    ping: () => db.ping(),
    close: () => db.close(),
    ...(db.poolUse && { poolUse: db.poolUse }),
    cachedReads: new CachedReads(cache),
  };
  return cached;
}

/** What `db`'s rollup reads may share, if anything (never inside a transaction). */
export function cachedReadsOf(db: Queryable): CachedReads | undefined {
  if ((db as { inTransaction?: boolean }).inTransaction === true) return undefined;
  return (db as WithCachedReads).cachedReads;
}
