import type { RowValues } from './copy-text.js';

/**
 * The one database interface the stores are written against. Both drivers (node-postgres and
 * the embedded PGlite) speak the same PostgreSQL dialect, take `$n` parameters, and return rows
 * with the same JavaScript types: timestamptz as Date, int4/int8 as number, numeric as string,
 * jsonb as parsed JSON.
 */
export interface Queryable {
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]>;
}

/**
 * Marks a statement to be planned generically, once per connection, instead of for each
 * execution's values (PostgreSQL's `plan_cache_mode = force_generic_plan` while it runs, on a
 * prepared statement). For statements whose values the planner cannot use anyway (the rollup
 * window reads take their pieces as arrays and probe each one by index), planning was up to
 * half their cost. A leading comment: a driver that does not switch plans runs the text as is.
 * Inside a transaction it has no effect.
 */
export const GENERIC_PLAN = '/* generic plan */\n';

export const genericPlan = (text: string): string => GENERIC_PLAN + text;

/** A handle inside a transaction. Store functions that need atomicity take this type. */
export interface Transaction extends Queryable {
  readonly inTransaction: true;
  /**
   * Bulk-loads rows (each its values of `columns`, by name) into `table` with one COPY statement: several
   * times cheaper per row than an INSERT of the same rows. On a constraint violation nothing
   * of it is stored and the transaction is aborted (use a savepoint).
   */
  copyIn(table: string, columns: readonly string[], rows: Iterable<RowValues>): Promise<void>;
}

export interface PoolUse {
  /** Connections open, idle or in use. */
  readonly open: number;
  readonly idle: number;
  /** Queries waiting for a connection. */
  readonly waiting: number;
  /** The pool's size. */
  readonly max: number;
}

/**
 * What a request's database needs of its time limit: `aborted`, read before each statement, and
 * `abort` listeners, added only by a statement that waits (the embedded database's connection
 * queue, or a statement it can cancel in its worker). An AbortSignal is one; a request's time
 * limit makes its AbortController only once a listener is added (5-8 µs that most requests,
 * whose statements never wait, do not pay).
 */
export interface AbortWatch {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options: { once: true }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** Aborted once either is; each listener called once at most. */
export function eitherAborted(a: AbortWatch, b: AbortWatch): AbortWatch {
  const wrappers = new Map<() => void, () => void>();
  const watch: AbortWatch = {
    get aborted() {
      return a.aborted || b.aborted;
    },
    addEventListener(type, listener) {
      const once = () => {
        watch.removeEventListener(type, listener);
        listener();
      };
      wrappers.set(listener, once);
      a.addEventListener(type, once, { once: true });
      b.addEventListener(type, once, { once: true });
    },
    removeEventListener(type, listener) {
      const once = wrappers.get(listener);
      if (!once) return;
      wrappers.delete(listener);
      a.removeEventListener(type, once);
      b.removeEventListener(type, once);
    },
  };
  return watch;
}

export interface Database extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
  /**
   * The same database for one request with a time limit: once `signal` aborts, a query of it
   * that has not started is refused, and one that is running is cancelled where the driver can
   * (the embedded database in its worker thread), rejecting with code 57014 (query_canceled).
   */
  abortable(signal: AbortWatch): Database;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  /** The connection pool's state now, for metrics; absent for the embedded database (one connection). */
  readonly poolUse?: () => PoolUse;
  close(): Promise<void>;
}
