import type { SortingOrder } from '../../schema/schema-types.generated.js';

/**
 * Ordering is chosen from fixed SQL fragments (never from caller text). Every order ends with
 * the row's uuid in the same direction, so that pages are stable when sort keys tie. Nulls of
 * the fields named in `nullable` come last in both directions; other columns get no nulls
 * clause, so that a `(..., column desc, uuid desc)` index still yields the order directly.
 */
export function orderClause(
  columns: Readonly<Record<string, string>>,
  field: string,
  order: SortingOrder,
  uuidColumn: string,
  nullable: readonly string[] = [],
): string {
  const column = columns[field];
  if (column === undefined) throw new Error(`no column for order field ${field}`);
  const direction = order === 'ASC' ? 'asc' : 'desc';
  const nulls = nullable.includes(field) ? ' nulls last' : '';
  return `order by ${column} ${direction}${nulls}, ${uuidColumn} ${direction}`;
}
