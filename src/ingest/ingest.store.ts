import type { RowValues } from '../db/copy-text.js';
import type { Database, Transaction } from '../db/database.js';
import { deployments, workflows } from '../db/tables.js';
import { type Columns, changesAny, columnNames, type RowFor, unnestUpsert } from '../db/unnest-insert.js';
import { updateAwaitedWorkflows } from './awaited-workflows.store.js';
import {
  applyExecutions,
  type ExecutionChange,
  type ExecutionState,
  storedExecutions,
} from './execution-upsert.store.js';
import { insertEvents, insertLogs } from './lines.store.js';
import { changedLogDays } from './log-days.store.js';
import type { DeploymentRecord, IngestRecord, WorkflowRecord } from './records.js';
import { maintainRollups, type RollupOutcome } from './rollups.store.js';
import { markOrphans, readEvents, storedEventOf, takeOrphans } from './stored-events.store.js';

export interface NumberedRecord {
  /** 1-based line number in the request body, for the rejection report. */
  readonly line: number;
  readonly record: IngestRecord;
}

export interface Rejection {
  readonly line: number;
  readonly error: string;
}

export interface BatchResult {
  accepted: number;
  rejected: Rejection[];
}

/** What a batch changed, as its observers see it. */
export interface WrittenBatch {
  /** Each execution the batch created or changed, before and after. */
  readonly executions: readonly ExecutionChange[];
  /** Error groups seen for the first time by this batch. */
  readonly newErrorGroups: RollupOutcome['newErrorGroups'];
}

/**
 * A step that a feature adds to every batch (app.ts registers them: the live stream's change
 * feed, the alert outbox). It runs inside the batch's transaction, after the rollups and under
 * the organizations' locks, so what it writes commits with the batch or not at all. It may return
 * what to do once the batch has committed (wake a worker).
 */
export type IngestObserver = (
  tx: Transaction,
  batch: WrittenBatch,
) => Promise<((db: Database) => void) | undefined>;

export interface BatchOptions {
  /** Run inside each batch's transaction, in this order. */
  readonly observers: readonly IngestObserver[];
  /** false: commit without waiting for the disk; the caller makes the batch durable (makeDurable). */
  readonly durable?: boolean;
}

/**
 * Stores one batch of validated records in one transaction, so the batch is durable when this
 * resolves (with `durable: false`, committed, and durable after the next makeDurable).
 * Idempotent: uuid records are upserts; log and event lines are keyed by their content.
 * Writers of one organization are serialised by an advisory lock, which makes the rollup deltas
 * (computed from the stored state read under that lock) exact under concurrent producers.
 * Lines that cannot be stored (unknown organization, a uuid owned by another organization) are
 * returned as rejections and change nothing.
 */
export async function ingestBatch(
  db: Database,
  records: readonly NumberedRecord[],
  options: BatchOptions,
): Promise<BatchResult> {
  if (records.length === 0) return { accepted: 0, rejected: [] };
  const afterCommit: Array<(db: Database) => void> = [];
  const result = await db.transaction(async (tx) => {
    await tx.query(`set local statement_timeout = '600s'`);
    // See makeDurable: the caller takes over making this batch durable.
    if (options.durable === false) await tx.query('set local synchronous_commit = off');
    const rejected: Rejection[] = [];
    const organizations = [...new Set(records.map((r) => r.record.organizationId))].sort();
    const known = new Set(
      (
        await tx.query<{ id: string }>('select id from organizations where id = any($1::uuid[])', [
          organizations,
        ])
      ).map((row) => row.id),
    );
    // Sorted, so that two batches spanning the same organizations cannot deadlock.
    for (const organizationId of organizations) {
      if (known.has(organizationId)) {
        await tx.query('select pg_advisory_xact_lock(hashtextextended($1, 7270))', [organizationId]);
      }
    }
    let valid = records.filter(({ line, record }) => {
      if (known.has(record.organizationId)) return true;
      rejected.push({ line, error: `unknown organizationId ${record.organizationId}` });
      return false;
    });
    const checked = await rejectForeignUuids(tx, valid, rejected);
    valid = checked.valid;

    const of = <T extends IngestRecord['type']>(type: T) =>
      checked.stored
        .filter((r) => r.record.type === type)
        .map((r) => r.record as Extract<IngestRecord, { type: T }>);
    const workflows = await upsertWorkflows(tx, lastByUuid(of('workflow')));
    const deployments = await upsertDeployments(tx, lastByUuid(of('deployment')));
    const executions = await applyExecutions(tx, of('execution'), checked.executions);
    const states = new Map(checked.executions);
    for (const { next } of executions) states.set(next.uuid, next);
    // Events stored before their execution count once it arrives; an execution that changes
    // workflow takes its events' counts along. Both are read before this batch's events are stored.
    const orphans = await takeOrphans(
      tx,
      new Map(executions.filter((c) => !c.previous).map((c) => [c.next.uuid, c.next.organizationId])),
    );
    const movedWorkflow = executions.filter(
      (c) => c.previous && c.previous.workflowUUID !== c.next.workflowUUID,
    );
    const earlierEvents = await readEvents(
      tx,
      new Map([...orphans, ...movedWorkflow.map((c) => [c.next.uuid, c.next.organizationId] as const)]),
    );
    const logs = await insertLogs(tx, of('log'));
    const newEvents = (await insertEvents(tx, of('event'))).map(storedEventOf);
    await markOrphans(
      tx,
      new Map(
        newEvents.filter((e) => !states.has(e.executionUuid)).map((e) => [e.executionUuid, e.organizationId]),
      ),
    );
    const logDays = await changedLogDays(tx, { logs, stored: (uuid) => states.has(uuid), executions });
    const newWorkflows = workflows.filter((w) => w.inserted);
    const rollups = await maintainRollups(tx, {
      newWorkflows,
      executions,
      states,
      earlierEvents,
      newEvents,
      logDays,
    });
    await updateAwaitedWorkflows(
      tx,
      newWorkflows.map((w) => ({ organizationId: w.organizationId, workflowUuid: w.uuid })),
      rollups.unstoredWorkflows,
    );
    for (const observe of options.observers) {
      const then = await observe(tx, { executions, newErrorGroups: rollups.newErrorGroups });
      if (then) afterCommit.push(then);
    }
    // A batch that changed nothing (a re-send) leaves everything as it was, freshness included.
    const changed = [...workflows, ...deployments, ...executions.map((c) => c.next), ...logs, ...newEvents];
    await markIngested(tx, [...new Set(changed.map((row) => row.organizationId))]);
    rejected.sort((a, b) => a.line - b.line);
    return { accepted: valid.length, rejected };
  });
  for (const then of afterCommit) then(db);
  return result;
}

