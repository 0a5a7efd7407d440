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
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly db: Database,
    private readonly options: {
      readonly everyMs: number;
      readonly retentionDays: number | undefined;
      /** The clock the rounds run at (ms); tests pass another. */
      readonly now?: () => number;
    },
    private readonly report: (outcome: { result?: MaintenanceResult; error?: unknown }) => void,
  ) {}

  async start(): Promise<void> {
    await this.runOnce();
    this.timer = setInterval(() => void this.runOnce(), this.options.everyMs);
    this.timer.unref();
  }

  /** One round; a round already running is joined, not doubled. */
  runOnce(): Promise<void> {
    this.running ??= (async () => {
      try {
        this.report({
          result: await maintainPartitions(this.db, {
            retentionDays: this.options.retentionDays,
            ...(this.options.now ? { now: this.options.now() } : {}),
          }),
        });
      } catch (error) {
        this.report({ error });
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
