import type { Database } from '../db/database.js';
import { isQueryCanceled } from '../db/db-errors.js';
import { Recurring, type RoundOutcome } from '../lib/recurring.js';
import { durations } from './durations.rollup.js';
import { DAY_GRAIN, recentRungsKeptFrom } from './grains.js';
import type { AnyRollup } from './rollup.js';
import { type CompactionRound, compactRollupIndexes } from './rollup-compaction.store.js';

/** The rollups whose finest rungs are kept for recent buckets only. */
const RECENT_RUNGS: readonly AnyRollup[] = [durations].filter((rollup) => rollup.recentRungs > 0);

/** Rows deleted per statement: short transactions beside ingestion, which writes the same tables. */
const BATCH = 5000;

/**
 * Deletes the rows of recent-only rungs that have aged past recentRungsKeptFrom(`now`) from the
 * rollups that keep such rungs (RollupSpec.recentRungs), organization by organization and rung by
 * rung, a batch per statement (each its own transaction, along the key's prefix). No
 * reader reads them any more (windows.ts, coverWindow) and ingestion no longer writes them.
 *
 * "Now" is never later than the end of the organization's newest day of data: a process whose
 * clock runs ahead of the writers' and readers' (a benchmark's helper on a dataset that ended
 * weeks ago, a host with a wrong clock) thus deletes no row that a reader on their clock counts
 * on. Returns the rows deleted; `stopped` ends the round between two batches.
 */
export async function pruneRecentRungs(
  db: Database,
  now: number = Date.now(),
  stopped: () => boolean = () => false,
): Promise<number> {
  const organizations = await db.query<{ id: string }>('select id from organizations');
  let deleted = 0;
  for (const rollup of RECENT_RUNGS) {
    for (const { id } of organizations) {
      if (stopped()) return deleted;
      const [newest] = await db.query<{ day: Date | null }>(
        `select max(bucket_start) as day from ${rollup.table} where organization_id = $1 and grain = $2`,
        [id, DAY_GRAIN.seconds],
      );
      if (!newest?.day) continue;
      const before = new Date(recentRungsKeptFrom(Math.min(now, newest.day.getTime() + DAY_GRAIN.ms - 1)));
      for (const grain of rollup.grains.slice(0, rollup.recentRungs)) {
        for (;;) {
          const [gone] = await db.query<{ n: number }>(
            `with gone as (
               delete from ${rollup.table} where ctid = any(array(
                 select ctid from ${rollup.table}
                 where organization_id = $1 and grain = $2 and bucket_start < $3
                 limit ${BATCH}))
               returning 1)
             select count(*)::int as n from gone`,
            [id, grain.seconds, before],
          );
          deleted += gone!.n;
          if (gone!.n < BATCH || stopped()) break;
        }
        if (stopped()) return deleted;
      }
    }
  }
  return deleted;
}

/** What one round of rollup upkeep did. */
export interface UpkeepRound extends CompactionRound {
  /** Aged rows of recent-only rungs deleted. */
  readonly deleted: number;
}

/**
 * The rollups' upkeep every `everyMs`, the first round at once but in the background (after an
 * upgrade that round may delete millions of rows, and the server answers meanwhile): the aged rows
 * of recent-only rungs deleted (pruneRecentRungs), then each rollup index grown far past its
 * compact size rebuilt (compactRollupIndexes), unless `compaction` is off. `compactionDb` opens
 * the database the rebuilds run on (one connection, no statement time limit; none: no rebuilds),
 * and closes it after the round.
 * A failed round is reported and tried again next time; `stop` ends a round between two batches or
 * two indexes, and cancels a rebuild under way on PostgreSQL (its leftover is dropped next time).
 */
export class RollupUpkeep {
  private readonly rounds: Recurring<UpkeepRound>;
  private stopping = false;
  /** The backend of the rebuilds' connection while a round uses it (PostgreSQL), for `stop` to cancel. */
  private rebuilder: number | undefined;

  /** `report` gets each round's outcome: what it deleted and rebuilt, or its error. */
  constructor(
    private readonly db: Database,
    options: {
      readonly everyMs: number;
      readonly compaction: boolean;
      readonly compactionDb: () => { readonly db: Database; readonly close: () => Promise<void> } | undefined;
      /** The smallest index rebuilt (REBUILD_MIN_BYTES unless given). */
      readonly compactionMinBytes?: number;
    },
    report: (outcome: RoundOutcome<UpkeepRound>) => void,
  ) {
    const stopped = () => this.stopping;
    this.rounds = new Recurring(
      options.everyMs,
      async () => {
        const deleted = await pruneRecentRungs(db, Date.now(), stopped);
        const compaction = options.compaction && !stopped() ? options.compactionDb() : undefined;
        if (!compaction) return { deleted, rebuilt: [], dropped: [] };
        try {
          if (compaction.db.kind === 'postgres') {
            const [backend] = await compaction.db.query<{ pid: number }>('select pg_backend_pid() as pid');
            this.rebuilder = backend!.pid;
          }
          const round = await compactRollupIndexes(compaction.db, {
            stopped,
            minBytes: options.compactionMinBytes,
          });
          return { deleted, ...round };
        } catch (error) {
          // A rebuild `stop` cancelled ends the round; the next drops what it left.
          if (stopped() && isQueryCanceled(error)) return { deleted, rebuilt: [], dropped: [] };
          throw error;
        } finally {
          this.rebuilder = undefined;
          await compaction.close();
        }
      },
      report,
    );
  }

  start(): void {
    void this.rounds.start();
  }

  /** Ends the schedule; a rebuild under way is cancelled, not waited for (a large index takes minutes). */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.rebuilder !== undefined)
      await this.db.query('select pg_cancel_backend($1)', [this.rebuilder]).catch(() => {});
    await this.rounds.stop();
  }
}
