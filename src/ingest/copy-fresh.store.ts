import type { CopyValue } from '../db/copy-text.js';
import type { Transaction } from '../db/database.js';

const UNIQUE_VIOLATION = '23505';

/** A table's columns with their PostgreSQL types, in the order a row gives its values. */
export type Columns = ReadonlyArray<readonly [name: string, type: string]>;

export const columnNames = (columns: Columns): string[] => columns.map(([name]) => name);

/**
 * `insert into <table> (<columns>) select * from unnest(...)` with its parameters: the rows
 * transposed into one array a column. The caller appends its ON CONFLICT (and RETURNING) clause.
 */
export function unnestInsert(
  table: string,
  columns: Columns,
  rows: readonly (readonly CopyValue[])[],
): { text: string; params: CopyValue[][] } {
  return {
    text: `insert into ${table} (${columnNames(columns).join(', ')})
     select * from unnest(${columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')})`,
    params: columns.map((_, column) => rows.map((values) => values[column] as CopyValue)),
  };
}

/** Rows made one at a time as the COPY consumes them: a batch's rows are never all held at once. */
function* rowsOf<T>(
  items: readonly T[],
  row: (item: T) => readonly CopyValue[],
): Generator<readonly CopyValue[]> {
  for (const item of items) yield row(item);
}

/**
 * Stores items that are expected to be new, as rows (`row`), with COPY, the database's bulk
 * load, which costs a fraction of an INSERT of the same rows. Returns false, having stored none
 * of them, when any row already exists (a re-sent line, a uuid stored meanwhile): the caller
 * then writes them with its INSERT ... ON CONFLICT. The COPY runs under a savepoint, so a
 * conflict undoes it and costs at most the rows before the first conflicting one.
 */
export async function copyFresh<T>(
  tx: Transaction,
  table: string,
  columns: Columns,
  items: readonly T[],
  row: (item: T) => readonly CopyValue[],
): Promise<boolean> {
  await tx.query('savepoint wfapi_copy_fresh');
  try {
    await tx.copyIn(table, columnNames(columns), rowsOf(items, row));
  } catch (error) {
    if ((error as { code?: unknown }).code !== UNIQUE_VIOLATION) throw error;
    await tx.query('rollback to savepoint wfapi_copy_fresh');
    return false;
  }
  await tx.query('release savepoint wfapi_copy_fresh');
  return true;
}
