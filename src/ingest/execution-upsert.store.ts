import type { CopyValue } from '../db/copy-text.js';
import type { Transaction } from '../db/database.js';
import { type ExecutionTableRow, executions } from '../db/tables.js';
import { columnNames, unnestUpsert } from '../db/unnest-insert.js';
import { copyFresh } from './copy-fresh.store.js';
import { toUnits } from './decimal.js';
import { type ExecutionRecord, TERMINAL_STATUSES } from './records.js';

/** An execution as stored: the record without its type tag. */
export type ExecutionState = Omit<ExecutionRecord, 'type'>;

/** An execution as read back, with its credit as exact text. */
export type StoredExecutionRow = Omit<ExecutionTableRow, 'updated_at'>;

export const STORED_EXECUTION_COLUMNS = `organization_id, uuid, id, workflow_uuid, status, classified_status, started_at,
  finished_at, executed_in_tee, errors, credit_used::text as credit_used`;

/** The stored execution a row holds. Statuses were validated on the way in. */
export const executionStateOf = (row: StoredExecutionRow): ExecutionState => ({
  organizationId: row.organization_id,
  uuid: row.uuid,
  id: row.id,
  workflowUUID: row.workflow_uuid,
  status: row.status as ExecutionState['status'],
  classifiedStatus: row.classified_status as ExecutionState['classifiedStatus'],
  startedAt: row.started_at,
  finishedAt: row.finished_at,
  executedInTee: row.executed_in_tee,
  errors: row.errors,
  creditUsed: row.credit_used,
});

/** A later state replaces an earlier one, but a terminal status never goes back to a non-terminal one. */
export function mergeExecution<T extends { status: string }>(current: T | undefined, next: T): T {
  if (current && TERMINAL_STATUSES.has(current.status) && !TERMINAL_STATUSES.has(next.status)) return current;
  return next;
}

function sameExecution(a: ExecutionState, b: ExecutionState): boolean {
  return (
    a.id === b.id &&
    a.workflowUUID === b.workflowUUID &&
    a.status === b.status &&
    a.classifiedStatus === b.classifiedStatus &&
    a.startedAt.getTime() === b.startedAt.getTime() &&
    (a.finishedAt?.getTime() ?? null) === (b.finishedAt?.getTime() ?? null) &&
    a.executedInTee === b.executedInTee &&
    errorsKey(a.errors) === errorsKey(b.errors) &&
    sameDecimal(a.creditUsed, b.creditUsed)
  );
}

/** jsonb does not keep key order, so errors compare by their values. */
function errorsKey(errors: unknown): string {
  if (!Array.isArray(errors)) return 'null';
  return JSON.stringify(errors.map((e: { error?: unknown; count?: unknown }) => [e?.error, e?.count]));
}

function sameDecimal(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return a === b;
  return toUnits(a) === toUnits(b);
}

export async function storedExecutions(
  tx: Transaction,
  uuids: readonly string[],
): Promise<Map<string, ExecutionState>> {
  const rows = await tx.query<StoredExecutionRow>(
    `select ${STORED_EXECUTION_COLUMNS} from executions where uuid = any($1::uuid[])`,
    [uuids],
  );
  return new Map(rows.map((row) => [row.uuid, executionStateOf(row)]));
}

/** The columns an execution's values fill; the database sets updated_at. */
export const EXECUTION_COLUMNS = executions.columnsWithout('updated_at');

/** What a later state of a stored execution replaces: all but its identity and organization. */
const EXECUTION_UPDATES = columnNames(executions.columnsWithout('uuid', 'organization_id', 'updated_at'));

/** An execution's values in EXECUTION_COLUMNS order. */
export const executionRow = (e: ExecutionState): CopyValue[] => [
  e.uuid,
  e.organizationId,
  e.workflowUUID,
  e.id,
  e.status,
  e.classifiedStatus,
  e.startedAt,
  e.finishedAt,
  e.creditUsed,
  e.errors === null ? null : JSON.stringify(e.errors),
  e.executedInTee,
];

/**
 * Writes execution states and returns the uuids written: a row is only ever updated by its own
 * organization, so one claimed by another organization in a concurrent transaction is skipped.
 */
async function upsertExecutions(tx: Transaction, rows: readonly ExecutionState[]): Promise<string[]> {
  if (rows.length === 0) return [];
  const upsert = unnestUpsert(executions.name, EXECUTION_COLUMNS, rows.map(executionRow), {
    key: ['uuid'],
    set: [...EXECUTION_UPDATES, ['updated_at', 'now()']],
    where: 'executions.organization_id = excluded.organization_id',
    returning: 'uuid',
  });
  const written = await tx.query<{ uuid: string }>(upsert.text, upsert.params);
  return written.map((row) => row.uuid);
}

/** An execution state written by a batch, and the state it replaced (none for a new execution). */
export interface ExecutionChange {
  readonly previous: ExecutionState | undefined;
  readonly next: ExecutionState;
}

/**
 * Merges the batch's execution states, in arrival order, into the stored ones (`stored`, read
 * under the caller's lock: at least every uuid of `records`) and writes those that changed.
 * Returns the changes written, from which the caller derives the rollup deltas. The caller holds
 * the organizations' ingestion locks. A row is only ever updated by its own organization: should
 * another organization claim a new uuid in a concurrent transaction, that write is skipped and
 * counts nowhere.
 */
export async function applyExecutions(
  tx: Transaction,
  records: readonly ExecutionRecord[],
  stored: ReadonlyMap<string, ExecutionState>,
): Promise<ExecutionChange[]> {
  if (records.length === 0) return [];
  const final = new Map<string, ExecutionState>();
  for (const record of records) {
    const { type: _type, ...state } = record;
    final.set(record.uuid, mergeExecution(final.get(record.uuid) ?? stored.get(record.uuid), state));
  }
  const changed = [...final.values()].filter((next) => {
    const previous = stored.get(next.uuid);
    return !previous || !sameExecution(previous, next);
  });
  if (changed.length === 0) return [];
  // New executions (the usual case) are bulk-loaded; should one have been stored meanwhile (by
  // another organization's concurrent batch), they go through the guarded upsert with the rest.
  const written = new Set<string>();
  let upserts = changed;
  const fresh = changed.filter((next) => !stored.has(next.uuid));
  if (fresh.length > 0 && (await copyFresh(tx, 'executions', EXECUTION_COLUMNS, fresh, executionRow))) {
    for (const next of fresh) written.add(next.uuid);
    upserts = changed.filter((next) => stored.has(next.uuid));
  }
  for (const uuid of await upsertExecutions(tx, upserts)) written.add(uuid);
  return changed
    .filter((next) => written.has(next.uuid))
    .map((next) => ({ previous: stored.get(next.uuid), next }));
}
