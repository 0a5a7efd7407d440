/**
 * Answers of rollup reads kept in memory, per piece of a window (windows.ts), for as long as the
 * rollups they were read from are unchanged. Most pieces of the windows wfapi reads lie in days
 * that no longer change: the hours of last week an anomaly baseline reads, the days of an
 * objective's period, the windows around a past deployment. A kept piece is used again only when
 * its organization's rollup versions over the piece's days (rollup-versions.store.ts) are those it
 * was read under, so an answer is never older than one read from the database. What a caller
 * derives from a whole window (keptPerWindow) is kept under the same check.
 *
 * Bounded in bytes (estimated), least recently used first out. One cache per server process and
 * database: kept answers are that database's, and never leave the process.
 */
import { LRUCache } from 'lru-cache';
import type { Database, Queryable } from '../db/database.js';
import { retainedFrom } from '../db/partitions.js';
import { floorTo } from '../lib/buckets.js';
import { sameItems } from '../lib/same-items.js';
import { DAY } from '../lib/time.js';
import { type RollupVersions, readRollupVersions } from './rollup-versions.store.js';
import { coverWindow, type WindowPiece } from './windows.js';

/**
 * A kind of kept answer: the name its keys are kept under, apart from other kinds', and the type of
 * its values (the rows of a rollup piece, the figures an anomaly detection derives from a bucket).
 */
export class KeptKind<T> {
  /** Never set: carries the values' type. */
  declare readonly values: T;
  constructor(readonly name: string) {}
}

interface Entry {
  readonly version: string;
  readonly value: unknown;
  readonly bytes: number;
}

export interface WindowCacheUse {
  readonly hits: number;
  readonly misses: number;
  readonly bytes: number;
  readonly entries: number;
}

/** A key of `kind`, apart from other kinds' keys. */
const keyOf = <T>(kind: KeptKind<T>, key: string) => `${kind.name}\u0000${key}`;

/** A kept entry's own size, besides its key and its value. */
const ENTRY_BYTES = 300;

/** How many keys offered once (WindowCache.set with `onRepeat`) are remembered. */
const OFFERED_ONCE = 1024;

export class WindowCache {
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;
  #hits = 0;
  #misses = 0;
  /** Keys offered once with `onRepeat` and not kept (yet): the next offer keeps. */
  readonly #offeredOnce = new LRUCache<string, true>({ max: OFFERED_ONCE });

  /** @param maxBytes what the kept values may take, estimated; 0 keeps nothing. */
  constructor(readonly maxBytes: number) {}

  /**
   * By kind, organization and id (keptPerWindow's): the windows asked last, the versions they were
   * asked under and the answer, the values the cache's own (replaced when their days change, never
   * changed). A poll asks for the very windows under the very versions, hundreds of them.
   */
  readonly #answers = new LRUCache<
    string,
    {
      readonly versions: RollupVersions;
      readonly windows: readonly KeptWindow[];
      readonly answer: ReadonlyMap<number, unknown>;
    }
  >({ max: 256 });

  /** The answer kept for the very `windows` under the very `versions` (each window a hit), if any. */
  lastAnswer<T>(
    kind: KeptKind<T>,
    id: string,
    versions: RollupVersions,
    windows: readonly KeptWindow[],
  ): ReadonlyMap<number, T> | undefined {
    const last = this.#answers.get(keyOf(kind, id));
    if (last === undefined || last.versions !== versions || !sameItems(last.windows, windows, sameWindow))
      return undefined;
    this.#hits += windows.length;
    return last.answer as ReadonlyMap<number, T>;
  }

  /** Keeps the answer for `windows` under `versions`: each window's value must be kept or keepable. */
  keepAnswer<T>(
    kind: KeptKind<T>,
    id: string,
    versions: RollupVersions,
    windows: readonly KeptWindow[],
    answer: ReadonlyMap<number, T>,
  ): void {
    if (this.maxBytes > 0) this.#answers.set(keyOf(kind, id), { versions, windows, answer });
  }

