import type { Transaction } from '../db/database.js';
import { type ErrorCount, type EventTableRow, orphanEventExecutions } from '../db/tables.js';
import { unnestInsert } from '../db/unnest-insert.js';
import { SUCCESSFUL_CALL_STATUSES } from '../rollups/durations.rollup.js';
import type { EventRecord } from './records.js';

/** An event line as the rollups count it. */
export interface StoredEvent {
  readonly organizationId: string;
  readonly executionUuid: string;
  readonly capabilityId: string;
  readonly status: string;
  readonly startedAt: Date;
  readonly finishedAt: Date | null;
  readonly errors: readonly ErrorCount[];
}

export const storedEventOf = (event: EventRecord): StoredEvent => ({
  organizationId: event.organizationId,
  executionUuid: event.workflowExecutionUUID,
  capabilityId: event.capabilityID,
  status: event.status,
  startedAt: event.startedAt,
  finishedAt: event.finishedAt,
  errors: event.errors ?? [],
});

/** An `execution_events` row as read back (aliased `v`) for the rollups. */
export type StoredEventRow = Pick<
  EventTableRow,
  | 'organization_id'
  | 'workflow_execution_uuid'
  | 'capability_id'
  | 'status'
  | 'started_at'
  | 'finished_at'
  | 'errors'
>;

export const STORED_EVENT_COLUMNS =
  'v.organization_id, v.workflow_execution_uuid, v.capability_id, v.status, v.started_at, v.finished_at, v.errors';

export const storedEventOfRow = (row: StoredEventRow): StoredEvent => ({
  organizationId: row.organization_id,
  executionUuid: row.workflow_execution_uuid,
  capabilityId: row.capability_id,
  status: row.status,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
  errors: row.errors ?? [],
});

const SUCCESSFUL: ReadonlySet<string> = new Set(SUCCESSFUL_CALL_STATUSES);

/** A capability call fails when it carries an error or its status is neither COMPLETED nor SUCCESS. */
export function callOutcome(event: StoredEvent): 'SUCCESS' | 'FAILURE' {
  return event.errors.length > 0 || !SUCCESSFUL.has(event.status) ? 'FAILURE' : 'SUCCESS';
}

/** The stored events of some executions (`uuids` of the organizations in `organizationOf`). */
export async function readEvents(
  tx: Transaction,
  executions: ReadonlyMap<string, string>,
): Promise<Map<string, StoredEvent[]>> {
  const byExecution = new Map<string, StoredEvent[]>();
  if (executions.size === 0) return byExecution;
  const rows = await tx.query<StoredEventRow>(
    `select ${STORED_EVENT_COLUMNS}
     from unnest($1::uuid[], $2::uuid[]) as k(organization_id, execution_uuid)
     join execution_events v on v.organization_id = k.organization_id and v.workflow_execution_uuid = k.execution_uuid`,
    [[...executions.values()], [...executions.keys()]],
  );
  for (const row of rows) {
    const list = byExecution.get(row.workflow_execution_uuid) ?? [];
    list.push(storedEventOfRow(row));
    byExecution.set(row.workflow_execution_uuid, list);
  }
  return byExecution;
}

/**
 * Executions (uuid -> organization) that have events stored before them, among `candidates`;
 * their markers are removed, since the caller now counts those events.
 */
export async function takeOrphans(
  tx: Transaction,
  candidates: ReadonlyMap<string, string>,
): Promise<Map<string, string>> {
  if (candidates.size === 0) return new Map();
  // Usually no organization has any: one index probe spares matching every candidate.
  const [any] = await tx.query<{ found: boolean }>(
    'select exists (select 1 from orphan_event_executions where organization_id = any($1::uuid[])) as found',
    [[...new Set(candidates.values())]],
  );
  if (!any?.found) return new Map();
  const rows = await tx.query<{ organization_id: string; execution_uuid: string }>(
    `delete from orphan_event_executions o
     using unnest($1::uuid[], $2::uuid[]) as k(organization_id, execution_uuid)
     where o.organization_id = k.organization_id and o.execution_uuid = k.execution_uuid
     returning o.organization_id, o.execution_uuid`,
    [[...candidates.values()], [...candidates.keys()]],
  );
  return new Map(rows.map((row) => [row.execution_uuid, row.organization_id]));
}

/** Marks executions whose events arrived before them (uuid -> organization). */
export async function markOrphans(tx: Transaction, orphans: ReadonlyMap<string, string>): Promise<void> {
  if (orphans.size === 0) return;
  const insert = unnestInsert(
    orphanEventExecutions.name,
    orphanEventExecutions.columns,
    [...orphans].map(([uuid, organizationId]) => ({ organization_id: organizationId, execution_uuid: uuid })),
  );
  await tx.query(`${insert.text} on conflict do nothing`, insert.params);
}
