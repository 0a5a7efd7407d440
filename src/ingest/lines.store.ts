import { createHash } from 'node:crypto';
import type { Transaction } from '../db/database.js';
import type { EventRecord, LogRecord } from './records.js';

/**
 * Log and event lines have no identity of their own: each is keyed by its execution and a
 * SHA-256 of its content, so a line sent any number of times is stored once.
 */
function lineHash(parts: readonly unknown[]): Buffer {
  return createHash('sha256').update(JSON.stringify(parts)).digest();
}

export async function insertLogs(tx: Transaction, logs: readonly LogRecord[]): Promise<void> {
  if (logs.length === 0) return;
  await tx.query(
    `insert into execution_logs (organization_id, workflow_execution_uuid, line_hash, node_id, message, timestamp)
     select * from unnest($1::uuid[], $2::uuid[], $3::bytea[], $4::text[], $5::text[], $6::timestamptz[])
     on conflict do nothing`,
    [
      logs.map((l) => l.organizationId),
      logs.map((l) => l.workflowExecutionUUID),
      logs.map((l) => lineHash([l.nodeID, l.timestamp.getTime(), l.message])),
      logs.map((l) => l.nodeID),
      logs.map((l) => l.message),
      logs.map((l) => l.timestamp),
    ],
  );
}

export async function insertEvents(tx: Transaction, events: readonly EventRecord[]): Promise<void> {
  if (events.length === 0) return;
  await tx.query(
    `insert into execution_events (organization_id, workflow_execution_uuid, line_hash, capability_id, status, method,
                                   started_at, finished_at, errors)
     select * from unnest($1::uuid[], $2::uuid[], $3::bytea[], $4::text[], $5::text[], $6::text[], $7::timestamptz[],
                          $8::timestamptz[], $9::jsonb[])
     on conflict do nothing`,
    [
      events.map((e) => e.organizationId),
      events.map((e) => e.workflowExecutionUUID),
      events.map((e) =>
        lineHash([
          e.capabilityID,
          e.status,
          e.method,
          e.startedAt.getTime(),
          e.finishedAt?.getTime() ?? null,
          e.errors,
        ]),
      ),
      events.map((e) => e.capabilityID),
      events.map((e) => e.status),
      events.map((e) => e.method),
      events.map((e) => e.startedAt),
      events.map((e) => e.finishedAt),
      events.map((e) => (e.errors === null ? null : JSON.stringify(e.errors))),
    ],
  );
}