/**
 * Returns once everything committed before it, by any connection, is on disk. Batches of one
 * request commit without waiting for the disk (`durable: false`): the write-ahead log of each is
 * flushed in the background while the next is written, instead of one flush wait per batch. This
 * one synchronous commit then flushes the log through all of them, since the log is sequential.
 * It takes a transaction id so that its commit is logged (and flushed) even if nothing else is.
 */
export async function makeDurable(db: Database): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query('select pg_current_xact_id()');
  });
}

/** Per table: the uuid a record claims (its own) and the uuids it refers to. */
const OWNED_UUIDS: ReadonlyArray<{
  table: string;
  own: (r: IngestRecord) => string | undefined;
  refs: (r: IngestRecord) => string | undefined;
}> = [
  {
    table: 'workflows',
    own: (r) => (r.type === 'workflow' ? r.uuid : undefined),
    refs: (r) => (r.type === 'deployment' || r.type === 'execution' ? r.workflowUUID : undefined),
  },
  {
    table: 'deployments',
    own: (r) => (r.type === 'deployment' ? r.uuid : undefined),
    refs: () => undefined,
  },
  {
    table: 'executions',
    own: (r) => (r.type === 'execution' ? r.uuid : undefined),
    refs: (r) => (r.type === 'log' || r.type === 'event' ? r.workflowExecutionUUID : undefined),
  },
];

/**
 * A uuid stored under one organization is never claimed by, or attached to, another. Within a
 * batch, the first line that owns a new uuid claims it; references never claim (a child may
 * arrive before its parent), so the outcome does not depend on the order of lines in the batch.
 */
async function rejectForeignUuids(
  tx: Transaction,
  records: NumberedRecord[],
  rejected: Rejection[],
): Promise<{ valid: NumberedRecord[]; stored: NumberedRecord[]; executions: Map<string, ExecutionState> }> {
  // The stored executions serve twice: as owners here, and as the state batch records merge into.
  let executions = new Map<string, ExecutionState>();
  const foreign = new Set<NumberedRecord>();
  const expired = new Set<string>();
  const reject = (numbered: NumberedRecord, uuid: string) => {
    foreign.add(numbered);
    rejected.push({ line: numbered.line, error: `uuid ${uuid} belongs to another organization` });
  };
  for (const { table, own, refs } of OWNED_UUIDS) {
    const live = records.filter((r) => !foreign.has(r));
    const uuids = [...new Set(live.flatMap((r) => [own(r.record), refs(r.record)]))].filter(
      (uuid): uuid is string => uuid !== undefined,
    );
    if (uuids.length === 0) continue;
    let owners: Map<string, string>;
    if (table === 'executions') {
      const stored = await storedExecutions(tx, uuids);
      executions = stored.states;
      owners = stored.owners;
      for (const uuid of owners.keys()) if (!executions.has(uuid)) expired.add(uuid);
    } else {
      const rows = await tx.query<{ uuid: string; organization_id: string }>(
        `select uuid, organization_id from ${table} where uuid = any($1::uuid[])`,
        [uuids],
      );
      owners = new Map(rows.map((row) => [row.uuid, row.organization_id]));
    }
    for (const numbered of live) {
      const uuid = own(numbered.record);
      if (uuid === undefined) continue;
      const owner = owners.get(uuid);
      if (owner === undefined) owners.set(uuid, numbered.record.organizationId);
      else if (owner !== numbered.record.organizationId) reject(numbered, uuid);
    }
    for (const numbered of live) {
      const uuid = refs(numbered.record);
      if (uuid === undefined) continue;
      const owner = owners.get(uuid);
      if (owner !== undefined && owner !== numbered.record.organizationId) reject(numbered, uuid);
    }
  }
  // Records of an execution whose partition retention dropped are accepted and change nothing:
  // its rollups already count it, and its raw rows are gone for good (docs/partitions.md).
  const live = (r: NumberedRecord) => {
    const { own, refs } = OWNED_UUIDS.find((t) => t.table === 'executions')!;
    const uuid = own(r.record) ?? refs(r.record);
    return uuid === undefined || !expired.has(uuid);
  };
  return {
    valid: records.filter((r) => !foreign.has(r)),
    stored: records.filter((r) => !foreign.has(r) && live(r)),
    executions,
  };
}

