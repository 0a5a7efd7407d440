import type { RowValues } from '../db/copy-text.js';
import type { Transaction } from '../db/database.js';
import { executionEvents, executionLogs } from '../db/tables.js';
import { type Columns, type RowFor, unnestInsert } from '../db/unnest-insert.js';
import { sha256 } from '../lib/sha256.js';
import { copyFresh } from './copy-fresh.store.js';
import type { EventRecord, LogRecord } from './records.js';

/**
 * Log and event lines have no identity of their own: each is keyed by its execution and a
 * SHA-256 of its content, so a line sent any number of times is stored once.
 */
function lineHash(parts: readonly unknown[]): Buffer {
  return sha256(JSON.stringify(parts));
}

/**
 * Lines are nearly always new, so they are bulk-loaded (copyFresh); a batch holding a line
 * already stored (a re-sent body) is inserted instead, skipping the lines already there.
 * Returns the lines actually stored now (none of those already there).
 */
async function insertLines<T, Name extends string>(
  tx: Transaction,
  table: string,
  columns: Columns<Name>,
  lines: readonly T[],
  row: (line: T) => RowValues<Name | 'workflow_execution_uuid' | 'line_hash'>,
): Promise<T[]> {
  if (lines.length === 0) return [];
  if (await copyFresh(tx, table, columns, lines, row)) return [...lines];
  const rows = lines.map(row);
  const insert = unnestInsert(table, columns, rows);
  const identity = (execution: unknown, hash: Uint8Array) =>
    `${execution}/${Buffer.from(hash).toString('hex')}`;
  const stored = await tx.query<{ workflow_execution_uuid: string; line_hash: Uint8Array }>(
    `${insert.text} on conflict do nothing returning workflow_execution_uuid, line_hash`,
    insert.params,
  );
  const fresh = new Set(stored.map((r) => identity(r.workflow_execution_uuid, r.line_hash)));
  // A line repeated within the batch was stored once: only its first copy counts as new.
  return lines.filter((_, i) =>
    fresh.delete(identity(rows[i]!.workflow_execution_uuid, rows[i]!.line_hash as Uint8Array)),
  );
}

/** The columns a log line's values fill; the database numbers them (seq). */
export const LOG_COLUMNS = executionLogs.columnsWithout('seq');

/** A log line's values of LOG_COLUMNS. */
export const logRow = (l: LogRecord): RowFor<typeof LOG_COLUMNS> => ({
  organization_id: l.organizationId,
  workflow_execution_uuid: l.workflowExecutionUUID,
  line_hash: lineHash([l.nodeID, l.timestamp.getTime(), l.message]),
  node_id: l.nodeID,
  message: l.message,
  timestamp: l.timestamp,
});

/** Stores log lines; returns those stored now. */
export async function insertLogs(tx: Transaction, logs: readonly LogRecord[]): Promise<LogRecord[]> {
  return insertLines(tx, executionLogs.name, LOG_COLUMNS, logs, logRow);
}

/** The columns an event line's values fill; the database numbers them (seq). */
export const EVENT_COLUMNS = executionEvents.columnsWithout('seq');

/** An event line's values of EVENT_COLUMNS. */
export const eventRow = (e: EventRecord): RowFor<typeof EVENT_COLUMNS> => ({
  organization_id: e.organizationId,
  workflow_execution_uuid: e.workflowExecutionUUID,
  line_hash: lineHash([
    e.capabilityID,
    e.status,
    e.method,
    e.startedAt.getTime(),
    e.finishedAt?.getTime() ?? null,
    e.errors,
  ]),
  capability_id: e.capabilityID,
  status: e.status,
  method: e.method,
  started_at: e.startedAt,
  finished_at: e.finishedAt,
  errors: e.errors === null ? null : JSON.stringify(e.errors),
});

/** Stores event lines; returns those stored now, whose contributions the rollups then take. */
export async function insertEvents(tx: Transaction, events: readonly EventRecord[]): Promise<EventRecord[]> {
  return insertLines(tx, executionEvents.name, EVENT_COLUMNS, events, eventRow);
}
