import type { PGlite } from '@electric-sql/pglite';
import { lsnBytes } from './wal-position.js';

/** Write-ahead log written since the last ANALYZE after which the next may come, at the least. */
export const ANALYZE_MIN_BYTES = 64 * 1024 * 1024;

/**
 * Keeps the planner's statistics as autovacuum would. PGlite runs PostgreSQL as a single backend,
 * with no autovacuum: without an explicit ANALYZE the tables never get statistics, and the
 * planner guesses. On the demo's month it guessed two executions a workflow where there were
 * 5,000, and searched 24 hours of log lines through every execution's lines one by one (2.3 s
 * where the day index takes 0.1 s). So the database is analyzed:
 * - when opened, if it holds data (more than `minBytes`) and no table of it has statistics (a
 *   data directory written before this, or loaded without them);
 * - after writing, once the log written since the last ANALYZE reaches `minBytes` and half the
 *   database's size at that ANALYZE (autovacuum's scale factor, by bytes): a month loaded from
 *   nothing is analyzed a dozen times as it grows, live traffic every few hours.
 * An ANALYZE of the demo's month takes about 3 s, during which the connection waits; it runs only
 * between transactions.
 */
export class StatisticsKeeper {
  /** Where the log stood at the last ANALYZE (bytes). */
  private since: number | undefined;
  private sizeThen = 0;

  constructor(
    private readonly db: PGlite,
    private readonly minBytes = ANALYZE_MIN_BYTES,
  ) {}

  /** When the database is opened: an ANALYZE now if it holds data that has no statistics. */
  async atOpen(): Promise<void> {
    const analyzed = await this.measure();
    if (!analyzed && this.sizeThen > this.minBytes) await this.analyze();
  }

  /** The log's position after a write (walAfter): an ANALYZE if one is due. */
  async at(position: number): Promise<void> {
    if (this.since === undefined) {
      this.since = position;
      return;
    }
    if (position - this.since < Math.max(this.minBytes, this.sizeThen / 2)) return;
    await this.analyze();
  }

  private async analyze(): Promise<void> {
    await this.db.exec('analyze');
    await this.measure();
  }

  /** Remembers where the log stands and the database's size; says whether any table has statistics. */
  private async measure(): Promise<boolean> {
    const [row] = (
      await this.db.query<{ size: string; analyzed: boolean; lsn: string }>(
        `select pg_database_size(current_database())::text as size, pg_current_wal_lsn()::text as lsn,
           exists (select 1 from pg_statistic s join pg_class c on c.oid = s.starelid
             join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public') as analyzed`,
      )
    ).rows;
    this.since = lsnBytes(row!.lsn);
    this.sizeThen = Number(row!.size);
    return row!.analyzed;
  }
}
