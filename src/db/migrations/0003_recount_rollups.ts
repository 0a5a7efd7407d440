/**
 * Recounts every rollup from the raw rows, with the same code that keeps them in step on ingest
 * (as if each execution and event arrived now, in one piece): the new rollups of version 2 get
 * their history, and the all-time grain of execution_rollups its totals. Executions are read a
 * chunk at a time, so memory stays bounded whatever the size of the database.
 */

import type { ExecutionState } from '../../ingest/execution-upsert.store.js';
import { maintainRollups } from '../../ingest/rollups.store.js';
import {
  markOrphans,
  readEvents,
  STORED_EVENT_COLUMNS,
  type StoredEventRow,
  storedEventOfRow,
} from '../../ingest/stored-events.store.js';
import type { Transaction } from '../database.js';

const CHUNK = 5000;

interface ExecutionRow {
  organization_id: string;
  uuid: string;
  id: string;
  workflow_uuid: string;
  status: ExecutionState['status'];
  classified_status: ExecutionState['classifiedStatus'];
  started_at: Date;
  finished_at: Date | null;
  executed_in_tee: boolean | null;
  errors: ExecutionState['errors'];
  credit_used: string | null;
}

const stateOf = (row: ExecutionRow): ExecutionState => ({
  organizationId: row.organization_id,
  uuid: row.uuid,
  id: row.id,
  workflowUUID: row.workflow_uuid,
  status: row.status,
  classifiedStatus: row.classified_status,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
  executedInTee: row.executed_in_tee,
  errors: row.errors,
  creditUsed: row.credit_used,
});

export async function up(tx: Transaction): Promise<void> {
  await tx.query(
    'truncate execution_rollups, duration_rollups, error_group_rollups, execution_error_groups, error_groups, orphan_event_executions',
  );
  let after: [string, string] = [
    '00000000-0000-0000-0000-000000000000',
    '00000000-0000-0000-0000-000000000000',
  ];
  for (;;) {
    const rows = await tx.query<ExecutionRow>(
      `select organization_id, uuid, id, workflow_uuid, status, classified_status, started_at, finished_at,
              executed_in_tee, errors, credit_used::text as credit_used
       from executions where (organization_id, uuid) > ($1::uuid, $2::uuid)
       order by organization_id, uuid limit ${CHUNK}`,
      after,
    );
    if (rows.length === 0) break;
    const states = new Map(rows.map((row) => [row.uuid, stateOf(row)]));
    const events = await readEvents(tx, new Map(rows.map((row) => [row.uuid, row.organization_id])));
    await maintainRollups(tx, {
      newWorkflows: [],
      executions: [...states.values()].map((next) => ({ previous: undefined, next })),
      states,
      earlierEvents: new Map(),
      newEvents: [...events.values()].flat(),
    });
    const last = rows.at(-1)!;
    after = [last.organization_id, last.uuid];
  }
  // Events of executions not stored yet wait for them, as ingestion leaves them.
  const orphans = await tx.query<StoredEventRow>(
    `select ${STORED_EVENT_COLUMNS}
     from execution_events v
     where not exists (select 1 from executions e where e.uuid = v.workflow_execution_uuid)`,
  );
  const events = orphans.map(storedEventOfRow);
  await markOrphans(tx, new Map(events.map((event) => [event.executionUuid, event.organizationId])));
  await maintainRollups(tx, {
    newWorkflows: [],
    executions: [],
    states: new Map(),
    earlierEvents: new Map(),
    newEvents: events,
  });
}
