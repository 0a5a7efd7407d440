import { isDatabaseUnavailable } from '../../errors.js';
import type { Database } from '../database.js';
import { isQueryCanceled } from '../db-errors.js';

/**
 * Whether a replica's failure means the replica went away (so the primary should answer), not
 * that the query or the request is at fault: a refused or lost connection, a server shutting down,
 * or a query a standby cancelled because replay needed what it read (conflict with recovery).
 * A statement timeout (57014) is the request's own time running out, and is not retried.
 */
export function replicaWentAway(error: unknown): boolean {
  if (isQueryCanceled(error)) return false;
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === '40001' && /conflict with recovery/i.test((error as Error).message)) return true;
  return isDatabaseUnavailable(error);
}

/**
 * `replica` for one request, each query of which that fails because the replica went away is
 * run again once on `primary` (reads only: retrying is safe), after `onLost` is told, so the
 * client sees an answer and not an error. Once one has, the request's later queries go to the
 * primary too: its reads never go back to the replica's older state (a rollup read checks what
 * it keeps against versions read just before its rows, which must not be newer than the rows:
 * src/rollups/window-cache.ts).
 */
export function withFallback(
  replica: Database,
  primary: Database,
  onLost: (error: unknown) => void,
): Database {
  let lost = false;
  const retry = <T>(attempt: (db: Database) => Promise<T>): Promise<T> =>
    lost
      ? attempt(primary)
      : attempt(replica).catch((error: unknown) => {
          if (!replicaWentAway(error)) throw error;
          lost = true;
          onLost(error);
          return attempt(primary);
        });
  return {
    kind: replica.kind,
    query: (text, params) => retry((db) => db.query(text, params)),
    transaction: (fn) => retry((db) => db.transaction(fn)),
    abortable: (signal) => withFallback(replica.abortable(signal), primary.abortable(signal), onLost),
    ping: () => replica.ping(),
    close: async () => {},
  };
}
