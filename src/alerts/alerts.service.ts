/**
 * Operator actions on alert rules and deliveries (contract section 5, "Push"): validation of the
 * operator's input, then the store. Every refusal is BAD_USER_INPUT naming the field.
 */
import { randomUUID } from 'node:crypto';
import { knownOrganizationId, knownWorkflowUuid, label, uuidOf } from '../admin/admin-input.js';
import type {
  CreateAlertRuleInput,
  UpdateAlertRuleInput,
  WebhookDeliveriesInput,
} from '../admin/admin-types.generated.js';
import type { Config } from '../config.js';
import type { Queryable } from '../db/database.js';
import type { AlertRuleRow, WebhookDeliveryRow } from '../db/tables.js';
import { badInput, notFound } from '../errors.js';
import { parseDuration } from '../lib/duration.js';
import { WorkflowExecutionClassifiedStatusValues } from '../schema/schema-types.generated.js';
import {
  deleteRule,
  findRule,
  insertRule,
  listDeliveries,
  listRules,
  type RuleChanges,
  requeueDelivery,
  updateRule,
} from './alerts.store.js';
import { anomalyMetric, anomalySensitivity } from './anomaly-condition.js';
import { checkReceiverUrl } from './receiver-address.js';
import { alertKeyOf, newSigningSecret, seal } from './secret-box.js';
import { checkVerdictShape, verdictChanges, verdictParameters } from './verdict-parameters.js';
import { wakeDeliveries } from './wake.js';

const MINUTE_S = 60;
const DAY_S = 24 * 60 * 60;

function seconds(field: string, text: string, min: number, max: number): number {
  const ms = parseDuration(text);
  if (ms === undefined || ms % 1000 !== 0)
    throw badInput(`${field} must be a duration such as 15m, 1h or 2d`);
  const s = ms / 1000;
  if (s < min || s > max) throw badInput(`${field} must be between ${min / MINUTE_S}m and ${max / DAY_S}d`);
  return s;
}

function threshold(value: number): string {
  if (!Number.isFinite(value) || value < 0 || value > 1) throw badInput('threshold must be between 0 and 1');
  return String(value);
}

function minExecutions(value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > 1_000_000)
    throw badInput('minExecutions must be an integer between 1 and 1000000');
  return value;
}

function severity(value: string): string {
  if (!/^[a-z]{1,20}$/.test(value)) throw badInput('severity must be 1 to 20 lowercase letters');
  return value;
}

function classifiedStatus(value: string): string {
  if (!(WorkflowExecutionClassifiedStatusValues as readonly string[]).includes(value))
    throw badInput(`classifiedStatus must be one of ${WorkflowExecutionClassifiedStatusValues.join(', ')}`);
  return value;
}

/** A rule as created, with the one copy of its signing secret (WEBHOOK targets). */
export interface CreatedRule {
  readonly row: AlertRuleRow;
  readonly signingSecret: string | null;
}

/** The parameters each condition requires, checked once the rule's final shape is known. */
function checkShape(
  rule: Pick<
    AlertRuleRow,
    | 'condition'
    | 'workflow_uuid'
    | 'threshold'
    | 'window_seconds'
    | 'for_seconds'
    | 'classified_status'
    | 'metric'
    | 'sensitivity'
    | 'service_level_objective_id'
    | 'factor'
    | 'min_duration_seconds'
  >,
): void {
  const only = (field: string, present: unknown, conditions: readonly string[]) => {
    if (present !== null && present !== undefined && !conditions.includes(rule.condition))
      throw badInput(`${field} applies only to ${conditions.join(' and ')} rules`);
  };
  only('classifiedStatus', rule.classified_status, ['EXECUTION_FAILED']);
  only('threshold', rule.threshold, ['FAILURE_RATE']);
  only('window', rule.window_seconds, ['FAILURE_RATE']);
  only('for', rule.for_seconds, ['NO_EXECUTIONS']);
  only('metric', rule.metric, ['ANOMALY']);
  only('sensitivity', rule.sensitivity, ['ANOMALY']);
  if (rule.condition === 'ANOMALY' && rule.metric === null) throw badInput('metric is required by ANOMALY');
  checkVerdictShape(rule, only);
  if (rule.condition === 'FAILURE_RATE') {
    if (rule.threshold === null) throw badInput('threshold is required by FAILURE_RATE');
    if (rule.window_seconds === null) throw badInput('window is required by FAILURE_RATE');
  }
  if (rule.condition === 'NO_EXECUTIONS') {
    if (rule.workflow_uuid === null) throw badInput('workflowUUID is required by NO_EXECUTIONS');
    if (rule.for_seconds === null) throw badInput('for is required by NO_EXECUTIONS');
  }
}

