import type { Columns } from './unnest-insert.js';

/**
 * The JavaScript value each PostgreSQL type is read as, by both drivers (see database.ts):
 * numeric as a string (exact), int8 as a number, jsonb as parsed JSON.
 */
interface SqlValues {
  uuid: string;
  text: string;
  integer: number;
  bigint: number;
  float8: number;
  numeric: string;
  boolean: boolean;
  timestamptz: Date;
  bytea: Uint8Array;
  jsonb: unknown;
}

export type SqlType = keyof SqlValues;

declare const jsonValue: unique symbol;

/**
 * A column as the migration declares it: its type, followed by ` not null` when it has that
 * constraint. A jsonb column may name the JSON it holds with `json<T>()`.
 */
export type ColumnSpec = SqlType | `${SqlType} not null` | JsonColumn<unknown, boolean>;

export interface JsonColumn<T, NotNull extends boolean> {
  readonly type: 'jsonb';
  readonly notNull: NotNull;
  readonly [jsonValue]?: T;
}

/** A jsonb column holding `T` (nullable unless `not null`). */
export function json<T>(notNull?: false): JsonColumn<T, false>;
export function json<T>(notNull: true): JsonColumn<T, true>;
export function json<T>(notNull = false): JsonColumn<T, boolean> {
  return { type: 'jsonb', notNull };
}

/** The value a column of this spec reads as. */
export type ValueOf<C extends ColumnSpec> =
  C extends JsonColumn<infer T, infer NotNull>
    ? NotNull extends true
      ? T
      : T | null
    : C extends `${infer T extends SqlType} not null`
      ? SqlValues[T]
      : C extends SqlType
        ? SqlValues[C] | null
        : never;

export type TableSpec = Readonly<Record<string, ColumnSpec>>;

export interface Table<Spec extends TableSpec> {
  readonly name: string;
  readonly spec: Spec;
  /** Every column with its type, in declaration order (as created). */
  readonly columns: Columns<keyof Spec & string>;
  /**
   * The typed list of every column but `omitted` (those the database fills), in declaration order:
   * a row written to them is a RowValues of their names.
   */
  columnsWithout<Omitted extends keyof Spec & string>(
    ...omitted: readonly Omitted[]
  ): Columns<Exclude<keyof Spec & string, Omitted>>;
}

/** A row of the table, every column as its drivers read it. */
export type RowOf<T extends { readonly spec: TableSpec }> = { [K in keyof T['spec']]: ValueOf<T['spec'][K]> };

const sqlTypeOf = (spec: ColumnSpec): SqlType =>
  typeof spec === 'string' ? (spec.replace(/ not null$/, '') as SqlType) : spec.type;

/** Whether a column of this spec refuses null. */
export const isNotNull = (spec: ColumnSpec): boolean =>
  typeof spec === 'string' ? spec.endsWith(' not null') : spec.notNull;

/**
 * One table's definition, in the migration's column order: its row type (RowOf) and its typed
 * column lists (COPY, unnest) are derived from it. test/db/tables.test.ts holds every definition
 * to the migrated database, so a definition cannot drift from the SQL.
 */
export function table<const Spec extends TableSpec>(name: string, spec: Spec): Table<Spec> {
  type Name = keyof Spec & string;
  const columns = Object.entries(spec).map(([column, type]) => [column as Name, sqlTypeOf(type)] as const);
  return Object.freeze({
    name,
    spec,
    columns,
    columnsWithout: <Omitted extends Name>(...omitted: readonly Omitted[]) =>
      columns.filter(
        (column): column is readonly [Exclude<Name, Omitted>, SqlType] =>
          !(omitted as readonly string[]).includes(column[0]),
      ),
  });
}
