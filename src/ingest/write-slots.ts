/**
 * A counting semaphore over batch writes. Writers of one organization wait for each other on an
 * advisory lock while holding a database connection; capping concurrent batches below the pool
 * size keeps connections free for reads however many producers send at once.
 */
export class WriteSlots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(slots: number) {
    this.free = Math.max(1, slots);
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      // The slot passes straight to the next waiter, or back to the pool.
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}
