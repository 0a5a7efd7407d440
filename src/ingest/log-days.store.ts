/**
 * The days whose searchable log lines a batch changed. A line is searchable when its execution is
 * stored (log-search.store.ts joins it), so a batch changes a day's search answers when it stores a
 * line of that day whose execution is stored, when an execution arrives whose lines of that day
 * came first, or when an execution with lines of that day moves to another workflow. The caller
 * raises those days' rollup versions with the rollups' own (rollup-versions.store.ts), so that a
 * kept search answer is checked as a kept rollup answer is.
 */
import type { Transaction } from '../db/database.js';
import { executionLogs, orphanLogDays } from '../db/tables.js';
import { unnestInsert } from '../db/unnest-insert.js';
import { floorTo } from '../lib/buckets.js';
import { DAY } from '../lib/time.js';
import type { ExecutionChange } from './execution-upsert.store.js';
import type { LogRecord } from './records.js';

/** Days (day starts, ms) by organization. */
export type DaysByOrganization = Map<string, Set<number>>;

const addDay = (days: DaysByOrganization, organizationId: string, ms: number) => {
  const set = days.get(organizationId) ?? new Set<number>();
  set.add(floorTo(ms, DAY));
  days.set(organizationId, set);
};

export async function changedLogDays(
  tx: Transaction,
  batch: {
    /** Log lines stored now. */
    readonly logs: readonly LogRecord[];
    /** Whether an execution is stored once the batch is written. */
    readonly stored: (executionUuid: string) => boolean;
    readonly executions: readonly ExecutionChange[];
  },
): Promise<DaysByOrganization> {
  const days: DaysByOrganization = new Map();
  const orphans = new Map<string, { organization_id: string; execution_uuid: string; day: Date }>();
  for (const line of batch.logs) {
    if (batch.stored(line.workflowExecutionUUID)) {
      addDay(days, line.organizationId, line.timestamp.getTime());
      continue;
    }
    const day = floorTo(line.timestamp.getTime(), DAY);
    orphans.set(`${line.organizationId}/${line.workflowExecutionUUID}/${day}`, {
      organization_id: line.organizationId,
      execution_uuid: line.workflowExecutionUUID,
      day: new Date(day),
    });
  }
  const arrived = batch.executions.filter((c) => c.previous === undefined).map((c) => c.next);
  for (const row of await takeOrphanDays(tx, arrived)) addDay(days, row.organization_id, row.day.getTime());
  const moved = batch.executions
    .filter((c) => c.previous !== undefined && c.previous.workflowUUID !== c.next.workflowUUID)
    .map((c) => c.next);
  for (const row of await lineDays(tx, moved)) addDay(days, row.organization_id, row.day.getTime());
  if (orphans.size > 0) {
    const insert = unnestInsert(orphanLogDays.name, orphanLogDays.columns, [...orphans.values()]);
    await tx.query(`${insert.text} on conflict do nothing`, insert.params);
  }
  return days;
}

type Execution = { readonly organizationId: string; readonly uuid: string };
type DayRow = { organization_id: string; day: Date };

/** The days of lines stored before `executions`, whose notes are removed: the lines are visible now. */
async function takeOrphanDays(tx: Transaction, executions: readonly Execution[]): Promise<DayRow[]> {
  if (executions.length === 0) return [];
  // Usually no organization has any: one index probe spares matching every execution.
  const [any] = await tx.query<{ found: boolean }>(
    `select exists (select 1 from ${orphanLogDays.name} where organization_id = any($1::uuid[])) as found`,
    [[...new Set(executions.map((e) => e.organizationId))]],
  );
  if (!any?.found) return [];
  return tx.query<DayRow>(
    `delete from ${orphanLogDays.name} o
     using unnest($1::uuid[], $2::uuid[]) as k(organization_id, execution_uuid)
     where o.organization_id = k.organization_id and o.execution_uuid = k.execution_uuid
     returning o.organization_id, o.day`,
    [executions.map((e) => e.organizationId), executions.map((e) => e.uuid)],
  );
}

/** The days that stored lines of `executions` lie in. */
async function lineDays(tx: Transaction, executions: readonly Execution[]): Promise<DayRow[]> {
  if (executions.length === 0) return [];
  return tx.query<DayRow>(
    `select distinct l.organization_id,
       timestamptz '1970-01-01 00:00:00+00' + floor(extract(epoch from l.timestamp) / 86400) * interval '1 day' as day
     from ${executionLogs.name} l
     join unnest($1::uuid[], $2::uuid[]) as k(organization_id, execution_uuid)
       on l.organization_id = k.organization_id and l.workflow_execution_uuid = k.execution_uuid`,
    [executions.map((e) => e.organizationId), executions.map((e) => e.uuid)],
  );
}
