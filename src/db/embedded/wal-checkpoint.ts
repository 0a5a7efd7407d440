import type { PGlite } from '@electric-sql/pglite';

/**
 * Write-ahead log written since the last checkpoint after which the embedded database takes the
 * next one. PGlite runs PostgreSQL as a single backend, with no checkpointer process: without
 * an explicit CHECKPOINT its `pg_wal` grows by every byte ever written (1.1 GB of a demo month).
 */
export const WAL_CHECKPOINT_BYTES = 64 * 1024 * 1024;

/**
 * Takes a checkpoint once `everyBytes` of WAL were written since the last one, checking after
 * statements that may have written (not a SELECT) and only between transactions. With
 * max_wal_size as small (see createPglite), the checkpoint also removes the old segments, so
 * `pg_wal` stays within about twice `everyBytes`.
 */
export class WalCheckpointer {
  private since: string | undefined;

  constructor(
    private readonly db: PGlite,
    private readonly everyBytes = WAL_CHECKPOINT_BYTES,
  ) {}

  /** After a statement has run: a checkpoint if it is due (never inside a transaction). */
  async after(statement: { readonly op: string; readonly text?: string }): Promise<void> {
    if (this.db.isInTransaction()) return;
    if (statement.op === 'query' && /^\s*select\b/i.test(statement.text ?? '')) return;
    const [row] = (
      await this.db.query<{ lsn: string; written: string | null }>(
        'select pg_current_wal_lsn()::text as lsn, (pg_current_wal_lsn() - $1::pg_lsn)::text as written',
        [this.since ?? '0/0'],
      )
    ).rows;
    if (this.since === undefined) {
      this.since = row!.lsn;
      return;
    }
    if (Number(row!.written) < this.everyBytes) return;
    await this.db.exec('checkpoint');
    this.since = row!.lsn;
  }
}
