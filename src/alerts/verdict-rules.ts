/**
 * The timer rules of section 7 (SLO_BURN, EXECUTION_STUCK), evaluated beside section 5's by the
 * rule timer (rule-timer.ts) and claimed the same way: `for update skip locked`, state and
 * deliveries changed in one transaction, so any number of instances may run it.
 */
import type { Database } from '../db/database.js';
import type { AlertRuleRow } from '../db/tables.js';
import { RULE_COLUMNS } from './alerts.store.js';
import { evaluateExecutionStuck } from './execution-stuck.condition.js';
import { evaluateSloBurn } from './slo-burn.condition.js';
import type { TimerSettings } from './timer-settings.js';

/** Rules evaluated per transaction. */
const BATCH = 100;

export const VERDICT_CONDITIONS = ['SLO_BURN', 'EXECUTION_STUCK'] as const;

/** Evaluates the section 7 timer rules not evaluated for `evaluateMs`; returns how many deliveries it queued. */
export async function evaluateVerdictRules(
  db: Database,
  { evaluateMs, resendMs }: TimerSettings,
  now = Date.now(),
): Promise<number> {
  return db.transaction(async (tx) => {
    const rules = await tx.query<AlertRuleRow>(
      `select ${RULE_COLUMNS} from alert_rules
       where enabled and condition in ('SLO_BURN', 'EXECUTION_STUCK')
         and (evaluated_at is null or evaluated_at <= $1)
       order by evaluated_at nulls first limit ${BATCH}
       for update skip locked`,
      [new Date(now - evaluateMs + 50)],
    );
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
