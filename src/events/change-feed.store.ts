import type { Queryable, Transaction } from '../db/database.js';
import { executionChanges } from '../db/tables.js';
import { columnNames } from '../db/unnest-insert.js';
import type { IngestObserver } from '../ingest/ingest.store.js';
import { EXECUTION_ROW_COLUMNS, type ExecutionRow } from '../modules/executions/executions.store.js';

/**
 * The change feed behind `GET /events` (table execution_changes, migration 0005). A row's id is
 * the stream cursor. Gap-free resume rests on one guarantee: within an organization, ids commit
 * in increasing order. Ingestion gives it by writing the feed while it holds the organization's
 * transaction-level advisory lock (src/ingest/ingest.store.ts), so readers only ever compare ids
 * of one organization, never across organizations (whose transactions do commit out of id order).
 */

/** History kept for `Last-Event-ID` resume: the contract promises 24 hours, twice that is kept. */
export const RETENTION_MS = 48 * 3600 * 1000;

/** Records that these executions were inserted or changed. The caller holds their organizations' ingestion locks. */
export async function recordExecutionChanges(
  tx: Transaction,
  changed: ReadonlyArray<{ readonly organizationId: string; readonly uuid: string }>,
): Promise<void> {
  if (changed.length === 0) return;
  // The database numbers the changes and dates them. COPY, not an insert from arrays: 20,000
  // changes took 173 ms as an insert (bench/ingest-costs.ts).
  await tx.copyIn(
    executionChanges.name,
    columnNames(executionChanges.columnsWithout('id', 'changed_at')),
    changed.map((c) => ({ organization_id: c.organizationId, execution_uuid: c.uuid })),
  );
}

/**
 * The live stream's feed as an ingestion observer: every execution a batch changed, recorded
 * under the organizations' locks the batch holds (the feed's order rests on them).
 */
export const recordChangesOnIngest: IngestObserver = async (tx, batch) => {
  await recordExecutionChanges(
    tx,
    batch.executions.map((change) => change.next),
  );
  return undefined;
};

/** The organization's latest committed change id (0 when none): where a stream without Last-Event-ID starts. */
export async function latestChangeId(db: Queryable, organizationId: string): Promise<number> {
  const [row] = await db.query<{ id: number | null }>(
    'select max(id) as id from execution_changes where organization_id = $1',
    [organizationId],
  );
  return row?.id ?? 0;
}

/** Where a group of streams reads from: the changes of `organizationId` after id `after`. */
export interface FeedCursor {
  readonly organizationId: string;
  readonly after: number;
}

/** A change and the execution's current state (absent when it is not visible: no workflow yet). */
export interface FeedRow {
  readonly organizationId: string;
  readonly after: number;
  readonly changeId: number;
  /** When ingestion recorded the change (its transaction's time). */
  readonly changedAt: Date;
  readonly execution: ExecutionRow | undefined;
}

type RawFeedRow = {
  feed_organization_id: string;
  feed_after: number;
  change_id: number;
  change_changed_at: Date;
} & {
  [K in keyof ExecutionRow]: ExecutionRow[K] | null;
};

/**
 * For every cursor, up to `limit` changes after it, ascending, each with its execution as
 * /graphql reads it. One statement serves every open stream of the server.
 *
 * Each change finds its execution through execution_keys (uuid -> start time), then the one
 * partition's primary key: two index probes a change, whatever the organization's size. Joined
 * on the uuid alone, the planner may read every execution of the organization and filter them
 * against every change (it did: a second per 500 changes at 12,000 executions).
 */
export async function readChanges(
  db: Queryable,
  cursors: readonly FeedCursor[],
  limit: number,
): Promise<FeedRow[]> {
  if (cursors.length === 0) return [];
  const rows = await db.query<RawFeedRow>(
    `select s.organization_id as feed_organization_id, s.after as feed_after, c.id as change_id,
       c.changed_at as change_changed_at, ${EXECUTION_ROW_COLUMNS}
     from unnest($1::uuid[], $2::bigint[]) as s(organization_id, after)
     cross join lateral (
       select x.id, x.execution_uuid, x.changed_at from execution_changes x
       where x.organization_id = s.organization_id and x.id > s.after
       order by x.id limit $3
     ) c
     left join execution_keys k on k.uuid = c.execution_uuid and k.organization_id = s.organization_id
     left join executions e on e.uuid = k.uuid and e.started_at = k.started_at
       and e.organization_id = k.organization_id
     left join workflows w on w.organization_id = e.organization_id and w.uuid = e.workflow_uuid
     order by s.organization_id, s.after, c.id`,
    [cursors.map((c) => c.organizationId), cursors.map((c) => c.after), limit],
  );
  return rows.map(({ feed_organization_id, feed_after, change_id, change_changed_at, ...execution }) => ({
    organizationId: feed_organization_id,
    after: Number(feed_after),
    changeId: Number(change_id),
    changedAt: change_changed_at,
    execution:
      execution.uuid === null || execution.workflow_name === null ? undefined : (execution as ExecutionRow),
  }));
}

/**
 * Deletes the changes recorded before `before`. It walks the primary key from the oldest id up
 * to the first row to keep, so its cost is that of the rows deleted, not of the table.
 */
export async function pruneChanges(db: Queryable, before: Date): Promise<void> {
  await db.query(
    `delete from execution_changes where id < coalesce(
       (select id from execution_changes where changed_at >= $1 order by id limit 1),
       (select max(id) + 1 from execution_changes))`,
    [before],
  );
}
