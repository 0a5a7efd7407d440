/**
 * SLO_BURN (contract section 7): fires when its objective's status becomes TICKET (severity
 * warning) or PAGE (critical), again when it escalates from TICKET to PAGE, and resolves when the
 * status is OK again (or NO_DATA: nothing is left to burn). An episode keeps the highest status
 * it reached until it resolves, so a PAGE that calms to TICKET neither fires nor resolves. The
 * status is serviceLevels' own (the same counts, windows and rules).
 */
import type { Transaction } from '../db/database.js';
import type { AlertRuleRow, ServiceLevelObjectiveRow } from '../db/tables.js';
import { formatTime } from '../lib/time.js';
import { figuresOf, type ServiceLevelFigures } from '../modules/service-levels/burn-rates.js';
import { findObjective } from '../modules/service-levels/objectives.store.js';
import { readObjectiveCounts } from '../modules/service-levels/service-levels.store.js';
import { queueDeliveries, resendFiring } from './alerts.store.js';
import { ruleSummary } from './payloads.js';

const LEVEL: Readonly<Record<string, number>> = { TICKET: 1, PAGE: 2 };

/** The `severity` of an SLO_BURN alert of a status. */
export const sloSeverity = (status: string): 'warning' | 'critical' =>
  status === 'PAGE' ? 'critical' : 'warning';

const percent = (value: number | null) => (value === null ? 'n/a' : `${(value * 100).toFixed(2)}%`);

function summaryOf(objective: ServiceLevelObjectiveRow, figures: ServiceLevelFigures): string {
  const rates = figures.burnRates
    .map((rate) => `${rate.window} ${rate.rate === null ? '-' : rate.rate.toFixed(1)}`)
    .join(', ');
  return `${objective.name}: ${figures.status}, attainment ${percent(figures.attainment)} of ${percent(objective.target)}, error budget left ${percent(figures.errorBudgetRemaining)}; burn rates ${rates}`;
}

/** Evaluates one claimed SLO_BURN rule at `now`, changing its state; returns how many deliveries it queued. */
export async function evaluateSloBurn(
  tx: Transaction,
  rule: AlertRuleRow,
  now: number,
  resendMs: number,
): Promise<number> {
  const objective = await findObjective(tx, rule.service_level_objective_id!);
  if (!objective) return 0;
  const [counts] = await readObjectiveCounts(tx, rule.organization_id, [objective], now);
  const figures = figuresOf(objective.target, counts!.period, counts!.windows);
  const level = LEVEL[figures.status] ?? 0;
  const current = rule.slo_status === null ? 0 : (LEVEL[rule.slo_status] ?? 0);
  const at = new Date(now);
  const data = (state: 'firing' | 'resolved', status: string, startsAt: string) => ({
    rule: ruleSummary(rule),
    organizationId: rule.organization_id,
    workflowUUID: objective.workflow_uuid,
    objective: {
      id: objective.id,
      name: objective.name,
      indicator: objective.indicator,
      target: objective.target,
    },
    state,
    status,
    severity: sloSeverity(status),
    startsAt,
    ...(state === 'resolved' ? { endsAt: formatTime(at) } : {}),
    summary: summaryOf(objective, figures),
    total: figures.total,
    good: figures.good,
    attainment: figures.attainment,
    errorBudgetRemaining: figures.errorBudgetRemaining,
    burnRates: figures.burnRates,
  });
  let queued = 0;
  if (level > current) {
    // A new episode starts now; an escalation keeps its episode's start.
    const firedAt = current === 0 || !rule.fired_at ? at : rule.fired_at;
    const startsAt = formatTime(firedAt);
    queued = await queueDeliveries(tx, [
      {
        organizationId: rule.organization_id,
        ruleId: rule.id,
        eventKey: `firing:${startsAt}:${figures.status}`,
        type: 'slo_burn.firing',
        payload: {
          type: 'slo_burn.firing',
          timestamp: formatTime(at),
          data: data('firing', figures.status, startsAt),
        },
      },
    ]);
    await tx.query('update alert_rules set firing = true, fired_at = $2, slo_status = $3 where id = $1', [
      rule.id,
      firedAt,
      figures.status,
    ]);
  } else if (level === 0 && current > 0) {
    const startsAt = formatTime(rule.fired_at ?? at);
    queued = await queueDeliveries(tx, [
      {
        organizationId: rule.organization_id,
        ruleId: rule.id,
        eventKey: `resolved:${startsAt}`,
        type: 'slo_burn.resolved',
        payload: {
          type: 'slo_burn.resolved',
          timestamp: formatTime(at),
          data: data('resolved', rule.slo_status!, startsAt),
        },
      },
    ]);
    await tx.query('update alert_rules set firing = false, slo_status = null where id = $1', [rule.id]);
  } else if (current > 0 && rule.target === 'ALERTMANAGER' && rule.fired_at) {
    await resendFiring(tx, rule.id, `firing:${formatTime(rule.fired_at)}:${rule.slo_status}`, resendMs);
  }
  return queued;
}
