import type { PGlite } from '@electric-sql/pglite';

/** A write-ahead log position (`pg_lsn` text, `16/B374D848`) as a byte offset. */
export function lsnBytes(lsn: string): number {
  const [high = '0', low = '0'] = lsn.split('/');
  return Number.parseInt(high, 16) * 2 ** 32 + Number.parseInt(low, 16);
}

/**
 * Where the write-ahead log stands after a statement that may have written, for the upkeep that
 * PGlite's single backend lacks (checkpoints, statistics): read only between transactions and not
 * after a SELECT, so a read costs nothing more. One read serves every keeper.
 */
export async function walAfter(
  db: PGlite,
  statement: { readonly op: string; readonly text?: string },
): Promise<number | undefined> {
  if (statement.op === 'close' || db.isInTransaction()) return undefined;
  if (statement.op === 'query' && /^\s*select\b/i.test(statement.text ?? '')) return undefined;
  const [row] = (await db.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')).rows;
  return row ? lsnBytes(row.lsn) : undefined;
}
