import type { Database } from '../db/database.js';
import { findKeysCredentials } from '../modules/auth/api-keys.store.js';
import { type KeyRefusalReason, refusalReason } from '../modules/auth/authenticate.js';
import { onCredentialsChanged } from '../modules/auth/credential-cache.js';

/** What the watch needs of an open stream. */
export interface WatchedStream {
  readonly keyId: string;
  readonly isClosed: boolean;
}

export interface AccessWatchOptions {
  /** How often the keys of open streams are read again (changes made on other instances). */
  readonly everyMs: number;
  /** The least time between two reads, however often changes are announced in this process. */
  readonly minGapMs: number;
}

/**
 * Holds open streams to the checks every request passes (authenticate.ts): a stream whose key is
 * revoked or expires, whose member loses deploy access or is removed, or whose organization is
 * deleted, is ended. The keys of all open streams are read in one statement:
 * - every `everyMs`, so that a change made through another instance (or in the database itself)
 *   applies within that interval on this one;
 * - soon after this process announces a credential change (credentialsChanged: the admin API),
 *   at most once per `minGapMs`;
 * - at the earliest `expiresAt` among them, so that an expiry applies when it comes.
 * A read that fails leaves the streams open (the next one decides), as for the change feed.
 */
export class AccessWatch<S extends WatchedStream> {
  private timer: NodeJS.Timeout | undefined;
  private dueAt = Number.POSITIVE_INFINITY;
  private running = false;
  private rerun = false;
  private lastRunAt = Number.NEGATIVE_INFINITY;
  private failing = false;
  private closed = false;
  private readonly unlisten: () => void;

  constructor(
    private readonly db: Database,
    private readonly options: AccessWatchOptions,
    private readonly streams: () => Iterable<S>,
    private readonly end: (stream: S, reason: KeyRefusalReason) => void,
    private readonly warn: (error: unknown, message: string) => void,
  ) {
    this.unlisten = onCredentialsChanged(db, () => this.plan(this.lastRunAt + options.minGapMs));
  }

  /** A stream was added: its key is read at the next periodic check (it was just admitted). */
  wake(): void {
    this.plan(this.lastRunAt + this.options.everyMs);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.unlisten();
  }

  /** Makes the next read happen no later than `at` (and not before now). */
  private plan(at: number): void {
    if (this.closed) return;
    if (this.running) {
      this.rerun ||= at <= Date.now();
      if (!this.rerun) this.dueAt = Math.min(this.dueAt, at);
      return;
    }
    const now = Date.now();
    const when = Math.max(at, now);
    if (when >= this.dueAt) return;
    this.dueAt = when;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.run(), when - now).unref();
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    this.dueAt = Number.POSITIVE_INFINITY;
    const open = [...this.streams()].filter((stream) => !stream.isClosed);
    if (open.length === 0) return;
    this.running = true;
    this.lastRunAt = Date.now();
    let nextExpiry = Number.POSITIVE_INFINITY;
    try {
      const rows = await findKeysCredentials(this.db, [...new Set(open.map((stream) => stream.keyId))]);
      if (this.failing) this.warn(undefined, 'the keys of open event streams are readable again');
      this.failing = false;
      const now = Date.now();
      const byId = new Map(rows.map((row) => [row.id, row]));
      for (const stream of open) {
        const row = byId.get(stream.keyId);
        // Keys are never deleted; one that is gone is no key any more.
        const reason = row ? refusalReason(row, now) : 'KEY_REVOKED';
        if (reason) {
          if (!stream.isClosed) this.end(stream, reason);
        } else if (row?.expires_at) {
          nextExpiry = Math.min(nextExpiry, row.expires_at.getTime());
        }
      }
    } catch (error) {
      if (!this.failing) this.warn(error, 'could not read the keys of open event streams; they stay open');
      this.failing = true;
    } finally {
      this.running = false;
    }
    const due = this.dueAt;
    this.dueAt = Number.POSITIVE_INFINITY;
    if (this.rerun) {
      this.rerun = false;
      this.plan(this.lastRunAt + this.options.minGapMs);
    }
    this.plan(Math.min(due, nextExpiry, this.lastRunAt + this.options.everyMs));
  }
}
