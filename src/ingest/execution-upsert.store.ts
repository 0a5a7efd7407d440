import type { Transaction } from '../db/database.js';
import { type ExecutionTableRow, executionKeys, executions } from '../db/tables.js';
import { columnNames, type RowFor, unnestInsert, unnestUpdate } from '../db/unnest-insert.js';
import { toUnits } from '../lib/decimal.js';
import { copyFresh } from './copy-fresh.store.js';
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

/**
 * What is stored of some execution uuids: their owners (execution_keys, which keeps every uuid
 * ever stored, past retention too) and the states of those whose rows remain. A uuid with an
 * owner and no state is `expired`: retention dropped its partition (docs/partitions.md).
 */
export interface StoredExecutions {
  readonly owners: Map<string, string>;
  readonly states: Map<string, ExecutionState>;
}

export async function storedExecutions(tx: Transaction, uuids: readonly string[]): Promise<StoredExecutions> {
  // The key's start time finds the one partition that holds the row.
  const rows = await tx.query<{ key: string; owner: string } & Partial<StoredExecutionRow>>(
    `select k.uuid as key, k.organization_id as owner, s.*
     from execution_keys k
     left join lateral (
       select ${STORED_EXECUTION_COLUMNS} from executions e where e.uuid = k.uuid and e.started_at = k.started_at
     ) s on true
     where k.uuid = any($1::uuid[])`,
    [uuids],
  );
  const owners = new Map<string, string>();
  const states = new Map<string, ExecutionState>();
  for (const row of rows) {
    owners.set(row.key, row.owner);
    if (row.uuid !== null && row.uuid !== undefined)
      states.set(row.key, executionStateOf(row as StoredExecutionRow));
  }
  return { owners, states };
}

/** The columns an execution's values fill; the database sets updated_at. */
export const EXECUTION_COLUMNS = executions.columnsWithout('updated_at');

/** What a later state of a stored execution replaces: all but its identity and organization. */
const EXECUTION_UPDATES = columnNames(executions.columnsWithout('uuid', 'organization_id', 'updated_at'));

/** An execution's values of EXECUTION_COLUMNS. */
export const executionRow = (e: ExecutionState): RowFor<typeof EXECUTION_COLUMNS> => ({
  uuid: e.uuid,
  organization_id: e.organizationId,
  workflow_uuid: e.workflowUUID,
  id: e.id,
  status: e.status,
  classified_status: e.classifiedStatus,
  started_at: e.startedAt,
  finished_at: e.finishedAt,
  credit_used: e.creditUsed,
  errors: e.errors === null ? null : JSON.stringify(e.errors),
  executed_in_tee: e.executedInTee,
});

/** An updated execution's values: EXECUTION_COLUMNS, and the start it had (which finds its row). */
const UPDATE_COLUMNS = [...EXECUTION_COLUMNS, ['previous_started_at', 'timestamptz'] as const];

/**
 * Writes new states of stored executions (each with the state it replaces) and returns the uuids
 * written. A changed start moves the row to its new partition, and its key along.
 */
async function updateExecutions(
  tx: Transaction,
  changes: ReadonlyArray<{ previous: ExecutionState; next: ExecutionState }>,
): Promise<string[]> {
  if (changes.length === 0) return [];
  const moved = changes.filter((c) => c.previous.startedAt.getTime() !== c.next.startedAt.getTime());
  if (moved.length > 0) {
    await tx.query(
      `update execution_keys k set started_at = u.started_at
       from unnest($1::uuid[], $2::timestamptz[]) as u(uuid, started_at) where k.uuid = u.uuid`,
      [moved.map((c) => c.next.uuid), moved.map((c) => c.next.startedAt)],
    );
  }
  const update = unnestUpdate(
    executions.name,
    UPDATE_COLUMNS,
    changes.map((c) => ({ ...executionRow(c.next), previous_started_at: c.previous.startedAt })),
    {
      set: [...EXECUTION_UPDATES, ['updated_at', 'now()']],
      match:
        't.uuid = u.uuid and t.started_at = u.previous_started_at and t.organization_id = u.organization_id',
      returning: 't.uuid',
    },
  );
  const written = await tx.query<{ uuid: string }>(update.text, update.params);
  return written.map((row) => row.uuid);
}

/**
 * Claims the uuids of new executions in execution_keys; returns those claimed. They were read
 * as unstored under the organization's lock, so the claims are bulk-loaded (copyFresh, a fraction
 * of the INSERT's cost); only when another organization claimed one of them in a concurrent
 * transaction does the INSERT run, skipping the uuids already claimed.
 */
async function claimUuids(tx: Transaction, fresh: readonly ExecutionState[]): Promise<Set<string>> {
  const keyRow = (e: ExecutionState): RowFor<typeof executionKeys.columns> => ({
    uuid: e.uuid,
    organization_id: e.organizationId,
    started_at: e.startedAt,
  });
  if (await copyFresh(tx, executionKeys.name, executionKeys.columns, fresh, keyRow))
    return new Set(fresh.map((e) => e.uuid));
  const insert = unnestInsert(executionKeys.name, executionKeys.columns, fresh.map(keyRow));
  const claimed = await tx.query<{ uuid: string }>(
    `${insert.text} on conflict (uuid) do nothing returning uuid`,
    insert.params,
  );
  return new Set(claimed.map((row) => row.uuid));
}

/**
 * Stores new executions and returns the uuids stored: each first claims its uuid in
 * execution_keys, so one claimed by another organization in a concurrent transaction is skipped.
 */
async function insertExecutions(tx: Transaction, fresh: readonly ExecutionState[]): Promise<string[]> {
  if (fresh.length === 0) return [];
  const mine = await claimUuids(tx, fresh);
  const rows = fresh.filter((e) => mine.has(e.uuid));
  if (rows.length === 0) return [];
  // Claimed now, so none can be stored yet: the bulk load cannot conflict.
  await tx.copyIn(executions.name, columnNames(EXECUTION_COLUMNS), rows.map(executionRow));
  return rows.map((e) => e.uuid);
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
  const written = new Set(
    await insertExecutions(
      tx,
      changed.filter((next) => !stored.has(next.uuid)),
    ),
  );
  const updates = changed.flatMap((next) => {
    const previous = stored.get(next.uuid);
    return previous ? [{ previous, next }] : [];
  });
  for (const uuid of await updateExecutions(tx, updates)) written.add(uuid);
  return changed
    .filter((next) => written.has(next.uuid))
    .map((next) => ({ previous: stored.get(next.uuid), next }));
}
