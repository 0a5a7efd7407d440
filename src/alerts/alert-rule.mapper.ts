import type {
  AlertCondition,
  AlertRule,
  AlertTarget,
  WebhookDelivery,
  WebhookDeliveryStatus,
} from '../admin/admin-types.generated.js';
import type { AlertRuleRow, WebhookDeliveryRow } from '../db/tables.js';
import { durationText } from '../lib/duration.js';
import type { ApiScalars } from '../schema/scalars.js';

/** A stored rule as operators see it: never its signing secret. */
export function toAlertRule(row: AlertRuleRow): AlertRule<ApiScalars> {
  return {
    id: row.id,
    organizationId: row.organization_id,
    name: row.name,
    condition: row.condition as AlertCondition,
    workflowUUID: row.workflow_uuid,
    classifiedStatus: row.classified_status,
    threshold: row.threshold === null ? null : Number(row.threshold),
    window: row.window_seconds === null ? null : durationText(row.window_seconds),
    minExecutions: row.min_executions,
    for: row.for_seconds === null ? null : durationText(row.for_seconds),
    metric: row.metric,
    sensitivity: row.sensitivity === null ? null : Number(row.sensitivity),
    target: row.target as AlertTarget,
    url: row.url,
    severity: row.severity,
    serviceLevelObjectiveId: row.service_level_objective_id,
    factor: row.factor,
    minDuration: row.min_duration_seconds === null ? null : durationText(row.min_duration_seconds),
    sloStatus: row.slo_status,
    enabled: row.enabled,
    disabledReason: row.disabled_reason,
    firing: row.firing,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toWebhookDelivery(row: WebhookDeliveryRow): WebhookDelivery<ApiScalars> {
  return {
    id: row.id,
    ruleId: row.rule_id,
    organizationId: row.organization_id,
    type: row.event_type,
    status: row.status as WebhookDeliveryStatus,
    attempts: row.attempts,
    responseStatus: row.response_status,
    lastError: row.last_error,
    createdAt: row.created_at,
    lastAttemptAt: row.last_attempt_at,
    nextAttemptAt: row.status === 'PENDING' ? row.next_attempt_at : null,
    deliveredAt: row.delivered_at,
    payload: row.payload,
  };
}
