/** What a round came to: its result, or the error it threw. */
export interface RoundOutcome<T> {
  readonly result?: T;
  readonly error?: unknown;
}

/**
 * A round of background work run at once and then every `everyMs`: a round asked for while one is
 * running joins it instead of running twice, and `stop` ends the schedule and waits for the round
 * under way. Each round's outcome, its result or the error it threw, goes to `report`; a failed
 * round is simply tried again at the next tick.
 */
export class Recurring<T> {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly everyMs: number,
    private readonly round: () => Promise<T>,
    private readonly report: (outcome: RoundOutcome<T>) => void,
  ) {}

  /** Runs the first round now and schedules the others; resolves when the first one ends. */
  start(): Promise<void> {
    const first = this.runOnce();
    this.timer = setInterval(() => void this.runOnce(), this.everyMs);
    this.timer.unref();
    return first;
  }

  /** One round; a round already running is joined, not doubled. */
  runOnce(): Promise<void> {
    this.running ??= this.round()
      .then(
        (result) => this.report({ result }),
        (error: unknown) => this.report({ error }),
      )
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
