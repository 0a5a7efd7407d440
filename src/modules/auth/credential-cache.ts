import { LRUCache } from 'lru-cache';
import type { Queryable } from '../../db/database.js';
import { findKeyCredentials, type KeyCredentialRow } from './api-keys.store.js';

/** Caches of each database handle, told at once of credential changes made through it. */
const cachesOf = new WeakMap<Queryable, Set<CredentialCache>>();

/**
 * Says that a key, member or organization changed through `db` (a revocation, deploy access,
 * an organization deleted): every cache reading through the same handle forgets what it holds,
 * so the change applies to the very next request of this process.
 */
export function credentialsChanged(db: Queryable): void {
  for (const cache of cachesOf.get(db) ?? []) cache.clear();
  for (const listener of listenersOf.get(db) ?? []) listener();
}

/** Listeners of each database handle, told with its caches (open streams: src/events/access-watch.ts). */
const listenersOf = new WeakMap<Queryable, Set<() => void>>();

/**
 * Calls `listener` whenever credentialsChanged(db) is said (a change may touch any key: the
 * listener reads what it needs again). Returns the function that stops it.
 */
export function onCredentialsChanged(db: Queryable, listener: () => void): () => void {
  const listeners = listenersOf.get(db) ?? new Set();
  listeners.add(listener);
  listenersOf.set(db, listeners);
  return () => {
    listeners.delete(listener);
  };
}

/**
 * Key credentials read recently, so that authenticating a request needs no database round trip
 * (a third of a cheap read's cost). The secret is still checked against the stored hash on every
 * request, and expiry against the clock. Changes made through this process apply at once (see
 * credentialsChanged); changes made elsewhere (another server, the database directly) apply
 * within `ttlMs`. Unknown keys are not cached, so guessing cannot fill the cache.
 */
export class CredentialCache {
  private readonly entries: LRUCache<string, KeyCredentialRow> | undefined;
  /** Bumped by clear(), so that a read that overlapped a change is not cached. */
  private generation = 0;

  /** `now`: the clock the interval is measured with (default the cache's own, `performance.now`). */
  constructor(
    private readonly db: Queryable,
    ttlMs: number,
    { maxKeys = 10_000, now }: { maxKeys?: number; now?: () => number } = {},
  ) {
    if (ttlMs > 0) {
      // ttlResolution 0: the cache would otherwise keep a reading of its clock for a millisecond.
      const clock = now ? { perf: { now }, ttlResolution: 0 } : {};
      this.entries = new LRUCache({ max: maxKeys, ttl: ttlMs, ...clock });
    }
    const caches = cachesOf.get(db) ?? new Set();
    caches.add(this);
    cachesOf.set(db, caches);
  }

  /** The credentials of `keyId` when they are cached now, without reading the database. */
  peek(keyId: string): KeyCredentialRow | undefined {
    return this.entries?.get(keyId);
  }

  async find(keyId: string): Promise<KeyCredentialRow | undefined> {
    const cached = this.entries?.get(keyId);
    if (cached) return cached;
    const generation = this.generation;
    const row = await findKeyCredentials(this.db, keyId);
    if (row && generation === this.generation) this.entries?.set(keyId, row);
    return row;
  }

  clear(): void {
    this.generation++;
    this.entries?.clear();
  }

  close(): void {
    cachesOf.get(this.db)?.delete(this);
  }
}
