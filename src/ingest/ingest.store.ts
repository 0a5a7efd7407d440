import { createHash } from 'node:crypto';
import type { Database, Transaction } from '../db/database.js';
import { floorTo, GRAINS } from '../modules/shared/buckets.js';
import {
  type DeploymentRecord,
  type EventRecord,
  type ExecutionRecord,
  type IngestRecord,
  type LogRecord,
  TERMINAL_STATUSES,
  type WorkflowRecord,
} from './records.js';

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

/**
 * Stores one batch of validated records in one transaction, so the batch is durable when this
 * resolves. Idempotent: uuid records are upserts; log and event lines are keyed by their content.
 * Writers of one organization are serialised by an advisory lock, which makes the rollup deltas
 * (computed from the stored state read under that lock) exact under concurrent producers.
 * Lines that cannot be stored (unknown organization, a uuid owned by another organization) are
 * returned as rejections and change nothing.
 */
export async function ingestBatch(db: Database, records: readonly NumberedRecord[]): Promise<BatchResult> {
  if (records.length === 0) return { accepted: 0, rejected: [] };
  return db.transaction(async (tx) => {
    await tx.query(`set local statement_timeout = '600s'`);
    const rejected: Rejection[] = [];
    const organizations = [...new Set(records.map((r) => r.record.organizationId))].sort();
    const known = new Set(
      (
        await tx.query<{ id: string }>('select id from organizations where id = any($1::uuid[])', [
          organizations,
        ])
      ).map((row) => row.id),
    );
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
    valid = await rejectForeignUuids(tx, valid, rejected);

    const of = <T extends IngestRecord['type']>(type: T) =>
      valid.filter((r) => r.record.type === type).map((r) => r.record as Extract<IngestRecord, { type: T }>);
    await upsertWorkflows(tx, lastByUuid(of('workflow')));
    await upsertDeployments(tx, lastByUuid(of('deployment')));
    await applyExecutions(tx, of('execution'));
    await insertLogs(tx, of('log'));
    await insertEvents(tx, of('event'));
    rejected.sort((a, b) => a.line - b.line);
    return { accepted: valid.length, rejected };
  });
}

const OWNED_UUIDS: ReadonlyArray<{ table: string; pick: (r: IngestRecord) => string[] }> = [
  {
    table: 'workflows',
    pick: (r) => (r.type === 'workflow' ? [r.uuid] : 'workflowUUID' in r ? [r.workflowUUID] : []),
  },
  { table: 'deployments', pick: (r) => (r.type === 'deployment' ? [r.uuid] : []) },
  {
    table: 'executions',
    pick: (r) =>
      r.type === 'execution' ? [r.uuid] : 'workflowExecutionUUID' in r ? [r.workflowExecutionUUID] : [],
  },
];

/** A uuid stored under one organization is never claimed by, or attached to, another. */
async function rejectForeignUuids(
  tx: Transaction,
  records: NumberedRecord[],
  rejected: Rejection[],
): Promise<NumberedRecord[]> {
  const foreign = new Set<NumberedRecord>();
  for (const { table, pick } of OWNED_UUIDS) {
    const uuids = [...new Set(records.flatMap((r) => pick(r.record)))];
    if (uuids.length === 0) continue;
    const owners = new Map(
      (
        await tx.query<{ uuid: string; organization_id: string }>(
          `select uuid, organization_id from ${table} where uuid = any($1::uuid[])`,
          [uuids],
        )
      ).map((row) => [row.uuid, row.organization_id]),
    );
    for (const numbered of records) {
      for (const uuid of pick(numbered.record)) {
        const owner = owners.get(uuid);
        if (owner === undefined) {
          // The first line of the batch to use a new uuid claims it for its organization.
          if (table !== 'workflows' || numbered.record.type === 'workflow')
            owners.set(uuid, numbered.record.organizationId);
        } else if (owner !== numbered.record.organizationId && !foreign.has(numbered)) {
          foreign.add(numbered);
          rejected.push({ line: numbered.line, error: `uuid ${uuid} belongs to another organization` });
        }
      }
    }
  }
  return records.filter((r) => !foreign.has(r));
}

function lastByUuid<T extends { uuid: string }>(records: readonly T[]): T[] {
  return [...new Map(records.map((r) => [r.uuid, r])).values()];
}

