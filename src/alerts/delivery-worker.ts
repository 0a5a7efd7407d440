/**
 * Sends the outbox's due deliveries, off the request path: at most `concurrency` requests in
 * flight, each bounded by `timeoutMs`, so a slow or dead receiver only ever holds this worker's
 * slots, never ingestion or reads. Each claim leases a row (see claimDue): several instances
 * share the work, and a delivery whose sender died (SIGKILL) is sent again once its lease runs
 * out, with the same webhook-id. Retries follow `retryDelay` for `giveUpMs` (24 hours); a 410
 * disables the rule.
 */
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import type { AlertRuleRow, WebhookDeliveryRow } from '../db/tables.js';
import { durationText } from '../lib/duration.js';
import {
  type AttemptOutcome,
  claimDue,
  disableRule,
  findRules,
  GIVE_UP_MS,
  recordAttempts,
} from './alerts.store.js';
import { alertKeyOf, open } from './secret-box.js';
import { send } from './send.js';
import { onDeliveriesDue } from './wake.js';

const MAX_DELAY_MS = 60 * 60 * 1000;

/**
 * The delay before attempt `attempts + 1`: the base doubled per attempt made, at most an hour,
 * times a random factor in [0.5, 1.5) so that receivers coming back are not hit by every
 * delivery at once.
 */
export function retryDelay(baseMs: number, attempts: number, random = Math.random()): number {
  return Math.round(Math.min(baseMs * 2 ** Math.max(0, attempts - 1), MAX_DELAY_MS) * (0.5 + random));
}

/**
 * The instant a delivery's retries end. The outbox stores `give_up_at` as the moment it was
 * queued (or redelivered, or re-sent) plus GIVE_UP_MS; the configured horizon counts from that
 * same moment, so it applies to rows written by ingestion, the rule timer and `redeliver` alike.
 */
export function retriesEndAt(delivery: Pick<WebhookDeliveryRow, 'give_up_at'>, giveUpMs: number): number {
  return delivery.give_up_at.getTime() - GIVE_UP_MS + giveUpMs;
}

export interface WorkerLog {
  warn(details: object, message: string): void;
}

export class DeliveryWorker {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private pollAgain = false;
  private stopped = false;

  /**
   * `now`: wall-clock milliseconds that move the outbox's time (when a delivery is due, its lease,
   * its retries and its horizon) on past the database's clock, for a test that moves its own; a
   * clock behind the database's changes nothing.
   */
  constructor(
    private readonly db: Database,
    private readonly config: Config,
    private readonly log: WorkerLog,
    private readonly now?: () => number,
  ) {}

  /** The test's instant for the outbox's statements (they take the later of it and theirs). */
  private at(): Date | null {
    return this.now ? new Date(this.now()) : null;
  }

  start(): void {
    onDeliveriesDue(this.db, () => void this.poll());
    this.timer = setInterval(() => void this.poll(), this.config.alerts.pollMs);
    this.timer.unref();
    void this.poll();
  }

  /** Stops claiming, cuts the requests in flight (their rows are sent again after their lease) and waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    onDeliveriesDue(this.db, undefined);
    this.abort.abort();
    await Promise.allSettled([...this.inFlight]);
  }

  /** Claims what is due, as long as slots are free; concurrent calls fold into one more round. */
  async poll(): Promise<void> {
    if (this.stopped) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.polling = true;
    try {
      do {
        this.pollAgain = false;
        const free = this.config.alerts.concurrency - this.inFlight.size;
        if (free <= 0) break;
        // Past the attempt's time limit, with room for recording it: a row claimed by a process that died is due again then.
        const leaseMs = this.config.alerts.timeoutMs + 5_000;
        const claimed = await claimDue(this.db, free, leaseMs, this.at());
        // One read of the claim's rules, not one per delivery.
        const rules = await findRules(
          this.db,
          claimed.map((delivery) => delivery.rule_id),
        );
        for (const delivery of claimed) this.track(this.attempt(delivery, rules.get(delivery.rule_id)));
        // A full claim may have left more due rows behind: look again once a slot frees up.
        if (claimed.length === free) this.backlog = true;
      } while (this.pollAgain && !this.stopped);
    } catch (error) {
      if (!this.stopped) this.log.warn({ err: error }, 'could not claim alert deliveries');
    } finally {
      this.polling = false;
    }
  }

