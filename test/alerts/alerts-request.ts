import assert from 'node:assert/strict';
import type { Database } from '../../src/db/database.js';
import { adminGql } from '../admin/admin-request.js';
import { createTenant, ingest, workflow } from '../harness/fixtures.js';

export const CREATE_ALERT_RULE = `mutation($input: CreateAlertRuleInput!) {
  createAlertRule(input: $input) {
    signingSecret
    rule { id organizationId name condition workflowUUID classifiedStatus threshold window minExecutions for
           target url severity enabled disabledReason firing createdAt updatedAt
           serviceLevelObjectiveId factor minDuration sloStatus }
  }
}`;

export const ALERT_RULES = `query($input: AlertRulesInput!) {
  alertRules(input: $input) { id name condition enabled disabledReason firing url window for threshold }
}`;

export const UPDATE_ALERT_RULE = `mutation($input: UpdateAlertRuleInput!) {
  updateAlertRule(input: $input) { id name enabled disabledReason threshold window }
}`;

export const DELETE_ALERT_RULE = `mutation($input: DeleteAlertRuleInput!) { deleteAlertRule(input: $input) { id } }`;

export const DELIVERIES = `query($input: WebhookDeliveriesInput!) {
  webhookDeliveries(input: $input) { id ruleId organizationId type status attempts responseStatus lastError
    createdAt lastAttemptAt nextAttemptAt deliveredAt payload }
}`;

export const REDELIVER = `mutation($input: RedeliverWebhookInput!) { redeliverWebhook(input: $input) { id status } }`;

/** Polls the deliveries of an organization until `done` holds of them (or fails after `timeoutMs`). */
export async function deliveriesWhen(
  url: string,
  organizationId: string,
  // biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
  done: (deliveries: any[]) => boolean,
  timeoutMs = 15_000,
  // biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await adminGql(url, DELIVERIES, { input: { organizationId } });
    const deliveries = answer.body.data.webhookDeliveries;
    if (done(deliveries)) return deliveries;
    if (Date.now() > deadline) throw new Error(`deliveries never matched: ${JSON.stringify(deliveries)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A new tenant with one stored workflow and one alert rule created through the admin API;
 * `input` gives the rule's fields (it is handed the workflow's uuid).
 */
export async function tenantWithRule(
  db: Database,
  serverUrl: string,
  input: (workflowUuid: string) => Record<string, unknown>,
) {
  const tenant = await createTenant(db);
  const flow = workflow(tenant.organizationId);
  await ingest(db, [flow]);
  const workflowUuid = flow.uuid as string;
  const answer = await adminGql(serverUrl, CREATE_ALERT_RULE, {
    input: { organizationId: tenant.organizationId, ...input(workflowUuid) },
  });
  assert.equal(answer.body.errors, undefined, JSON.stringify(answer.body.errors));
  const created = answer.body.data.createAlertRule;
  return { tenant, workflowUuid, rule: created.rule, secret: created.signingSecret as string | null };
}
