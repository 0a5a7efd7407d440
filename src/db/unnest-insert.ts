import type { CopyValue, RowValues } from './copy-text.js';

/** A table's columns with their PostgreSQL types, in the statement's order; rows give their values by name. */
export type Columns<Name extends string = string> = ReadonlyArray<readonly [name: Name, type: string]>;

export const columnNames = <Name extends string>(columns: Columns<Name>): Name[] =>
  columns.map(([name]) => name);

/** The names of a column list. */
export type NameOf<C extends Columns> = C extends Columns<infer Name> ? Name : never;

/** A row written to a column list: its value of each of them, by name. */
export type RowFor<C extends Columns> = RowValues<NameOf<C>>;

/** A value of an array-typed column, sent as its text form (`[lo:hi]={...}` keeps a lower bound). */
const isArrayType = (type: string) => type.endsWith('[]');

/**
 * `insert into <table> (<columns>) select ... from unnest(...)` with its parameters: the rows
 * transposed into one array a column. Array-typed columns travel as their text and are cast on
 * the way in (unnest would flatten an array of arrays). The caller appends its ON CONFLICT (and
 * RETURNING) clause, or uses unnestUpsert.
 */
export function unnestInsert<Name extends string>(
  table: string,
  columns: Columns<Name>,
  rows: readonly RowValues<Name>[],
): { text: string; params: CopyValue[][] } {
  const names = columnNames(columns);
  const selected = columns.map(([name, type]) => (isArrayType(type) ? `u.${name}::${type}` : `u.${name}`));
  const sources = columns.map(([, type], i) => `$${i + 1}::${isArrayType(type) ? 'text' : type}[]`);
  return {
    text: `insert into ${table} (${names.join(', ')})
     select ${selected.join(', ')} from unnest(${sources.join(', ')}) as u(${names.join(', ')})`,
    params: columns.map(([name]) => rows.map((row) => row[name])),
  };
}

/** What an upsert does with a row whose key is already stored. */
export interface OnConflict {
  /** The conflict target: the key columns. */
  readonly key: readonly string[];
  /**
   * The stored row's new values: a column name takes the new row's value (`excluded`), a
   * `[column, expression]` pair sets an SQL expression (of `<table>.<column>` and `excluded.<column>`).
   */
  readonly set: ReadonlyArray<string | readonly [column: string, expression: string]>;
  /** Only rows for which this holds are updated (the others are left, and not returned). */
  readonly where?: string;
  readonly returning?: string;
}

/** `on conflict (<key>) do update set ... [where ...] [returning ...]`. */
export function onConflict(conflict: OnConflict): string {
  const set = conflict.set.map((assignment) =>
    typeof assignment === 'string'
      ? `${assignment} = excluded.${assignment}`
      : `${assignment[0]} = ${assignment[1]}`,
  );
  return [
    `on conflict (${conflict.key.join(', ')}) do update set\n       ${set.join(',\n       ')}`,
    ...(conflict.where === undefined ? [] : [`where ${conflict.where}`]),
    ...(conflict.returning === undefined ? [] : [`returning ${conflict.returning}`]),
  ].join('\n     ');
}

/** `(<table>.<a>, ...) is distinct from (excluded.<a>, ...)`: the new row changes one of `columns`. */
export function changesAny(table: string, columns: readonly string[]): string {
  return `(${columns.map((c) => `${table}.${c}`).join(', ')}) is distinct from (${columns.map((c) => `excluded.${c}`).join(', ')})`;
}

/** unnestInsert's statement with its `on conflict ... do update` clause: a bulk upsert. */
export function unnestUpsert<Name extends string>(
  table: string,
  columns: Columns<Name>,
  rows: readonly RowValues<Name>[],
  conflict: OnConflict,
): { text: string; params: CopyValue[][] } {
  const insert = unnestInsert(table, columns, rows);
  return { text: `${insert.text}\n     ${onConflict(conflict)}`, params: insert.params };
}

/**
 * `update <table> t set <columns> = u.<columns> from unnest(...) as u where <match>`: a bulk
 * update of rows found by `match` (of `t.` and `u.`), taking `set` from the given rows (columns
 * outside `set` serve only to match).
 */
export function unnestUpdate<Name extends string>(
  table: string,
  columns: Columns<Name>,
  rows: readonly RowValues<Name>[],
  update: { readonly set: OnConflict['set']; readonly match: string; readonly returning?: string },
): { text: string; params: CopyValue[][] } {
  const insert = unnestInsert(table, columns, rows);
  const source = insert.text.slice(insert.text.indexOf('from unnest('));
  const typeOf = new Map<string, string>(columns);
  const set = update.set.map((assignment) => {
    if (typeof assignment !== 'string') return `${assignment[0]} = ${assignment[1]}`;
    const type = typeOf.get(assignment) ?? '';
    return `${assignment} = u.${assignment}${isArrayType(type) ? `::${type}` : ''}`;
  });
  return {
    text: `update ${table} t set ${set.join(', ')}
     ${source}
     where ${update.match}${update.returning === undefined ? '' : `\n     returning ${update.returning}`}`,
    params: insert.params,
  };
}
