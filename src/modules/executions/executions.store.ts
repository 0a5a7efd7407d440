import { genericPlan, type Queryable } from '../../db/database.js';
import type { EventTableRow, ExecutionTableRow, LogTableRow, WorkflowTableRow } from '../../db/tables.js';
import { ANY_LEVEL, errorGroupCounts } from '../../rollups/error-groups.rollup.js';
import { type RollupWindow, readWindows } from '../../rollups/rollup-reader.store.js';
import type { SortingOrder } from '../../schema/schema-types.generated.js';
import { orderClause } from '../shared/ordering.js';
import type { Paging } from '../shared/paging.js';

/** An execution as read, with its workflow's name and id. */
export type ExecutionRow = Omit<ExecutionTableRow, 'organization_id' | 'updated_at'> &
  Pick<WorkflowTableRow, 'workflow_id'> & { workflow_name: string };

export interface ExecutionFilter {
  workflowUuid?: string | undefined;
  statuses?: readonly string[] | undefined;
  /** A `like` pattern matched case-insensitively against id, uuid and workflow name. */
  search?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  /** Only executions with at least one error of this group (its fingerprint). */
  errorFingerprint?: string | undefined;
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

/**
 * The same visibility as a condition on `executions e`, for $1's executions. While the
 * organization awaits no workflow (awaited_workflows, kept by ingestion: the workflows its
 * executions name that have not arrived) every execution is visible and no workflow is looked up:
 * PostgreSQL evaluates the uncorrelated `not exists` once per statement, and `or` stops there.
 * A page at offset 1,000 looked up 1,100 workflows to show 100.
 */
const VISIBLE = `(not exists (select 1 from awaited_workflows a where a.organization_id = $1)
  or exists (select 1 from workflows w where w.organization_id = e.organization_id and w.uuid = e.workflow_uuid))`;

/**
 * What a list reads beyond an execution's own small columns, each at a cost for every row:
 * `workflow` (workflow_name, workflow_id) a lookup of the row's workflow, `errors` a JSON document
 * parsed, `creditUsed` a decimal written out as text. A list leaves out what its answer does not
 * show.
 */
export interface ExecutionReads {
  readonly workflow: boolean;
  readonly errors: boolean;
  readonly creditUsed: boolean;
}

export const EVERY_READ: ExecutionReads = { workflow: true, errors: true, creditUsed: true };

/** The columns of an ExecutionRow, less what `reads` leaves out, from `executions e` and `workflows w`. */
function rowColumns(reads: ExecutionReads): string {
  return [
    'e.uuid, e.workflow_uuid, e.id',
    reads.workflow ? 'w.name as workflow_name, w.workflow_id' : '',
    'e.status, e.classified_status, e.started_at, e.finished_at',
    reads.creditUsed ? 'trim_scale(e.credit_used)::text as credit_used' : '',
    reads.errors ? 'e.errors' : '',
    'e.executed_in_tee',
  ]
    .filter(Boolean)
    .join(', ');
}

/** The columns of an ExecutionRow, read from `executions e` joined to `workflows w`. */
export const EXECUTION_ROW_COLUMNS = rowColumns(EVERY_READ);

/** The columns a page's rows carry out of its inner select: the small ones, and what orders them. */
const PAGE_COLUMNS = `e.organization_id, e.workflow_uuid, e.uuid, e.id, e.status, e.classified_status,
  e.started_at, e.finished_at, e.credit_used, e.executed_in_tee`;

/**
 * A filter as SQL: its `from` and `where`, holding only the conditions the filter sets, and its
 * parameters ($1 the organization, the others numbered as they are used). A condition left out
 * instead of written `($n is null or ...)`: PostgreSQL plans the statement for what it asks, and
 * a prepared statement's generic plan (chosen after its fifth execution) stays as good as a
 * custom one. A plain page at offset 1,000 cost PostgreSQL 2.0 ms a request with every
 * condition written and a generic plan, 1.3 ms with only the organization's. Visibility is a
 * `join` of the workflows or a `condition` on the executions alone (VISIBLE); a search (it matches
 * the workflows' names) and an error group's executions (fromGroup) are always joined.
 */
function selection(
  organizationId: string,
  filter: ExecutionFilter,
  order: SortingOrder,
  visibility: 'join' | 'condition',
): { sql: string; params: unknown[] } {
  const params: unknown[] = [organizationId];
  const param = (value: unknown, type: string) => {
    params.push(value);
    return `$${params.length}::${type}`;
  };
  const from = filter.from != null ? param(filter.from, 'timestamptz') : undefined;
  const to = filter.to != null ? param(filter.to, 'timestamptz') : undefined;
  const conditions = ['e.organization_id = $1'];
  if (filter.workflowUuid != null) conditions.push(`e.workflow_uuid = ${param(filter.workflowUuid, 'uuid')}`);
  if (filter.statuses != null) conditions.push(`e.status = any(${param(filter.statuses, 'text[]')})`);
  if (filter.search != null) {
    const search = param(filter.search, 'text');
    conditions.push(`(e.id ilike ${search} or e.uuid::text ilike ${search} or w.name ilike ${search})`);
  }
  if (from) conditions.push(`e.started_at >= ${from}`);
  if (to) conditions.push(`e.started_at <= ${to}`);
  const where = `where ${conditions.join(' and ')}`;
  if (filter.errorFingerprint != null)
    return { sql: `${fromGroup(param(filter.errorFingerprint, 'text'), from, to, order)} ${where}`, params };
  // A search matches the workflows' names, so it joins them whatever the caller asked.
  if (visibility === 'join' || filter.search != null) return { sql: `${FROM} ${where}`, params };
  return { sql: `from executions e ${where} and ${VISIBLE}`, params };
}

/**
 * A page of executions. The columns of what `reads` leaves out are not read: those fields of each
 * row are undefined, for an answer that does not show them.
 */
export async function listExecutions(
  db: Queryable,
  organizationId: string,
  filter: ExecutionFilter,
  order: ExecutionOrder,
  paging: Paging,
  reads: ExecutionReads = EVERY_READ,
): Promise<ExecutionRow[]> {
  // Planned once per connection: left to itself PostgreSQL planned each page anew (the custom
  // plan looked cheaper), a third of its time on a page at offset 1,000. Statuses and an error
  // group keep custom plans: which statuses (a rare one, the running ones' partial index) and
  // how many rows the group holds decide the plan. A statement planned at each execution is
  // planned faster as one join than as a page found first and then joined (a workflow's failures
  // over 7 days: 0.6x the statements a second), so it keeps the join.
  const generic = filter.statuses == null && filter.errorFingerprint == null;
  // A search matches the workflow's name: it reads the workflow of every row it looks at anyway.
  const pageFirst = generic && filter.search == null;
  const { sql, params } = selection(organizationId, filter, order.order, pageFirst ? 'condition' : 'join');
  const limit = params.push(paging.limit);
  const offset = params.push(paging.offset);
  const ordered = orderClause(ORDER_COLUMNS, order.field, order.order, 'e.uuid', ['CREDIT_USED']);
  const page = `${ordered} limit $${limit} offset $${offset}`;
  // Without a join the page's rows are found first, reading only the columns asked for (the rows
  // skipped by the offset carry them too); then only they are joined to their workflows and have
  // their columns computed.
  const text = pageFirst
    ? `select ${rowColumns(reads)}
       from (select ${PAGE_COLUMNS}${reads.errors ? ', e.errors' : ''} ${sql} ${page}) e
       ${reads.workflow ? 'join workflows w on w.organization_id = e.organization_id and w.uuid = e.workflow_uuid' : ''}
       ${ordered}`
    : `select ${EXECUTION_ROW_COLUMNS} ${sql} ${page}`;
  return db.query<ExecutionRow>(generic ? genericPlan(text) : text, params);
}

/**
 * An error group's executions, read from the group (migration 0008): its rows of the window, in
 * the order of their execution's start, each execution looked up by (start, uuid). A page in
 * start order reads the group's rows of the window in that order and stops when it is full,
 * however many executions the window holds; other orders sort the group's executions of the window.
 */
function fromGroup(
  fingerprint: string,
  from: string | undefined,
  to: string | undefined,
  order: SortingOrder,
): string {
  const direction = order === 'ASC' ? 'asc' : 'desc';
  const window = [from ? `and g.started_at >= ${from}` : '', to ? `and g.started_at <= ${to}` : ''].join(' ');
  return `from (
    select distinct g.started_at, g.execution_uuid from execution_error_groups g
    where g.organization_id = $1 and g.fingerprint = ${fingerprint} ${window}
    order by g.started_at ${direction}, g.execution_uuid ${direction}
  ) m
  join executions e on e.organization_id = $1 and e.started_at = m.started_at and e.uuid = m.execution_uuid
  join workflows w on w.organization_id = e.organization_id and w.uuid = e.workflow_uuid`;
}

/** Exact count by scanning the matching rows; used only for filters rollups cannot answer (search, an error group with statuses). */
export async function countExecutionsByScan(
  db: Queryable,
  organizationId: string,
  filter: ExecutionFilter,
): Promise<number> {
  const { sql, params } = selection(organizationId, filter, 'DESC', 'join');
  const [row] = await db.query<{ n: number }>(`select count(*)::int as n ${sql}`, params);
  return row?.n ?? 0;
}

/**
 * Executions of visible workflows started in `window` with at least one error of the group at
 * any level: the group's rollup rows at that level (which count each such execution once) plus
 * exact scans of the window's two partial edges, as errorGroups counts them; its cost does not
 * grow with the matches.
 */
export async function countExecutionsWithGroup(
  db: Queryable,
  organizationId: string,
  fingerprint: string,
  window: RollupWindow,
): Promise<number> {
  const rows = await readWindows(db, errorGroupCounts, organizationId, [window], {
    where: { fingerprint: [fingerprint], capability_id: [ANY_LEVEL] },
    groupBy: [],
  });
  return rows.reduce((sum, row) => sum + row.values.execution_count, 0);
}

export async function findExecution(
  db: Queryable,
  organizationId: string,
  uuid: string,
): Promise<ExecutionRow | undefined> {
  const [row] = await db.query<ExecutionRow>(FIND_EXECUTION, [organizationId, uuid]);
  return row;
}

// Statement texts made once, not per call: the driver looks each up by its text (its prepared
// name, see db/postgres.ts), and a string made once hashes once.
const FIND_EXECUTION = `select ${EXECUTION_ROW_COLUMNS} ${FROM} where e.organization_id = $1 and e.uuid = $2`;

/**
 * The statement reading an execution's lines in one round trip: its rows are undefined when the
 * execution is not visible to the organization (unknown, another organization's, or its workflow
 * not arrived yet), else its lines, possibly none (see linesOfVisibleExecution). `lines` selects
 * them for $1 (organization) and $2 (execution), in order, with the columns named by `order`; its
 * rows are joined to the visibility check.
 */
function visibleLinesStatement(lines: string, order: string): string {
  return `select v.visible, l.*
     from (select exists (select 1 ${FROM} where e.organization_id = $1 and e.uuid = $2) as visible) v
     left join lateral (${lines}) l on v.visible
     order by ${order}`;
}

async function linesOfVisibleExecution<Row>(
  db: Queryable,
  statement: string,
  params: readonly unknown[],
): Promise<Row[] | undefined> {
  const rows = await db.query<Row & { visible: boolean; present: boolean | null }>(statement, params);
  if (!rows[0]?.visible) return undefined;
  return rows.filter((row) => row.present);
}

const LOGS_OF_EXECUTION = visibleLinesStatement(
  `select true as present, node_id, message, timestamp, seq from execution_logs
     where organization_id = $1 and workflow_execution_uuid = $2
     order by timestamp, seq limit $3`,
  'l.timestamp, l.seq',
);

const EVENTS_OF_EXECUTION = visibleLinesStatement(
  `select true as present, capability_id, status, method, started_at, finished_at, errors, seq
     from execution_events
     where organization_id = $1 and workflow_execution_uuid = $2
       and ($3::text is null or capability_id = $3)
       and ($4::text is null or status = $4)
     order by started_at, seq limit $5`,
  'l.started_at, l.seq',
);

export type LogRow = Pick<LogTableRow, 'node_id' | 'message' | 'timestamp'>;

/** At most `limit` lines, by timestamp then arrival; undefined when the execution is not visible. */
export async function listLogs(
  db: Queryable,
  organizationId: string,
  executionUuid: string,
  limit: number,
): Promise<LogRow[] | undefined> {
  return linesOfVisibleExecution<LogRow>(db, LOGS_OF_EXECUTION, [organizationId, executionUuid, limit]);
}

const LOG_TEXT_OF_EXECUTION = `select v.visible, s.lines, s.text_bytes
  from (select exists (select 1 ${FROM} where e.organization_id = $1 and e.uuid = $2) as visible) v
  left join lateral (select count(*)::int as lines,
      coalesce(sum(octet_length(message) + octet_length(node_id)), 0)::float8 as text_bytes
    from (select message, node_id from execution_logs
           where organization_id = $1 and workflow_execution_uuid = $2
           order by timestamp, seq limit $3) l) s on v.visible`;

/**
 * How much text the first `limit` lines of an execution hold (UTF-8 bytes of their messages and
 * node IDs), read from the stored sizes without reading the text: what listLogs would answer.
 * Undefined when the execution is not visible (as listLogs), so that an unknown execution, or one
 * without lines, is answered by this one statement.
 */
export async function logTextOfExecution(
  db: Queryable,
  organizationId: string,
  executionUuid: string,
  limit: number,
): Promise<{ lines: number; textBytes: number } | undefined> {
  const [row] = await db.query<{ visible: boolean; lines: number | null; text_bytes: number | null }>(
    LOG_TEXT_OF_EXECUTION,
    [organizationId, executionUuid, limit],
  );
  if (!row?.visible) return undefined;
  return { lines: row.lines ?? 0, textBytes: row.text_bytes ?? 0 };
}

export type EventRow = Pick<
  EventTableRow,
  'capability_id' | 'status' | 'method' | 'started_at' | 'finished_at' | 'errors'
>;

/** At most `limit` events, by start then arrival; undefined when the execution is not visible. */
export async function listEvents(
  db: Queryable,
  organizationId: string,
  executionUuid: string,
  filter: { capabilityId?: string | undefined; status?: string | undefined },
  limit: number,
): Promise<EventRow[] | undefined> {
  return linesOfVisibleExecution<EventRow>(db, EVENTS_OF_EXECUTION, [
    organizationId,
    executionUuid,
    filter.capabilityId ?? null,
    filter.status ?? null,
    limit,
  ]);
}
