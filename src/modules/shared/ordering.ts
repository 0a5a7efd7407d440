/**
 * Ordering is chosen from fixed SQL fragments (never from caller text). Every order ends with
 * the row's uuid in the same direction, so that pages are stable when sort keys tie.
 */
export type SortingOrder = 'ASC' | 'DESC';

export function orderClause(
  columns: Readonly<Record<string, string>>,
  field: string,
  order: SortingOrder,
  uuidColumn: string,
): string {
  const column = columns[field];
  if (column === undefined) throw new Error(`no column for order field ${field}`);
  const direction = order === 'ASC' ? 'asc' : 'desc';
  return `order by ${column} ${direction} nulls last, ${uuidColumn} ${direction}`;
}
