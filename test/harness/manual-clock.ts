/**
 * A clock that moves only when the test says: `now()` in milliseconds and timers that fire,
 * in order and synchronously, as `advance(ms)` passes their time. For code that takes a clock
 * (e.g. EmbeddedDatabase's HandOverClock), so a test of timing holds on a busy machine.
 */
export class ManualClock {
  private time: number;
  private readonly timers = new Set<{ readonly at: number; readonly fn: () => void }>();

  /** `start`: where time begins, e.g. `Date.now()` for a clock of wall-clock milliseconds. */
  constructor(start = 0) {
    this.time = start;
  }

  /** `now`, bound: to hand over as a `() => number` clock. */
  readonly read = (): number => this.time;

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const timer = { at: this.time + Math.max(0, ms), fn };
    this.timers.add(timer);
    return timer;
  }

  clearTimeout(timer: unknown): void {
    this.timers.delete(timer as { at: number; fn: () => void });
  }

  /** Moves time on by `ms`, firing each timer due on the way at its own time. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const due = [...this.timers].filter((timer) => timer.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers.delete(due);
      this.time = Math.max(this.time, due.at);
      due.fn();
    }
    this.time = end;
  }
}
