import type { CopyValue } from './copy-text.js';

/** A table's columns with their PostgreSQL types, in the order a row gives its values. */
export type Columns = ReadonlyArray<readonly [name: string, type: string]>;

export const columnNames = (columns: Columns): string[] => columns.map(([name]) => name);

/** A value of an array-typed column, sent as its text form (`[lo:hi]={...}` keeps a lower bound). */
const isArrayType = (type: string) => type.endsWith('[]');

/**
 * `insert into <table> (<columns>) select ... from unnest(...)` with its parameters: the rows
 * transposed into one array a column. Array-typed columns travel as their text and are cast on
 * the way in (unnest would flatten an array of arrays). The caller appends its ON CONFLICT (and
 * RETURNING) clause.
 */
export function unnestInsert(
  table: string,
  columns: Columns,
  rows: readonly (readonly CopyValue[])[],
): { text: string; params: CopyValue[][] } {
  const names = columnNames(columns);
  const selected = columns.map(([name, type]) => (isArrayType(type) ? `u.${name}::${type}` : `u.${name}`));
  const sources = columns.map(([, type], i) => `$${i + 1}::${isArrayType(type) ? 'text' : type}[]`);
  return {
    text: `insert into ${table} (${names.join(', ')})
     select ${selected.join(', ')} from unnest(${sources.join(', ')}) as u(${names.join(', ')})`,
    params: columns.map((_, column) => rows.map((values) => values[column] as CopyValue)),
  };
}