/** Within a batch, the last line of a uuid is its latest state. */
function lastByUuid<T extends { uuid: string }>(records: readonly T[]): T[] {
  return [...new Map(records.map((r) => [r.uuid, r])).values()];
}

/** The columns a workflow's values fill; the database sets updated_at. */
const WORKFLOW_COLUMNS = workflows.columnsWithout('updated_at');

/** A workflow record's values of WORKFLOW_COLUMNS. */
export const workflowRow = (r: WorkflowRecord): RowFor<typeof WORKFLOW_COLUMNS> => ({
  uuid: r.uuid,
  organization_id: r.organizationId,
  workflow_id: r.workflowId,
  name: r.name,
  owner_address: r.ownerAddress,
  status: r.status,
  registered_at: r.registeredAt,
  workflow_source: r.workflowSource,
});

/** The columns a deployment's values fill; the database sets updated_at. */
const DEPLOYMENT_COLUMNS = deployments.columnsWithout('updated_at');

/** A deployment record's values of DEPLOYMENT_COLUMNS. */
export const deploymentRow = (r: DeploymentRecord): RowFor<typeof DEPLOYMENT_COLUMNS> => ({
  uuid: r.uuid,
  organization_id: r.organizationId,
  workflow_uuid: r.workflowUUID,
  status: r.status,
  deployed_at: r.deployedAt,
  tx_hash: r.txHash,
  error_message: r.errorMessage,
  binary_url: r.binaryURL,
  config_url: r.configURL,
});

/**
 * Upserts records of a uuid-keyed table (each row its values of `columns`: all but updated_at) and
 * returns the rows written. The `organization_id` guard keeps a row from ever being updated by
 * another organization (the check above cannot see a uuid claimed by a concurrent, uncommitted
 * transaction); a record that changes nothing writes nothing, and is not returned.
 */
function upsertOwned<Row>(
  tx: Transaction,
  table: string,
  columns: Columns,
  values: readonly RowValues[],
  returning: string,
): Promise<Row[]> {
  const updates = columnNames(columns).filter((name) => name !== 'uuid' && name !== 'organization_id');
  const upsert = unnestUpsert(table, columns, values, {
    key: ['uuid'],
    set: [...updates, ['updated_at', 'now()']],
    where: `${table}.organization_id = excluded.organization_id and ${changesAny(table, updates)}`,
    returning,
  });
  return tx.query<Row>(upsert.text, upsert.params);
}

async function upsertWorkflows(
  tx: Transaction,
  rows: WorkflowRecord[],
): Promise<Array<{ organizationId: string; uuid: string; inserted: boolean }>> {
  if (rows.length === 0) return [];
  const written = await upsertOwned<{ organization_id: string; uuid: string; inserted: boolean }>(
    tx,
    workflows.name,
    WORKFLOW_COLUMNS,
    rows.map(workflowRow),
    'organization_id, uuid, (xmax = 0) as inserted',
  );
  return written.map((row) => ({
    organizationId: row.organization_id,
    uuid: row.uuid,
    inserted: row.inserted,
  }));
}

/**
 * Moves each organization's freshness mark (extensions.dataAsOf) to now. Writers of one
 * organization hold its lock, so the marks of one organization are set in commit order.
 */
async function markIngested(tx: Transaction, organizationIds: readonly string[]): Promise<void> {
  if (organizationIds.length === 0) return;
  await tx.query(
    `insert into ingest_watermarks (organization_id, data_as_of)
     select id, clock_timestamp() from unnest($1::uuid[]) as o(id)
     on conflict (organization_id) do update set data_as_of = greatest(ingest_watermarks.data_as_of, excluded.data_as_of)`,
    [[...organizationIds].sort()],
  );
}

async function upsertDeployments(
  tx: Transaction,
  rows: DeploymentRecord[],
): Promise<Array<{ organizationId: string }>> {
  if (rows.length === 0) return [];
  const written = await upsertOwned<{ organization_id: string }>(
    tx,
    deployments.name,
    DEPLOYMENT_COLUMNS,
    rows.map(deploymentRow),
    'organization_id',
  );
  return written.map((row) => ({ organizationId: row.organization_id }));
}