  private backlog = false;
  /** Outcomes waiting for the write in flight; the next write takes them all. */
  private unrecorded: Array<{
    readonly id: string;
    readonly outcome: AttemptOutcome;
    readonly resolve: () => void;
    readonly reject: (error: unknown) => void;
  }> = [];
  private recording = false;

  /**
   * Records an attempt's outcome; resolves once it is written. Outcomes that arrive while a
   * write is in flight go out together in the next one: one statement per burst of finished
   * attempts, not one each. Until its outcome is written a delivery keeps its lease, so a crash
   * in between sends it again (with the same webhook-id), as a crash during the send would.
   */
  private record(id: string, outcome: AttemptOutcome): Promise<void> {
    return new Promise((resolve, reject) => {
      this.unrecorded.push({ id, outcome, resolve, reject });
      if (!this.recording) void this.writeOutcomes();
    });
  }

  private async writeOutcomes(): Promise<void> {
    this.recording = true;
    while (this.unrecorded.length > 0) {
      const batch = this.unrecorded.splice(0);
      try {
        await recordAttempts(this.db, batch, this.at());
        for (const attempt of batch) attempt.resolve();
      } catch (error) {
        for (const attempt of batch) attempt.reject(error);
      }
    }
    this.recording = false;
  }

  private track(attempt: Promise<void>): void {
    this.inFlight.add(attempt);
    void attempt.finally(() => {
      this.inFlight.delete(attempt);
      if (this.backlog && !this.stopped) {
        this.backlog = false;
        void this.poll();
      }
    });
  }

  private async attempt(delivery: WebhookDeliveryRow, rule: AlertRuleRow | undefined): Promise<void> {
    try {
      if (!rule) return; // deleted: its deliveries went with it
      if (!rule.enabled) {
        await this.record(delivery.id, {
          status: 'FAILED',
          responseStatus: null,
          error: `the rule is disabled${rule.disabled_reason ? ` (${rule.disabled_reason})` : ''}`,
          retryInMs: 0,
        });
        return;
      }
      const key = alertKeyOf(this.config);
      let secret: string | undefined;
      if (rule.secret_box) {
        try {
          secret = key ? open(key, rule.secret_box) : undefined;
        } catch {
          secret = undefined;
        }
      }
      const result = await send(rule, delivery, {
        timeoutMs: this.config.alerts.timeoutMs,
        allowPrivate: this.config.alerts.allowPrivate,
        secret,
        signal: this.abort.signal,
        resendMs: this.config.alerts.resendMs,
      });
      // Shutting down: the row keeps its lease and is sent again by the next worker.
      if (this.stopped) return;
      const outcome = this.outcomeOf(delivery, result.status, result.error);
      await this.record(delivery.id, outcome);
      if (result.status === 410) {
        await disableRule(this.db, rule.id, `the receiver answered 410 Gone on delivery ${delivery.id}`);
      }
    } catch (error) {
      if (!this.stopped)
        this.log.warn({ err: error, delivery: delivery.id }, 'alert delivery attempt failed');
    }
  }

  private outcomeOf(
    delivery: WebhookDeliveryRow,
    status: number | null,
    error: string | null,
  ): AttemptOutcome {
    if (status !== null && status >= 200 && status < 300)
      return { status: 'DELIVERED', responseStatus: status, error: null, retryInMs: 0 };
    const reason = error ?? `the receiver answered ${status}`;
    if (status === 410)
      return {
        status: 'FAILED',
        responseStatus: status,
        error: `${reason}: the rule is disabled`,
        retryInMs: 0,
      };
    const giveUpMs = this.config.alerts.giveUpMs;
    const left = retriesEndAt(delivery, giveUpMs) - Math.max(Date.now(), this.now?.() ?? 0);
    if (left <= 0)
      return {
        status: 'FAILED',
        responseStatus: status,
        error: `${reason}; gave up after ${delivery.attempts + 1} attempts over ${giveUpMs % 1000 === 0 ? durationText(giveUpMs / 1000) : `${giveUpMs} ms`}`,
        retryInMs: 0,
      };
    const delay = Math.min(retryDelay(this.config.alerts.retryBaseMs, delivery.attempts + 1), left);
    return { status: 'PENDING', responseStatus: status, error: reason, retryInMs: delay };
  }
}
