import type { PGlite } from '@electric-sql/pglite';

/**
 * Write-ahead log written since the last checkpoint after which the embedded database takes the
 * next one. PGlite runs PostgreSQL as a single backend, with no checkpointer process: without
 * an explicit CHECKPOINT its `pg_wal` grows by every byte ever written (1.1 GB of a demo month).
 */
export const WAL_CHECKPOINT_BYTES = 64 * 1024 * 1024;

/**
 * Takes a checkpoint once `everyBytes` of WAL were written since the last one, checking after
 * statements that may have written (walAfter: not a SELECT, only between transactions). With
 * max_wal_size as small (see createPglite), the checkpoint also removes the old segments, so
 * `pg_wal` stays within about twice `everyBytes`.
 */
export class WalCheckpointer {
  /** Where the log stood at the last checkpoint (bytes; unknown until the first write). */
  private since: number | undefined;

  constructor(
    private readonly db: PGlite,
    private readonly everyBytes = WAL_CHECKPOINT_BYTES,
  ) {}

  /** The log's position after a write (walAfter): a checkpoint if one is due. */
  async at(position: number): Promise<void> {
    if (this.since === undefined) {
      this.since = position;
      return;
    }
    if (position - this.since < this.everyBytes) return;
    await this.db.exec('checkpoint');
    this.since = position;
  }
}