async function upsertWorkflows(tx: Transaction, rows: WorkflowRecord[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(
    `insert into workflows (uuid, organization_id, workflow_id, name, owner_address, status, registered_at, workflow_source)
     select * from unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::text[])
     on conflict (uuid) do update set
       workflow_id = excluded.workflow_id, name = excluded.name, owner_address = excluded.owner_address,
       status = excluded.status, registered_at = excluded.registered_at, workflow_source = excluded.workflow_source,
       updated_at = now()
     where (workflows.workflow_id, workflows.name, workflows.owner_address, workflows.status, workflows.registered_at,
            workflows.workflow_source)
       is distinct from (excluded.workflow_id, excluded.name, excluded.owner_address, excluded.status,
            excluded.registered_at, excluded.workflow_source)`,
    [
      rows.map((r) => r.uuid),
      rows.map((r) => r.organizationId),
      rows.map((r) => r.workflowId),
      rows.map((r) => r.name),
      rows.map((r) => r.ownerAddress),
      rows.map((r) => r.status),
      rows.map((r) => r.registeredAt),
      rows.map((r) => r.workflowSource),
    ],
  );
}

async function upsertDeployments(tx: Transaction, rows: DeploymentRecord[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(
    `insert into deployments (uuid, organization_id, workflow_uuid, status, deployed_at, tx_hash, error_message, binary_url, config_url)
     select * from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::timestamptz[], $6::text[], $7::text[], $8::text[], $9::text[])
     on conflict (uuid) do update set
       workflow_uuid = excluded.workflow_uuid, status = excluded.status, deployed_at = excluded.deployed_at,
       tx_hash = excluded.tx_hash, error_message = excluded.error_message, binary_url = excluded.binary_url,
       config_url = excluded.config_url, updated_at = now()
     where (deployments.workflow_uuid, deployments.status, deployments.deployed_at, deployments.tx_hash,
            deployments.error_message, deployments.binary_url, deployments.config_url)
       is distinct from (excluded.workflow_uuid, excluded.status, excluded.deployed_at, excluded.tx_hash,
            excluded.error_message, excluded.binary_url, excluded.config_url)`,
    [
      rows.map((r) => r.uuid),
      rows.map((r) => r.organizationId),
      rows.map((r) => r.workflowUUID),
      rows.map((r) => r.status),
      rows.map((r) => r.deployedAt),
      rows.map((r) => r.txHash),
      rows.map((r) => r.errorMessage),
      rows.map((r) => r.binaryURL),
      rows.map((r) => r.configURL),
    ],
  );
}

/** The state of an execution that the rollups count, and the rest of its stored fields. */
interface ExecutionState {
  organizationId: string;
  uuid: string;
  id: string;
  workflowUUID: string;
  status: string;
  classifiedStatus: string | null;
  startedAt: Date;
  finishedAt: Date | null;
  executedInTee: boolean | null;
  errors: unknown;
  creditUsed: string | null;
}

interface StoredExecutionRow {
  organization_id: string;
  uuid: string;
  id: string;
  workflow_uuid: string;
  status: string;
  classified_status: string | null;
  started_at: Date;
  finished_at: Date | null;
  executed_in_tee: boolean | null;
  errors: unknown;
  credit_used: string | null;
}

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
  const trim = (s: string) => (s.includes('.') ? s.replace(/\.?0+$/, '') : s);
  return trim(a) === trim(b);
}

async function applyExecutions(tx: Transaction, records: ExecutionRecord[]): Promise<void> {
  if (records.length === 0) return;
  const uuids = [...new Set(records.map((r) => r.uuid))];
  const stored = new Map<string, ExecutionState>();
  for (const row of await tx.query<StoredExecutionRow>(
    `select organization_id, uuid, id, workflow_uuid, status, classified_status, started_at, finished_at,
            executed_in_tee, errors, credit_used::text as credit_used
     from executions where uuid = any($1::uuid[])`,
    [uuids],
  )) {
    stored.set(row.uuid, {
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
  }
  const final = new Map<string, ExecutionState>();
  for (const record of records) {
    const { type: _type, ...state } = record;
    final.set(record.uuid, mergeExecution(final.get(record.uuid) ?? stored.get(record.uuid), state));
  }
  const changed: ExecutionState[] = [];
  const contributions = new Contributions();
  for (const [uuid, next] of final) {
    const previous = stored.get(uuid);
    if (previous && sameExecution(previous, next)) continue;
    changed.push(next);
    if (previous) contributions.add(previous, -1);
    contributions.add(next, 1);
  }
  if (changed.length === 0) return;
  await tx.query(
    `insert into executions (uuid, organization_id, workflow_uuid, id, status, classified_status, started_at, finished_at,
                             credit_used, errors, executed_in_tee)
     select * from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::timestamptz[],
                          $8::timestamptz[], $9::numeric[], $10::jsonb[], $11::boolean[])
     on conflict (uuid) do update set
       workflow_uuid = excluded.workflow_uuid, id = excluded.id, status = excluded.status,
       classified_status = excluded.classified_status, started_at = excluded.started_at,
       finished_at = excluded.finished_at, credit_used = excluded.credit_used, errors = excluded.errors,
       executed_in_tee = excluded.executed_in_tee, updated_at = now()`,
    [
      changed.map((e) => e.uuid),
      changed.map((e) => e.organizationId),
      changed.map((e) => e.workflowUUID),
      changed.map((e) => e.id),
      changed.map((e) => e.status),
      changed.map((e) => e.classifiedStatus),
      changed.map((e) => e.startedAt),
      changed.map((e) => e.finishedAt),
      changed.map((e) => e.creditUsed),
      changed.map((e) => (e.errors === null || e.errors === undefined ? null : JSON.stringify(e.errors))),
      changed.map((e) => e.executedInTee),
    ],
  );
  await contributions.apply(tx);
}

/** Signed contributions of executions to the rollups, applied with one statement per table. */
class Contributions {
  private readonly org: string[] = [];
  private readonly workflow: string[] = [];
  private readonly status: string[] = [];
  private readonly startedAt: Date[] = [];
  private readonly sign: number[] = [];
  private readonly tee: number[] = [];
  private readonly credit: (string | null)[] = [];

  add(execution: ExecutionState, sign: 1 | -1): void {
    this.org.push(execution.organizationId);
    this.workflow.push(execution.workflowUUID);
    this.status.push(execution.status);
    this.startedAt.push(execution.startedAt);
    this.sign.push(sign);
    this.tee.push(execution.executedInTee ? sign : 0);
    this.credit.push(execution.creditUsed);
  }

  async apply(tx: Transaction): Promise<void> {
    const columns = [this.org, this.workflow, this.status, this.sign, this.tee, this.credit];
    await tx.query(
      `insert into workflow_rollups (organization_id, workflow_uuid, execution_count, success_count, failure_count,
                                     tee_count, credit_used)
       select org, workflow, sum(sign), coalesce(sum(sign) filter (where status = 'SUCCESS'), 0),
              coalesce(sum(sign) filter (where status = 'FAILURE'), 0), sum(tee), sum(sign * coalesce(credit, 0))
       from unnest($1::uuid[], $2::uuid[], $3::text[], $4::int[], $5::int[], $6::numeric[])
         as c(org, workflow, status, sign, tee, credit)
       group by org, workflow
       order by org, workflow
       on conflict (organization_id, workflow_uuid) do update set
         execution_count = workflow_rollups.execution_count + excluded.execution_count,
         success_count = workflow_rollups.success_count + excluded.success_count,
         failure_count = workflow_rollups.failure_count + excluded.failure_count,
         tee_count = workflow_rollups.tee_count + excluded.tee_count,
         credit_used = workflow_rollups.credit_used + excluded.credit_used`,
      columns,
    );
    const grains: number[] = [];
    const buckets: Date[] = [];
    const index: number[] = [];
    this.startedAt.forEach((startedAt, i) => {
      for (const grain of GRAINS) {
        grains.push(grain);
        buckets.push(new Date(floorTo(startedAt.getTime(), grain * 1000)));
        index.push(i + 1);
      }
    });
    await tx.query(
      `insert into execution_rollups (organization_id, grain, workflow_uuid, bucket_start, status, execution_count,
                                      tee_count, credit_used)
       select c.org, b.grain, c.workflow, b.bucket_start, c.status, sum(c.sign), sum(c.tee),
              sum(c.sign * coalesce(c.credit, 0))
       from unnest($7::int[], $8::int[], $9::timestamptz[]) as b(i, grain, bucket_start)
       join unnest($1::uuid[], $2::uuid[], $3::text[], $4::int[], $5::int[], $6::numeric[])
         with ordinality as c(org, workflow, status, sign, tee, credit, i) on c.i = b.i
       group by c.org, b.grain, c.workflow, b.bucket_start, c.status
       order by c.org, b.grain, c.workflow, b.bucket_start, c.status
       on conflict (organization_id, grain, workflow_uuid, bucket_start, status) do update set
         execution_count = execution_rollups.execution_count + excluded.execution_count,
         tee_count = execution_rollups.tee_count + excluded.tee_count,
         credit_used = execution_rollups.credit_used + excluded.credit_used`,
      [...columns, index, grains, buckets],
    );
  }
}

function lineHash(parts: readonly unknown[]): Buffer {
  return createHash('sha256').update(JSON.stringify(parts)).digest();
}

async function insertLogs(tx: Transaction, logs: LogRecord[]): Promise<void> {
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

async function insertEvents(tx: Transaction, events: EventRecord[]): Promise<void> {
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
