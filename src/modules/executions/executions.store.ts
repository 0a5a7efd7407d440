import type { Queryable } from '../../db/database.js';
import { orderClause, type SortingOrder } from '../shared/ordering.js';
import type { Paging } from '../shared/paging.js';

export interface ExecutionRow {
  uuid: string;
  workflow_uuid: string;
  id: string;
  workflow_name: string;
  workflow_id: string;
  status: string;
  classified_status: string | null;
  started_at: Date;
  finished_at: Date | null;
  credit_used: string | null;
  errors: Array<{ error: string; count: number }> | null;
  executed_in_tee: boolean | null;
}

export interface ExecutionFilter {
  workflowUuid?: string | undefined;
  statuses?: readonly string[] | undefined;
  /** A `like` pattern matched case-insensitively against id, uuid and workflow name. */
  search?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
}

export interface ExecutionOrder {
  field: 'ID' | 'STATUS' | 'STARTED_AT' | 'CREDIT_USED';
  order: SortingOrder;
}

const ORDER_COLUMNS = {
  ID: 'e.id collate "C"',
  STATUS: 'e.status collate "C"',
  STARTED_AT: 'e.started_at',
  CREDIT_USED: 'e.credit_used',
};

/** Executions are visible only once their workflow is. */
const FROM = `from executions e join workflows w on w.organization_id = e.organization_id and w.uuid = e.workflow_uuid`;

const COLUMNS = `e.uuid, e.workflow_uuid, e.id, w.name as workflow_name, w.workflow_id, e.status, e.classified_status,
  e.started_at, e.finished_at, trim_scale(e.credit_used)::text as credit_used, e.errors, e.executed_in_tee`;

const FILTER = `
  where e.organization_id = $1
    and ($2::uuid is null or e.workflow_uuid = $2)
    and ($3::text[] is null or e.status = any($3))
    and ($4::text is null or e.id ilike $4 or e.uuid::text ilike $4 or w.name ilike $4)
    and ($5::timestamptz is null or e.started_at >= $5)
    and ($6::timestamptz is null or e.started_at <= $6)`;

function filterParams(organizationId: string, filter: ExecutionFilter): unknown[] {
  return [
    organizationId,
    filter.workflowUuid ?? null,
    filter.statuses ?? null,
    filter.search ?? null,
    filter.from ?? null,
    filter.to ?? null,
  ];
}

export async function listExecutions(
  db: Queryable,
  organizationId: string,
  filter: ExecutionFilter,
  order: ExecutionOrder,
  paging: Paging,
): Promise<ExecutionRow[]> {
  return db.query<ExecutionRow>(
    `select ${COLUMNS} ${FROM} ${FILTER} ${orderClause(ORDER_COLUMNS, order.field, order.order, 'e.uuid', ['CREDIT_USED'])}
     limit $7 offset $8`,
    [...filterParams(organizationId, filter), paging.limit, paging.offset],
  );
}

/** Exact count by scanning the matching rows; used only with `search`, which rollups cannot answer. */
export async function countExecutionsByScan(
  db: Queryable,
  organizationId: string,
  filter: ExecutionFilter,
): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `select count(*)::int as n ${FROM} ${FILTER}`,
    filterParams(organizationId, filter),
  );
  return row?.n ?? 0;
}

export async function findExecution(
  db: Queryable,
  organizationId: string,
  uuid: string,
): Promise<ExecutionRow | undefined> {
  const [row] = await db.query<ExecutionRow>(
    `select ${COLUMNS} ${FROM} where e.organization_id = $1 and e.uuid = $2`,
    [organizationId, uuid],
  );
  return row;
}

export async function executionIsVisible(
  db: Queryable,
  organizationId: string,
  uuid: string,
): Promise<boolean> {
  const rows = await db.query(`select 1 ${FROM} where e.organization_id = $1 and e.uuid = $2`, [
    organizationId,
    uuid,
  ]);
  return rows.length > 0;
}

export interface LogRow {
  node_id: string;
  message: string;
  timestamp: Date;
}

/** At most `limit` lines, by timestamp then arrival. */
export async function listLogs(
  db: Queryable,
  organizationId: string,
  executionUuid: string,
  limit: number,
): Promise<LogRow[]> {
  return db.query<LogRow>(
    `select node_id, message, timestamp from execution_logs
     where organization_id = $1 and workflow_execution_uuid = $2
     order by timestamp, seq limit $3`,
    [organizationId, executionUuid, limit],
  );
}

export interface EventRow {
  capability_id: string;
  status: string;
  method: string | null;
  started_at: Date;
  finished_at: Date | null;
  errors: Array<{ error: string; count: number }> | null;
}

export async function listEvents(
  db: Queryable,
  organizationId: string,
  executionUuid: string,
  filter: { capabilityId?: string | undefined; status?: string | undefined },
  limit: number,
): Promise<EventRow[]> {
  return db.query<EventRow>(
    `select capability_id, status, method, started_at, finished_at, errors from execution_events
     where organization_id = $1 and workflow_execution_uuid = $2
       and ($3::text is null or capability_id = $3)
       and ($4::text is null or status = $4)
     order by started_at, seq limit $5`,
    [organizationId, executionUuid, filter.capabilityId ?? null, filter.status ?? null, limit],
  );
}
