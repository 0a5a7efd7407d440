/**
 * The ANOMALY alert condition (contract section 7, "New alert conditions"): a rule watches one
 * metric of one workflow, or of the organization as a whole, and fires when the last completed
 * hour is anomalous by the rules of the `anomalies` query (the same code judges both); it resolves
 * with the next completed hour that is not. Evaluated on the rule timer (rule-timer.ts).
 */
import type { Queryable } from '../db/database.js';
import type { AlertRuleRow } from '../db/tables.js';
import { badInput } from '../errors.js';
import { formatTime, HOUR } from '../lib/time.js';
import { detectAnomalies } from '../modules/anomalies/anomalies.service.js';
import { DEFAULT_SENSITIVITY } from '../modules/anomalies/anomaly-detection.js';
import type { AnomalyMetric } from '../schema/schema-types.generated.js';

const METRICS: readonly AnomalyMetric[] = ['EXECUTIONS', 'FAILURE_RATE', 'DURATION_P95'];

/** A rule's `metric`, checked. */
export function anomalyMetric(value: string): AnomalyMetric {
  if (!(METRICS as readonly string[]).includes(value))
    throw badInput(`metric must be one of ${METRICS.join(', ')}`);
  return value as AnomalyMetric;
}

/** A rule's `sensitivity` as stored (numeric text), checked: 1 to 10. */
export function anomalySensitivity(value: number): string {
  if (!Number.isFinite(value) || value < 1 || value > 10)
    throw badInput('sensitivity must be between 1 and 10');
  return String(value);
}

export interface ConditionVerdict {
  readonly firing: boolean;
  readonly summary: string;
  readonly values: Record<string, unknown>;
}

const describe = (metric: AnomalyMetric, value: number | null) =>
  value === null
    ? 'none'
    : metric === 'FAILURE_RATE'
      ? `${(value * 100).toFixed(1)}%`
      : metric === 'DURATION_P95'
        ? `${Math.round(value)} ms`
        : String(value);

/** Whether the last hour that has ended at `now` is anomalous for the rule, with what was seen. */
export async function anomalyVerdict(
  db: Queryable,
  rule: AlertRuleRow,
  now: number,
): Promise<ConditionVerdict> {
  const metric = rule.metric as AnomalyMetric;
  const from = Math.floor(now / HOUR) * HOUR - HOUR;
  const [series] = await detectAnomalies(db, rule.organization_id, {
    buckets: [{ from, to: from + HOUR }],
    width: HOUR,
    workflowUuid: rule.workflow_uuid,
    perWorkflow: false,
    metrics: [metric],
    sensitivity: rule.sensitivity === null ? DEFAULT_SENSITIVITY : Number(rule.sensitivity),
    now,
  });
  const point = series!.points[0]!;
  const scope = rule.workflow_uuid === null ? 'the organization' : `workflow ${rule.workflow_uuid}`;
  const band =
    point.lower === null
      ? 'no baseline'
      : `expected ${describe(metric, point.expected)} (${describe(metric, point.lower)} to ${describe(metric, point.upper)})`;
  return {
    firing: point.anomalous,
    summary: `${metric} of ${scope} from ${formatTime(new Date(point.from))} to ${formatTime(new Date(point.to))}: ${describe(metric, point.observed)}, ${band}`,
    values: {
      metric,
      from: formatTime(new Date(point.from)),
      to: formatTime(new Date(point.to)),
      observed: point.observed,
      expected: point.expected,
      lower: point.lower,
      upper: point.upper,
      anomalous: point.anomalous,
      direction: point.direction,
      score: point.score,
    },
  };
}
