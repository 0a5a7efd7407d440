/**
 * The rules evaluated on a timer (FAILURE_RATE, NO_EXECUTIONS, ANOMALY). Any number of instances may run
 * it: each evaluation claims its rules with `for update skip locked`, changes their state and
 * writes the delivery of a change in the same transaction, so a rule is never evaluated by two
 * instances at once and a change never fires twice. Counts come from the rollups (countWindows:
 * rollup buckets plus index scans of the window's two partial edges), never a scan of executions.
 */
import type { Database, Transaction } from '../db/database.js';
import type { AlertRuleRow } from '../db/tables.js';
import { durationText } from '../lib/duration.js';
import { formatTime } from '../lib/time.js';
import { countWindows } from '../rollups/execution-counts.store.js';
import { claimDueRules, queueDeliveries, resendFiring } from './alerts.store.js';
import { anomalyVerdict } from './anomaly-condition.js';
import { ruleSummary } from './payloads.js';
import type { TimerSettings } from './timer-settings.js';
import { evaluateVerdictRules } from './verdict-rules.js';

interface Verdict {
  readonly firing: boolean;
  readonly summary: string;
  readonly values: Record<string, unknown>;
}

async function verdictOf(tx: Transaction, rule: AlertRuleRow, now: number): Promise<Verdict> {
  if (rule.condition === 'ANOMALY') return anomalyVerdict(tx, rule, now);
  if (rule.condition === 'FAILURE_RATE') {
    const windowMs = rule.window_seconds! * 1000;
    const counts = (
      await countWindows(
        tx,
        rule.organization_id,
        [{ key: 0, from: now - windowMs, to: null, workflowUuid: rule.workflow_uuid }],
        ['SUCCESS', 'FAILURE'],
      )
    ).get(0)!;
    const failures = counts.byStatus.get('FAILURE') ?? 0;
    const finished = counts.total;
    const rate = finished === 0 ? 0 : failures / finished;
    const threshold = Number(rule.threshold);
    const firing = finished >= (rule.min_executions ?? 1) && rate >= threshold;
    return {
      firing,
      summary: `failure rate ${(rate * 100).toFixed(1)}% (${failures} of ${finished}) over ${durationText(rule.window_seconds!)}, threshold ${(threshold * 100).toFixed(1)}%`,
      values: {
        failureRate: rate,
        failureCount: failures,
        executionCount: finished,
        threshold,
        window: durationText(rule.window_seconds!),
      },
    };
  }
  const silenceMs = rule.for_seconds! * 1000;
  const counts = (
    await countWindows(tx, rule.organization_id, [
      { key: 0, from: now - silenceMs, to: null, workflowUuid: rule.workflow_uuid },
    ])
  ).get(0)!;
  // A new rule waits for its first full period before it can call a workflow silent.
  const firing = counts.total === 0 && now - rule.created_at.getTime() >= silenceMs;
  return {
    firing,
    summary: firing
      ? `no execution of workflow ${rule.workflow_uuid} started in ${durationText(rule.for_seconds!)}`
      : `workflow ${rule.workflow_uuid} has executions again`,
    values: { executionCount: counts.total, for: durationText(rule.for_seconds!) },
  };
}

const EVENT_PREFIX = {
  FAILURE_RATE: 'failure_rate',
  NO_EXECUTIONS: 'no_executions',
  ANOMALY: 'anomaly',
} as const;

/** The conditions evaluated here: those of EVENT_PREFIX. */
const TIMED_CONDITIONS = Object.keys(EVENT_PREFIX);

/** Evaluates the timer rules not evaluated for `evaluateMs`; returns how many deliveries it queued. */
export async function evaluateDueRules(
  db: Database,
  { evaluateMs, resendMs }: TimerSettings,
  now = Date.now(),
): Promise<number> {
  return db.transaction(async (tx) => {
    const rules = await claimDueRules(tx, TIMED_CONDITIONS, now, evaluateMs);
    let queued = 0;
    for (const rule of rules) {
      const verdict = await verdictOf(tx, rule, now);
      const prefix = EVENT_PREFIX[rule.condition as keyof typeof EVENT_PREFIX];
      const at = new Date(now);
      if (verdict.firing && !rule.firing) {
        queued += await queueDeliveries(tx, [
          {
            organizationId: rule.organization_id,
            ruleId: rule.id,
            eventKey: `firing:${formatTime(at)}`,
            type: `${prefix}.firing`,
            payload: {
              type: `${prefix}.firing`,
              timestamp: formatTime(at),
              data: {
                rule: ruleSummary(rule),
                organizationId: rule.organization_id,
                workflowUUID: rule.workflow_uuid,
                state: 'firing',
                startsAt: formatTime(at),
                summary: verdict.summary,
                ...verdict.values,
              },
            },
          },
        ]);
      } else if (!verdict.firing && rule.firing) {
        const startsAt = formatTime(rule.fired_at ?? at);
        queued += await queueDeliveries(tx, [
          {
            organizationId: rule.organization_id,
            ruleId: rule.id,
            eventKey: `resolved:${startsAt}`,
            type: `${prefix}.resolved`,
            payload: {
              type: `${prefix}.resolved`,
              timestamp: formatTime(at),
              data: {
                rule: ruleSummary(rule),
                organizationId: rule.organization_id,
                workflowUUID: rule.workflow_uuid,
                state: 'resolved',
                startsAt,
                endsAt: formatTime(at),
                summary: verdict.summary,
                ...verdict.values,
              },
            },
          },
        ]);
      } else if (verdict.firing && rule.target === 'ALERTMANAGER' && rule.fired_at) {
        // Still firing: send the alert again well before its endsAt, as Prometheus does. Each
        // re-send is a new post with retries of its own (horizon and backoff): counted from the
        // first firing, an alert firing for longer than the horizon would be given up at its
        // first failed re-send, and one that had been re-sent for hours would wait up to an hour
        // for its first retry; either way Alertmanager would resolve it while it still fires.
        // A post given up (Alertmanager down for the whole horizon) is tried again at the next
        // interval. `attempts` then counts the current post's attempts.
        await resendFiring(tx, rule.id, `firing:${formatTime(rule.fired_at)}`, resendMs);
      }
      const changed = verdict.firing !== rule.firing;
      await tx.query(
        `update alert_rules set evaluated_at = $2, firing = $3,
           fired_at = case when $4 then $2 else fired_at end
         where id = $1`,
        [rule.id, at, verdict.firing, changed && verdict.firing],
      );
    }
    return queued;
  });
}

export interface TimerLog {
  warn(details: object, message: string): void;
}

/** Runs evaluateDueRules every `evaluateMs` until stopped; calls `onQueued` when deliveries were queued. */
export class RuleTimer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly db: Database,
    private readonly settings: TimerSettings,
    private readonly log: TimerLog,
    private readonly onQueued: () => void,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), this.settings.evaluateMs);
    this.timer.unref();
    this.tick();
  }

  private tick(): void {
    if (this.running) return;
    const now = this.now();
    this.running = evaluateDueRules(this.db, this.settings, now)
      .then(async (queued) => queued + (await evaluateVerdictRules(this.db, this.settings, now)))
      .then((queued) => {
        if (queued > 0) this.onQueued();
      })
      .catch((error) => this.log.warn({ err: error }, 'could not evaluate alert rules'))
      .finally(() => {
        this.running = undefined;
      });
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
