import type {
  AlertRule,
  CreateAlertRuleInput,
  CreatedAlertRule,
  UpdateAlertRuleInput,
  WebhookDeliveriesInput,
  WebhookDelivery,
} from '../../../admin/admin-types.generated.js';
import { type AdminConnection, adminRequest } from '../../admin-client.js';
import type { Palette } from '../../render/colors.js';
import { renderFields, renderTable } from '../../render/table.js';
import { formatInstant } from '../../time-input.js';

export const createAlertRule = (
  connection: AdminConnection,
  input: CreateAlertRuleInput,
): Promise<CreatedAlertRule> => adminRequest(connection, 'createAlertRule', { input });

export const listAlertRules = (connection: AdminConnection, organizationId: string): Promise<AlertRule[]> =>
  adminRequest(connection, 'alertRules', { input: { organizationId } });

export const updateAlertRule = (
  connection: AdminConnection,
  input: UpdateAlertRuleInput,
): Promise<AlertRule> => adminRequest(connection, 'updateAlertRule', { input });

export const deleteAlertRule = (connection: AdminConnection, id: string): Promise<AlertRule> =>
  adminRequest(connection, 'deleteAlertRule', { input: { id } });

export const listDeliveries = (
  connection: AdminConnection,
  input: WebhookDeliveriesInput,
): Promise<WebhookDelivery[]> => adminRequest(connection, 'webhookDeliveries', { input });

export const redeliver = (connection: AdminConnection, id: string): Promise<WebhookDelivery> =>
  adminRequest(connection, 'redeliverWebhook', { input: { id } });

/** What a rule watches, in one phrase. */
export function conditionText(rule: AlertRule): string {
  const of = rule.workflowUUID ? ` of ${rule.workflowUUID}` : '';
  switch (rule.condition) {
    case 'FAILURE_RATE':
      return `failure rate >= ${rule.threshold} over ${rule.window}${of}`;
    case 'NO_EXECUTIONS':
      return `no executions for ${rule.for}${of}`;
    case 'NEW_ERROR_GROUP':
      return `new error group${of}`;
    case 'ANOMALY':
      return `anomalous hour of ${rule.metric}${of}${rule.sensitivity === null ? '' : ` (sensitivity ${rule.sensitivity})`}`;
    case 'SLO_BURN':
      return `error budget burn of objective ${rule.serviceLevelObjectiveId}${rule.sloStatus ? ` (${rule.sloStatus})` : ''}`;
    case 'EXECUTION_STUCK':
      return `execution running past max(${rule.minDuration}, ${rule.factor} x p95)${of}`;
    default:
      return `execution failed${of}${rule.classifiedStatus ? ` (${rule.classifiedStatus})` : ''}`;
  }
}

export function renderCreatedRule(created: CreatedAlertRule, p: Palette): string {
  const lines = [
    'Alert rule created.',
    renderFields(
      [
        ['rule id', created.rule.id],
        ['name', created.rule.name],
        ['condition', conditionText(created.rule)],
        ['target', `${created.rule.target} ${created.rule.url}`],
      ],
      p,
    ),
  ];
  if (created.signingSecret) {
    lines.push(
      '',
      `  ${p.bold(created.signingSecret)}`,
      '',
      p.yellow(
        'The signing secret is shown this once: store it in your receiver to verify webhook-signature.',
      ),
    );
  }
  return lines.join('\n');
}

export function renderRules(rules: readonly AlertRule[], p: Palette): string {
  if (rules.length === 0) return 'No alert rules in this organization.';
  return renderTable(
    rules,
    [
      { header: 'RULE ID', value: (rule) => rule.id },
      { header: 'NAME', value: (rule) => rule.name, max: 32 },
      { header: 'CONDITION', value: conditionText, max: 60 },
      { header: 'TARGET', value: (rule) => `${rule.target} ${rule.url}`, max: 60 },
      {
        header: 'STATE',
        value: (rule) => (!rule.enabled ? 'disabled' : rule.firing ? 'firing' : 'enabled'),
        style: (text, rule) => (!rule.enabled ? p.red(text) : rule.firing ? p.yellow(text) : p.green(text)),
      },
    ],
    p,
  );
}

export const renderRule = (rule: AlertRule): string =>
  `Alert rule ${rule.id} (${rule.name}): ${conditionText(rule)}, ${rule.enabled ? 'enabled' : `disabled${rule.disabledReason ? `: ${rule.disabledReason}` : ''}`}.`;

export const renderDeleted = (rule: AlertRule): string =>
  `Alert rule ${rule.id} (${rule.name}) is deleted, with its deliveries.`;

const STATUS_STYLE = { DELIVERED: 'green', PENDING: 'yellow', FAILED: 'red' } as const;

export function renderDeliveries(deliveries: readonly WebhookDelivery[], p: Palette): string {
  if (deliveries.length === 0) return 'No deliveries.';
  return renderTable(
    deliveries,
    [
      { header: 'DELIVERY ID (webhook-id)', value: (d) => d.id },
      { header: 'TYPE', value: (d) => d.type },
      { header: 'STATUS', value: (d) => d.status, style: (text, d) => p[STATUS_STYLE[d.status]](text) },
      { header: 'ATTEMPTS', value: (d) => String(d.attempts) },
      { header: 'HTTP', value: (d) => (d.responseStatus === null ? '-' : String(d.responseStatus)) },
      { header: 'CREATED', value: (d) => formatInstant(d.createdAt) },
      {
        header: 'LAST ERROR / NEXT ATTEMPT',
        value: (d) =>
          d.status === 'PENDING' && d.nextAttemptAt
            ? `next ${formatInstant(d.nextAttemptAt)}${d.lastError ? `; ${d.lastError}` : ''}`
            : (d.lastError ?? ''),
        max: 60,
      },
    ],
    p,
  );
}

export const renderRedelivered = (delivery: WebhookDelivery): string =>
  `Delivery ${delivery.id} is queued again (same webhook-id); retries start over for 24 hours.`;
