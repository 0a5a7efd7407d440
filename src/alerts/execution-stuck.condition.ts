/**
 * EXECUTION_STUCK (contract section 7): an execution in TRIGGERED or IN_PROGRESS for longer than
 * max(minDuration, factor x its workflow's p95 duration over the 7 days before now) fires once;
 * it resolves when the execution reaches SUCCESS or FAILURE. The executions fired for and not
 * yet resolved are kept in `stuck_executions` (one row per rule and execution), written in the
 * same transaction as their deliveries. Running executions are found through a partial index of
 * the unfinished ones; the p95 comes from the duration rollups (O(buckets)).
 */
import type { Transaction } from '../db/database.js';
import type { AlertRuleRow } from '../db/tables.js';
import { wireExecution } from '../events/sse.js';
import { durationText } from '../lib/duration.js';
import { DAY, formatTime } from '../lib/time.js';
import { percentiles } from '../modules/durations/percentiles.js';
import { toExecution } from '../modules/executions/execution.mapper.js';
import { EXECUTION_ROW_COLUMNS, type ExecutionRow } from '../modules/executions/executions.store.js';
import { FINISHED } from '../modules/service-levels/service-levels.store.js';
import { durations, EXECUTION_LEVEL } from '../rollups/durations.rollup.js';
import { readWindows } from '../rollups/rollup-reader.store.js';
import { type NewDelivery, queueDeliveries, resendFiring } from './alerts.store.js';
import { HISTORY_GRACE_MS } from './ingest-alerts.store.js';
import { ruleSummary } from './payloads.js';

/** Running executions looked at per rule and evaluation, oldest first. */
const CANDIDATES = 500;
const P95_WINDOW_MS = 7 * DAY;

/** Each workflow's p95 duration in ms over [now - 7 days, now); absent when it has no finished execution. */
async function p95ByWorkflow(
  tx: Transaction,
  organizationId: string,
  workflowUuids: readonly string[],
  now: number,
): Promise<Map<number, number>> {
  const rows = await readWindows(
    tx,
    durations,
    organizationId,
    workflowUuids.map((workflowUuid, key) => ({ key, from: now - P95_WINDOW_MS, to: now, workflowUuid })),
    { where: { capability_id: [EXECUTION_LEVEL], status: FINISHED }, groupBy: [] },
  );
  const p95 = new Map<number, number>();
  for (const row of rows) {
    const { duration_bins: bins, duration_min_ms: min, duration_max_ms: max } = row.values;
    const [value] = percentiles(bins, [95], min === null || max === null ? null : { min, max });
    if (value !== null) p95.set(row.key, value);
  }
  return p95;
}

const delivery = (
  rule: AlertRuleRow,
  eventKey: string,
  type: string,
  data: Record<string, unknown>,
  at: Date,
): NewDelivery => ({
  organizationId: rule.organization_id,
  ruleId: rule.id,
  eventKey,
  type,
  payload: {
    type,
    timestamp: formatTime(at),
    data: { rule: ruleSummary(rule), organizationId: rule.organization_id, ...data },
  },
});