  /** The value of `kind` kept for `key` when it was read under `version`; undefined otherwise. */
  get<T>(kind: KeptKind<T>, key: string, version: string): T | undefined {
    const id = keyOf(kind, key);
    const entry = this.#entries.get(id);
    if (entry === undefined || entry.version !== version) {
      this.#misses++;
      return undefined;
    }
    this.#hits++;
    // Most recently used last.
    this.#entries.delete(id);
    this.#entries.set(id, entry);
    return entry.value as T;
  }

  /**
   * Keeps `value` of `kind`, read under `version`, for `key`; `valueBytes` is its estimated heap
   * size. The caller hands over `value`: nothing may change it afterwards. With `onRepeat`, a key
   * neither kept nor offered before is only remembered: the value is kept from its second offer on
   * (for answers most of which are never asked for again: KeptWindow.askedEdges).
   */
  set<T>(
    kind: KeptKind<T>,
    key: string,
    version: string,
    value: T,
    valueBytes: number,
    options?: { readonly onRepeat?: boolean },
  ): void {
    if (options?.onRepeat === true && !this.seenBefore(kind, key)) {
      this.remember(kind, key);
      return;
    }
    const id = keyOf(kind, key);
    this.#offeredOnce.delete(id);
    // The key is kept too, two bytes a character.
    const size = id.length * 2 + valueBytes;
    this.#remove(id);
    if (!this.holds(size)) return;
    const bytes = ENTRY_BYTES + size;
    this.#entries.set(id, { version, value, bytes });
    this.#bytes += bytes;
    for (const oldest of this.#entries.keys()) {
      if (this.#bytes <= this.maxBytes) break;
      this.#remove(oldest);
    }
  }

  /**
   * Whether `key` of `kind` was kept, or offered (`set` with `onRepeat`) or remembered, before:
   * a value of it is then worth reading in the form that is kept.
   */
  seenBefore<T>(kind: KeptKind<T>, key: string): boolean {
    const id = keyOf(kind, key);
    return this.#entries.has(id) || this.#offeredOnce.has(id);
  }

  /** Remembers `key` of `kind` as asked for once, keeping no value: the next offer keeps. */
  remember<T>(kind: KeptKind<T>, key: string): void {
    this.#offeredOnce.set(keyOf(kind, key), true);
  }

  /** Whether a value of `valueBytes` (estimated) would be kept at all: none takes over a sixteenth. */
  holds(valueBytes: number): boolean {
    return ENTRY_BYTES + valueBytes <= this.maxBytes / 16;
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
    readonly versions: Promise<RollupVersions>;
  }> = [];

  constructor(readonly cache: WindowCache) {}

  /**
   * The versions of the organization's days from `from`'s day on. One statement per request
   * unless a later read starts on an earlier day.
   */
  versions(db: Queryable, organizationId: string, from: number): Promise<RollupVersions> {
    const day = floorTo(from, DAY);
    const covering = this.#versions.find(
      (read) => read.organizationId === organizationId && read.from <= day,
    );
    if (covering !== undefined) return covering.versions;
    const versions = readRollupVersions(db, organizationId, day);
    this.#versions.push({ organizationId, from: day, versions });
    return versions;
  }
}

/**
 * The retention mark (partitions.ts, retainedFrom): read with the organization's rollup versions
 * from `from`'s day on when `db`'s rollup reads are kept (one statement for both, whose versions
 * the request's later reads of those days then find read), in a statement of its own otherwise.
 */
