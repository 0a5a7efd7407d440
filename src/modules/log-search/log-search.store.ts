import type { Queryable } from '../../db/database.js';
import type { Paging } from '../shared/paging.js';

export interface LogSearch {
  /** A `like` pattern, matched case-insensitively. */
  readonly pattern: string;
  readonly workflowUuid: string | null;
  readonly nodeId: string | null;
  readonly from: Date;
  readonly to: Date;
}

export interface LogMatchRow {
  workflow_execution_uuid: string;
  workflow_uuid: string;
  workflow_name: string;
  node_id: string;
  timestamp: Date;
  message: string;
}

/**
 * Lines of visible executions (their workflow stored) matching the search, bounded by time: the
 * trigram index finds the candidates, the time range keeps them to the window.
 */
const MATCHES = `
  from execution_logs l
  join executions e on e.organization_id = l.organization_id and e.uuid = l.workflow_execution_uuid
  join workflows w on w.organization_id = e.organization_id and w.uuid = e.workflow_uuid
  where l.organization_id = $1 and l.timestamp >= $2 and l.timestamp <= $3 and l.message ilike $4
    and ($5::uuid is null or e.workflow_uuid = $5) and ($6::text is null or l.node_id = $6)`;

const params = (organizationId: string, search: LogSearch) => [
  organizationId,
  search.from,
  search.to,
  search.pattern,
  search.workflowUuid,
  search.nodeId,
];

export async function searchLogs(
  db: Queryable,
  organizationId: string,
  search: LogSearch,
  paging: Paging,
): Promise<LogMatchRow[]> {
  return db.query<LogMatchRow>(
    `select l.workflow_execution_uuid, e.workflow_uuid, w.name as workflow_name, l.node_id, l.timestamp, l.message
     ${MATCHES}
     order by l.timestamp desc, l.workflow_execution_uuid, l.seq
     limit $7 offset $8`,
    [...params(organizationId, search), paging.limit, paging.offset],
  );
}

/** Matching lines counted up to `cap` (the count stops there). */
export async function countLogMatches(
  db: Queryable,
  organizationId: string,
  search: LogSearch,
  cap: number,
): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `select count(*)::int as n from (select 1 ${MATCHES} limit $7) m`,
    [...params(organizationId, search), cap],
  );
  return row?.n ?? 0;
}
