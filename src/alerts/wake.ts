import type { Queryable } from '../db/database.js';

/** The delivery worker of each database in this process, woken when deliveries become due. */
const workers = new WeakMap<Queryable, () => void>();

/** Registers the function that wakes the worker of `db` (one per database). */
export function onDeliveriesDue(db: Queryable, wake: (() => void) | undefined): void {
  if (wake) workers.set(db, wake);
  else workers.delete(db);
}

/** Tells this process's worker that deliveries are due now, rather than at its next poll. */
export function wakeDeliveries(db: Queryable): void {
  workers.get(db)?.();
}