export async function retentionMark(
  db: Queryable,
  organizationId: string,
  from: number,
): Promise<Date | undefined> {
  const reads = cachedReadsOf(db);
  if (reads === undefined) return retainedFrom(db);
  const { keptFrom } = await reads.versions(db, organizationId, from);
  return keptFrom === undefined ? undefined : new Date(keptFrom);
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

const sameWindow = (a: KeptWindow, b: KeptWindow) =>
  a.key === b.key &&
  a.from === b.from &&
  a.to === b.to &&
  a.fixed === b.fixed &&
  a.askedEdges === b.askedEdges;

/** A window whose derived value may be kept: `key` names it in the answer. */
export interface KeptWindow {
  readonly key: number;
  readonly from: number;
  readonly to: number;
  /**
   * Which of its edges are instants that do not move with now: `both` (a window between two
   * deployments), or `from` only (a window from a deployment to now). The raw rows of such an
   * edge may be kept as rollup rows are; the edges of a window that ends now no later read asks
   * for again.
   */
  readonly fixed?: 'both' | 'from';
  /**
   * The fixed edges are instants a request named (an aggregate's `from` and `to`), which most
   * clients move with every request: such an edge is kept from its second read on, so that a
   * dashboard moving its window each poll does not fill the cache with edges no later read asks
   * for. Absent: kept at once (a deployment's instants, an objective's minutes).
   */
  readonly askedEdges?: boolean;
}

/**
 * Whether `piece` of `window` may be kept: rollup rows, and the raw rows of an edge that stays
 * where it is. Raw rows of a day change only through ingestion, which raises the day's counter
 * (rollup-versions.store.ts), so a fixed edge is checked as a rollup piece is.
 */
export function keepsPiece(
  window: { readonly to: number | null; readonly fixed?: KeptWindow['fixed'] },
  piece: Pick<WindowPiece, 'grain' | 'to'>,
): boolean {
  return (
    piece.grain > 0 ||
    (piece.to !== null && (window.fixed === 'both' || (window.fixed === 'from' && piece.to !== window.to)))
  );
}

/**
 * Values derived from rollup windows (what a caller computes from a window's rows: an anomaly
 * bucket's observed values), each kept per window while the days it touches are unchanged, under
 * the same check as kept pieces. `derive` computes the values of the windows not kept, one for
 * each; without a cache (a transaction, or none configured), of every window. Only windows whose
 * every piece in each of `rollups` may be kept (keepsPiece: rollup rows, fixed edges) are kept.
 * `id` names what besides the window the values depend on (scope, filters, what was asked).
 */
export async function keptPerWindow<T, W extends KeptWindow = KeptWindow>(
  db: Queryable,
  kind: KeptKind<T>,
  organizationId: string,
  windows: readonly W[],
  options: {
    readonly rollups: ReadonlyArray<Parameters<typeof coverWindow>[0]>;
    readonly id: string;
    /** A value's estimated heap size. */
    readonly bytes: (value: T) => number;
    readonly derive: (windows: readonly W[]) => Promise<ReadonlyMap<number, T>>;
  },
): Promise<ReadonlyMap<number, T>> {
  const reads = cachedReadsOf(db);
  const keepable =
    reads === undefined
      ? []
      : windows.filter((window) =>
          options.rollups.every((rollup) =>
            coverWindow(rollup, window).every((piece) => keepsPiece(window, piece)),
          ),
        );
  if (reads === undefined || keepable.length === 0) return new Map(await options.derive(windows));
  const versions = await reads.versions(
    db,
    organizationId,
    keepable.reduce((first, window) => Math.min(first, window.from), Number.POSITIVE_INFINITY),
  );
  // The very windows asked last under the very versions: the very answer, each window's value
  // unchanged (and not looked up again: a poll asks for hundreds of windows each time).
  const lastId = `${organizationId}|${options.id}`;
  const last = reads.cache.lastAnswer(kind, lastId, versions, windows);
  if (last !== undefined) return last;
  const kept = new Map<W, { readonly id: string; readonly version: string }>();
  for (const window of keepable)
    kept.set(window, {
      id: `${organizationId}|${options.id}|${window.from}|${window.to}`,
      version: versions.of(window.from, window.to),
    });
  const answer = new Map<number, T>();
  const missing: W[] = [];
  for (const window of windows) {
    const tag = kept.get(window);
    const value = tag === undefined ? undefined : reads.cache.get(kind, tag.id, tag.version);
    if (value === undefined) missing.push(window);
    else answer.set(window.key, value);
  }
  if (missing.length > 0) {
    const derived = await options.derive(missing);
    for (const window of missing) {
      const value = derived.get(window.key)!;
      answer.set(window.key, value);
      const tag = kept.get(window);
      if (tag !== undefined)
        reads.cache.set(kind, tag.id, tag.version, value, options.bytes(value), {
          onRepeat: window.askedEdges === true,
        });
    }
  }
  // Only an answer wholly kept, or kept now, stands for the next: a window not keepable is read each time.
  if (keepable.length === windows.length) reads.cache.keepAnswer(kind, lastId, versions, windows, answer);
  return answer;
}
