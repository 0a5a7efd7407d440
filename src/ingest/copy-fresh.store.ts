import type { RowValues } from '../db/copy-text.js';
import type { Transaction } from '../db/database.js';
import { type Columns, columnNames } from '../db/unnest-insert.js';

const UNIQUE_VIOLATION = '23505';

/** Rows made one at a time as the COPY consumes them: a batch's rows are never all held at once. */
function* rowsOf<T, Name extends string>(
  items: readonly T[],
  row: (item: T) => RowValues<Name>,
): Generator<RowValues<Name>> {
  for (const item of items) yield row(item);
}

/**
 * Stores items that are expected to be new, as rows (`row`), with COPY, the database's bulk
 * load, which costs a fraction of an INSERT of the same rows. Returns false, having stored none
 * of them, when any row already exists (a re-sent line, a uuid stored meanwhile): the caller
 * then writes them with its INSERT ... ON CONFLICT. The COPY runs under a savepoint, so a
 * conflict undoes it and costs at most the rows before the first conflicting one.
 */
export async function copyFresh<T, Name extends string>(
  tx: Transaction,
  table: string,
  columns: Columns<Name>,
  items: readonly T[],
  row: (item: T) => RowValues<Name>,
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
