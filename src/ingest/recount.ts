import type { Transaction } from '../db/database.js';
import {
  executionStateOf,
  STORED_EXECUTION_COLUMNS,
  type StoredExecutionRow,
} from './execution-upsert.store.js';
import { maintainRollups } from './rollups.store.js';
import {
  markOrphans,
  readEvents,
  STORED_EVENT_COLUMNS,
  type StoredEventRow,
  storedEventOfRow,
} from './stored-events.store.js';

const CHUNK = 5000;

/**
 * Recounts every rollup from the raw rows, with the same code that keeps them in step on ingest
 * (as if each execution and event arrived now, in one piece). Executions are read a chunk at a
 * time, so memory stays bounded whatever the size of the database. A migration asks for it
 * (migration 0003, when a version-1 database upgrades); the migration runner calls it once every
 * migration has been applied, so it writes the tables as the latest version has them.
 */
export async function recountRollups(tx: Transaction): Promise<void> {
  await tx.query(
    'truncate execution_rollups, duration_rollups, error_group_rollups, execution_error_groups, error_groups, orphan_event_executions',
  );
  let after: [string, string] = [
    '00000000-0000-0000-0000-000000000000',
    '00000000-0000-0000-0000-000000000000',
  ];
  for (;;) {
    const rows = await tx.query<StoredExecutionRow>(
      `select ${STORED_EXECUTION_COLUMNS}
       from executions where (organization_id, uuid) > ($1::uuid, $2::uuid)
       order by organization_id, uuid limit ${CHUNK}`,
      after,
    );
    if (rows.length === 0) break;
    const states = new Map(rows.map((row) => [row.uuid, executionStateOf(row)]));
    const events = await readEvents(tx, new Map(rows.map((row) => [row.uuid, row.organization_id])));
    await maintainRollups(tx, {
      newWorkflows: [],
      executions: [...states.values()].map((next) => ({ previous: undefined, next })),
      states,
      earlierEvents: new Map(),
      newEvents: [...events.values()].flat(),
      // Log lines are raw rows, not rollups: a recount leaves what can be searched as it was.
      logDays: new Map(),
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
    logDays: new Map(),
  });
}
