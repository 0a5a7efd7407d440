/**
 * The rules evaluated as data arrives (EXECUTION_FAILED, NEW_ERROR_GROUP): their deliveries are
 * written to the outbox in the ingesting batch's own transaction, so a committed batch always
 * has its deliveries and a rolled-back one has none. A delivery is keyed by rule and execution
 * uuid (or fingerprint), so a re-sent FAILURE never makes a second one.
 */
import type { Transaction } from '../db/database.js';
import type { AlertRuleRow } from '../db/tables.js';
import { wireExecution } from '../events/sse.js';
import type { IngestObserver, WrittenBatch } from '../ingest/ingest.store.js';
import { fromUnits, toUnits } from '../lib/decimal.js';
import { formatTime } from '../lib/time.js';
import { toExecution } from '../modules/executions/execution.mapper.js';
import type { ExecutionRow } from '../modules/executions/executions.store.js';
import { enabledRules, type NewDelivery, queueDeliveries } from './alerts.store.js';
import { ruleSummary } from './payloads.js';
import { wakeDeliveries } from './wake.js';

/**
 * History does not page anyone: an execution (or an error's first sighting) that started more
 * than this long before the rule was created does not fire it, so backfills and the demo's
 * history load stay quiet.
 */
export const HISTORY_GRACE_MS = 60 * 60 * 1000;

const recent = (rule: AlertRuleRow, startedAt: number) =>
  startedAt >= rule.created_at.getTime() - HISTORY_GRACE_MS;

/**
 * The alert outbox as an ingestion observer: a batch's deliveries commit with the data that
 * caused them, or not at all, and the delivery worker is woken once they have.
 */
export const queueAlertsOnIngest: IngestObserver = async (tx, batch) =>
  (await queueIngestAlerts(tx, batch)) > 0 ? wakeDeliveries : undefined;

/** Queues the deliveries of a batch's changes; returns how many were new (0 costs no query when nothing failed). */
export async function queueIngestAlerts(tx: Transaction, changes: WrittenBatch): Promise<number> {
  const failed = changes.executions.map((c) => c.next).filter((next) => next.status === 'FAILURE');
  if (failed.length === 0 && changes.newErrorGroups.length === 0) return 0;
  const organizations = [
    ...new Set([
      ...failed.map((e) => e.organizationId),
      ...changes.newErrorGroups.map((g) => g.organizationId),
    ]),
  ];
  const rules = await enabledRules(tx, organizations, ['EXECUTION_FAILED', 'NEW_ERROR_GROUP']);
  if (rules.length === 0) return 0;
  const deliveries: NewDelivery[] = [];
  const matched: Array<[AlertRuleRow, (typeof failed)[number]]> = [];
  for (const rule of rules) {
    if (rule.condition === 'EXECUTION_FAILED') {
      for (const execution of failed) {
        if (execution.organizationId !== rule.organization_id) continue;
        if (rule.workflow_uuid !== null && rule.workflow_uuid !== execution.workflowUUID) continue;
        if (rule.classified_status !== null && rule.classified_status !== execution.classifiedStatus)
          continue;
        if (!recent(rule, execution.startedAt.getTime())) continue;
        matched.push([rule, execution]);
      }
    } else {
      for (const group of changes.newErrorGroups) {
        if (group.organizationId !== rule.organization_id) continue;
        if (rule.workflow_uuid !== null && rule.workflow_uuid !== group.workflowUuid) continue;
        if (!recent(rule, group.firstSeenAt)) continue;
        deliveries.push({
          organizationId: rule.organization_id,
          ruleId: rule.id,
          eventKey: `fingerprint:${group.fingerprint}`,
          type: 'error_group.new',
          payload: {
            type: 'error_group.new',
            timestamp: formatTime(new Date()),
            data: {
              rule: ruleSummary(rule),
              organizationId: rule.organization_id,
              fingerprint: group.fingerprint,
              workflowUUID: group.workflowUuid,
              firstSeenAt: formatTime(new Date(group.firstSeenAt)),
            },
          },
        });
      }
    }
  }
  if (matched.length > 0) {
    const names = await workflowNames(tx, [...new Set(matched.map(([, e]) => e.workflowUUID))]);
    // Made once per execution, however many rules it fires.
    const wired = new Map(
      matched.map(([, e]) => [
        e.uuid,
        wireExecution(toExecution(executionRowOf(e, names.get(e.workflowUUID)))),
      ]),
    );
    for (const [rule, execution] of matched) {
      deliveries.push({
        organizationId: rule.organization_id,
        ruleId: rule.id,
        eventKey: `execution:${execution.uuid}`,
        type: 'execution.failed',
        payload: {
          type: 'execution.failed',
          timestamp: formatTime(new Date()),
          data: {
            rule: ruleSummary(rule),
            organizationId: rule.organization_id,
            // Section 1's WorkflowExecution as /graphql and the live stream serialise it.
            execution: wired.get(execution.uuid),
          },
        },
      });
    }
  }
  return queueDeliveries(tx, deliveries);
}

/**
 * The execution as the executions module reads it: its credit scaled as `trim_scale` does. An
 * execution whose workflow is not registered yet (which /graphql does not show) keeps null name and id.
 */
function executionRowOf(
  execution: WrittenBatch['executions'][number]['next'],
  workflow: { name: string; workflowId: string } | undefined,
): ExecutionRow {
  return {
    uuid: execution.uuid,
    workflow_uuid: execution.workflowUUID,
    id: execution.id,
    workflow_name: workflow?.name ?? (null as unknown as string),
    workflow_id: workflow?.workflowId ?? (null as unknown as string),
    status: execution.status,
    classified_status: execution.classifiedStatus,
    started_at: execution.startedAt,
    finished_at: execution.finishedAt,
    credit_used: execution.creditUsed === null ? null : fromUnits(toUnits(execution.creditUsed)),
    errors: execution.errors,
    executed_in_tee: execution.executedInTee,
  };
}

async function workflowNames(
  tx: Transaction,
  uuids: readonly string[],
): Promise<Map<string, { name: string; workflowId: string }>> {
  const rows = await tx.query<{ uuid: string; name: string; workflow_id: string }>(
    'select uuid, name, workflow_id from workflows where uuid = any($1::uuid[])',
    [uuids],
  );
  return new Map(rows.map((row) => [row.uuid, { name: row.name, workflowId: row.workflow_id }]));
}