export async function createAlertRule(
  db: Queryable,
  config: Config,
  input: CreateAlertRuleInput,
): Promise<CreatedRule> {
  const organizationId = await knownOrganizationId(db, input.organizationId);
  const url = await checkReceiverUrl('url', input.url, config.alerts.allowPrivate);
  let signingSecret: string | null = null;
  let secretBox: Buffer | null = null;
  if (input.target === 'WEBHOOK') {
    const key = alertKeyOf(config);
    if (!key)
      throw badInput('target WEBHOOK needs WFAPI_ALERTS_SECRET_KEY or WFAPI_ADMIN_TOKEN on the server');
    signingSecret = newSigningSecret();
    secretBox = seal(key, signingSecret);
  }
  const shape = {
    condition: input.condition,
    workflow_uuid: input.workflowUUID
      ? await knownWorkflowUuid(db, organizationId, input.workflowUUID)
      : null,
    classified_status: input.classifiedStatus ? classifiedStatus(input.classifiedStatus) : null,
    threshold: input.threshold === null || input.threshold === undefined ? null : threshold(input.threshold),
    window_seconds: input.window ? seconds('window', input.window, MINUTE_S, 7 * DAY_S) : null,
    for_seconds: input.for ? seconds('for', input.for, MINUTE_S, 30 * DAY_S) : null,
    metric: input.metric ? anomalyMetric(input.metric) : null,
    sensitivity: input.sensitivity == null ? null : anomalySensitivity(input.sensitivity),
    ...(await verdictParameters(db, organizationId, input)),
  };
  checkShape(shape);
  const row = await insertRule(db, {
    id: randomUUID(),
    organization_id: organizationId,
    name: label('name', input.name),
    ...shape,
    min_executions: input.condition === 'FAILURE_RATE' ? minExecutions(input.minExecutions ?? 1) : null,
    target: input.target,
    url,
    secret_box: secretBox,
    severity: severity(input.severity ?? 'warning'),
    enabled: true,
    disabled_reason: null,
  });
  return { row, signingSecret };
}

export async function updateAlertRule(
  db: Queryable,
  config: Config,
  input: UpdateAlertRuleInput,
): Promise<AlertRuleRow> {
  const current = await findRule(db, uuidOf('id', input.id));
  if (!current) throw notFound('alert rule not found');
  const changes: RuleChanges = {};
  if (input.name != null) changes.name = label('name', input.name);
  if (input.workflowUUID != null)
    changes.workflow_uuid = await knownWorkflowUuid(db, current.organization_id, input.workflowUUID);
  if (input.classifiedStatus != null) changes.classified_status = classifiedStatus(input.classifiedStatus);
  if (input.threshold != null) changes.threshold = threshold(input.threshold);
  if (input.window != null) changes.window_seconds = seconds('window', input.window, MINUTE_S, 7 * DAY_S);
  if (input.minExecutions != null) changes.min_executions = minExecutions(input.minExecutions);
  if (input.for != null) changes.for_seconds = seconds('for', input.for, MINUTE_S, 30 * DAY_S);
  if (input.metric != null) changes.metric = anomalyMetric(input.metric);
  if (input.sensitivity != null) changes.sensitivity = anomalySensitivity(input.sensitivity);
  if (input.url != null) changes.url = await checkReceiverUrl('url', input.url, config.alerts.allowPrivate);
  if (input.severity != null) changes.severity = severity(input.severity);
  Object.assign(changes, verdictChanges(input));
  if (input.enabled != null) {
    changes.enabled = input.enabled;
    if (input.enabled) changes.disabled_reason = null;
  }
  checkShape({ ...current, ...changes });
  const row = await updateRule(db, current.id, changes);
  if (!row) throw notFound('alert rule not found');
  return row;
}

export async function deleteAlertRule(db: Queryable, input: { id: string }): Promise<AlertRuleRow> {
  const row = await deleteRule(db, uuidOf('id', input.id));
  if (!row) throw notFound('alert rule not found');
  return row;
}

export async function alertRulesOf(
  db: Queryable,
  input: { organizationId: string },
): Promise<AlertRuleRow[]> {
  const organizationId = await knownOrganizationId(db, input.organizationId);
  return listRules(db, organizationId);
}

export async function webhookDeliveriesOf(
  db: Queryable,
  input: WebhookDeliveriesInput,
): Promise<WebhookDeliveryRow[]> {
  const organizationId = await knownOrganizationId(db, input.organizationId);
  const limit = input.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw badInput('limit must be between 1 and 500');
  return listDeliveries(db, {
    organizationId,
    ruleId: input.ruleId ? uuidOf('ruleId', input.ruleId) : null,
    status: input.status ?? null,
    limit,
  });
}

export async function redeliverWebhook(db: Queryable, input: { id: string }): Promise<WebhookDeliveryRow> {
  const row = await requeueDelivery(db, uuidOf('id', input.id));
  if (!row) throw notFound('delivery not found');
  wakeDeliveries(db);
  return row;
}