/** Evaluates one claimed EXECUTION_STUCK rule at `now`; returns how many deliveries it queued. */
export async function evaluateExecutionStuck(
  tx: Transaction,
  rule: AlertRuleRow,
  now: number,
  resendMs: number,
): Promise<number> {
  const at = new Date(now);
  const minMs = rule.min_duration_seconds! * 1000;
  const factor = rule.factor!;
  const deliveries: NewDelivery[] = [];

  // Resolutions first: the executions fired for that have finished (or are gone).
  const fired = await tx.query<
    ExecutionRow & { execution_uuid: string; stuck_started_at: Date; fired_at: Date }
  >(
    `select s.execution_uuid, s.started_at as stuck_started_at, s.fired_at, ${EXECUTION_ROW_COLUMNS}
     from stuck_executions s
     left join (executions e join workflows w on w.organization_id = e.organization_id and w.uuid = e.workflow_uuid)
       on e.organization_id = s.organization_id and e.uuid = s.execution_uuid
     where s.rule_id = $1`,
    [rule.id],
  );
  const resolved: string[] = [];
  for (const row of fired) {
    const startsAt = formatTime(row.fired_at);
    if (row.uuid !== null && !FINISHED.includes(row.status as (typeof FINISHED)[number])) {
      if (rule.target === 'ALERTMANAGER')
        await resendFiring(tx, rule.id, `stuck:${row.execution_uuid}`, resendMs);
      continue;
    }
    resolved.push(row.execution_uuid);
    deliveries.push(
      delivery(
        rule,
        `resolved:${row.execution_uuid}`,
        'execution_stuck.resolved',
        {
          workflowUUID: row.workflow_uuid,
          state: 'resolved',
          startsAt,
          endsAt: formatTime(at),
          summary: `execution ${row.execution_uuid} is no longer stuck${row.uuid === null ? ' (it is gone)' : ` (${row.status})`}`,
          execution: row.uuid === null ? { uuid: row.execution_uuid } : wireExecution(toExecution(row)),
        },
        at,
      ),
    );
  }
  if (resolved.length > 0)
    await tx.query('delete from stuck_executions where rule_id = $1 and execution_uuid = any($2::uuid[])', [
      rule.id,
      resolved,
    ]);

  // New stuck executions: running for longer than minDuration at least, started since the rule's
  // history grace (history does not page anyone), not fired for yet.
  const running = await tx.query<ExecutionRow>(
    `select ${EXECUTION_ROW_COLUMNS}
     from executions e join workflows w on w.organization_id = e.organization_id and w.uuid = e.workflow_uuid
     where e.organization_id = $1 and e.status in ('TRIGGERED', 'IN_PROGRESS')
       and e.started_at >= $2 and e.started_at < $3
       and ($4::uuid is null or e.workflow_uuid = $4)
       and not exists (select 1 from stuck_executions s where s.rule_id = $5 and s.execution_uuid = e.uuid)
     order by e.started_at limit ${CANDIDATES}`,
    [
      rule.organization_id,
      new Date(rule.created_at.getTime() - HISTORY_GRACE_MS),
      new Date(now - minMs),
      rule.workflow_uuid,
      rule.id,
    ],
  );
  if (running.length > 0) {
    const workflows = [...new Set(running.map((row) => row.workflow_uuid))];
    const p95 = await p95ByWorkflow(tx, rule.organization_id, workflows, now);
    const stuck: ExecutionRow[] = [];
    const limits = new Map<string, number>();
    for (const row of running) {
      const workflowP95 = p95.get(workflows.indexOf(row.workflow_uuid));
      const limit = Math.max(minMs, workflowP95 === undefined ? 0 : factor * workflowP95);
      limits.set(row.uuid, limit);
      if (now - row.started_at.getTime() > limit) stuck.push(row);
    }
    if (stuck.length > 0) {
      await tx.query(
        `insert into stuck_executions (rule_id, execution_uuid, organization_id, workflow_uuid, started_at, fired_at)
         select $1, u.execution_uuid, $2, u.workflow_uuid, u.started_at, $3
         from unnest($4::uuid[], $5::uuid[], $6::timestamptz[]) as u(execution_uuid, workflow_uuid, started_at)
         on conflict do nothing`,
        [
          rule.id,
          rule.organization_id,
          at,
          stuck.map((row) => row.uuid),
          stuck.map((row) => row.workflow_uuid),
          stuck.map((row) => row.started_at),
        ],
      );
      for (const row of stuck) {
        const limit = limits.get(row.uuid)!;
        deliveries.push(
          delivery(
            rule,
            `stuck:${row.uuid}`,
            'execution_stuck.firing',
            {
              workflowUUID: row.workflow_uuid,
              state: 'firing',
              startsAt: formatTime(at),
              summary: `execution ${row.uuid} of ${row.workflow_name} has been ${row.status} for ${durationText(Math.floor((now - row.started_at.getTime()) / 1000))}, longer than ${durationText(Math.ceil(limit / 1000))}`,
              limitMs: limit,
              execution: wireExecution(toExecution(row)),
            },
            at,
          ),
        );
      }
    }
  }
  return queueDeliveries(tx, deliveries);
}
