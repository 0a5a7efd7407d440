import type { CopyValue } from './copy-text.js';

/**
 * The one database interface the stores are written against. Both drivers (node-postgres and
 * the embedded PGlite) speak the same PostgreSQL dialect, take `$n` parameters, and return rows
 * with the same JavaScript types: timestamptz as Date, int4/int8 as number, numeric as string,
 * jsonb as parsed JSON.
 */
export interface Queryable {
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]>;
}

/** A handle inside a transaction. Store functions that need atomicity take this type. */
export interface Transaction extends Queryable {
  readonly inTransaction: true;
  /**
   * Bulk-loads rows (values in `columns` order) into `table` with one COPY statement: several
   * times cheaper per row than an INSERT of the same rows. On a constraint violation nothing
   * of it is stored and the transaction is aborted (use a savepoint).
   */
  copyIn(table: string, columns: readonly string[], rows: Iterable<readonly CopyValue[]>): Promise<void>;
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

export interface Database extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
  /**
   * The same database for one request with a time limit: once `signal` aborts, a query of it
   * that has not started is refused, and one that is running is cancelled where the driver can
   * (the embedded database in its worker thread), rejecting with code 57014 (query_canceled).
   */
  abortable(signal: AbortSignal): Database;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  /** The connection pool's state now, for metrics; absent for the embedded database (one connection). */
  readonly poolUse?: () => PoolUse;
  close(): Promise<void>;
}
