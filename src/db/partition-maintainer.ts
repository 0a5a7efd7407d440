import { Recurring, type RoundOutcome } from '../lib/recurring.js';
import type { Database } from './database.js';
import { type MaintenanceResult, maintainPartitions } from './partitions.js';

/**
 * Keeps the raw tables' partitions ahead of the data and applies retention: once when the server
 * starts and then every `everyMs` (maintainPartitions says what a round does). Rounds of several
 * instances are serialised by the database, and a failed round is reported and tried again at
 * the next tick: ingestion never depends on it, since rows of a month without a partition land in
 * DEFAULT and move into their partition at a later round. A partition whose work fails is
 * reported in the round's `failed` (by name, with the reason) while the others are maintained.
 */
export class PartitionMaintainer {
  private readonly rounds: Recurring<MaintenanceResult>;

  constructor(
    db: Database,
    options: {
      readonly everyMs: number;
      readonly retentionDays: number | undefined;
      /** The clock the rounds run at (ms); tests pass another. */
      readonly now?: () => number;
    },
    report: (outcome: RoundOutcome<MaintenanceResult>) => void,
  ) {
    this.rounds = new Recurring(
      options.everyMs,
      () =>
        maintainPartitions(db, {
          retentionDays: options.retentionDays,
          ...(options.now ? { now: options.now() } : {}),
        }),
      report,
    );
  }

  /** The first round, awaited, then one every `everyMs`. */
  start(): Promise<void> {
    return this.rounds.start();
  }

  /** One round; a round already running is joined, not doubled. */
  runOnce(): Promise<void> {
    return this.rounds.runOnce();
  }

  stop(): Promise<void> {
    return this.rounds.stop();
  }
}
