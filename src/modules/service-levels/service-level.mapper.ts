import type { ServiceLevelFigures } from './burn-rates.js';
import type { MeasuredObjective } from './objectives.store.js';

/** An objective and its figures as serviceLevels answers them. */
export function toServiceLevel(objective: MeasuredObjective, figures: ServiceLevelFigures) {
  return {
    id: objective.id,
    name: objective.name,
    workflowUUID: objective.workflow_uuid,
    workflowName: objective.workflow_name,
    indicator: objective.indicator as 'SUCCESS' | 'LATENCY',
    target: objective.target,
    thresholdMs: objective.threshold_ms,
    periodDays: objective.period_days,
    total: figures.total,
    good: figures.good,
    attainment: figures.attainment,
    errorBudgetRemaining: figures.errorBudgetRemaining,
    burnRates: figures.burnRates.map((rate) => ({ ...rate })),
    status: figures.status,
  };
}
