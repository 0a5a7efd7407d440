import type { Queryable } from '../../db/database.js';
import { recordKeyUse } from './api-keys.store.js';

/**
 * Records when each key was last used without a database write per request: uses are kept in
 * memory and written in one statement every `flushMs` (and on shutdown). At most one flush
 * interval of last-use times is lost if the process dies.
 */
export class KeyUsageRecorder {
  private pending = new Map<string, Date>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Queryable,
    private readonly flushMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }

  touch(keyId: string, at = new Date()): void {
    this.pending.set(keyId, at);
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await recordKeyUse(this.db, batch);
    } catch (error) {
      // Keep the uses for the next flush unless newer ones arrived meanwhile.
      for (const [id, at] of batch) if (!this.pending.has(id)) this.pending.set(id, at);
      this.onError(error);
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }
}
