/**
 * The timer rules of section 7 (SLO_BURN, EXECUTION_STUCK), evaluated beside section 5's by the
 * rule timer (rule-timer.ts) and claimed the same way: `for update skip locked`, state and
 * deliveries changed in one transaction, so any number of instances may run it.
 */
import type { Database } from '../db/database.js';
import { claimDueRules } from './alerts.store.js';
import { evaluateExecutionStuck } from './execution-stuck.condition.js';
import { evaluateSloBurn } from './slo-burn.condition.js';
import type { TimerSettings } from './timer-settings.js';

export const VERDICT_CONDITIONS = ['SLO_BURN', 'EXECUTION_STUCK'] as const;

/** Evaluates the section 7 timer rules not evaluated for `evaluateMs`; returns how many deliveries it queued. */
export async function evaluateVerdictRules(
  db: Database,
  { evaluateMs, resendMs }: TimerSettings,
  now = Date.now(),
): Promise<number> {
  return db.transaction(async (tx) => {
    const rules = await claimDueRules(tx, VERDICT_CONDITIONS, now, evaluateMs);
    let queued = 0;
    for (const rule of rules) {
      queued +=
        rule.condition === 'SLO_BURN'
          ? await evaluateSloBurn(tx, rule, now, resendMs)
          : await evaluateExecutionStuck(tx, rule, now, resendMs);
      await tx.query('update alert_rules set evaluated_at = $2 where id = $1', [rule.id, new Date(now)]);
    }
    return queued;
  });
}
