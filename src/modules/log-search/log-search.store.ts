import { genericPlan, type Queryable } from '../../db/database.js';
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

/** Windows of up to this many days ask the index for each of their days; longer ones for the range. */
const DAYS_ASKED_ONE_BY_ONE = 32;
const DAY_MS = 86_400_000;

/**
 * A match as a kept search holds it (log-search.loaders.ts): what orders it and finds its line
 * again, without its message or its workflow's name, which are read for the page asked.
 */
export type LogMatchKey = Pick<
  LogMatchRow,
  'workflow_execution_uuid' | 'workflow_uuid' | 'node_id' | 'timestamp'
> & {
  readonly line_hash: Uint8Array;
};

/** A row of the counted statement: the count, with a match or, past the last match, nulls. */
type CountedRow = { n: number } & (LogMatchRow | { [K in keyof LogMatchRow]: null });

/** A line's day as migration 0007's `wfapi_log_day` has it: whole days since 1970, toward zero. */
const dayOf = (ms: number) => Math.trunc(ms / DAY_MS);

/**
 * Lines of visible executions (their workflow stored) matching the search, bounded by time. The
 * index (migration 0007) keys each line by its day and its trigrams, so asking for the window's
 * days as well as the term reads only the window's matching lines, whatever the month holds; the
 * exact bounds then apply to those. Each day is asked for apart (GIN then skips the other days'
 * lines entry by entry), its number written into the statement: given them as a parameter, the
 * planner's generic plan leaves the days out of the index scan (it cannot tell how many there
 * are) and rechecks every matching line of the month. So a window's statement text names its
 * days: a few texts a day, and the driver prepares a bounded number of texts (db/postgres.ts).
 * A longer window asks for its range of days, which reads the range's index entries first.
 * The exact bounds are written `(...) is true` so that they only filter: as index conditions, a
 * prepared statement's generic plan intersected the day index with a scan of every line of the
 * window in (organization_id, timestamp), three times the work of the day index alone. With the
 * days in the text and the bounds as filters, the generic plan is the plan PostgreSQL picks for
 * any term, rare or common (checked with `EXPLAIN ANALYZE` on the copied million), so the
 * statements are marked for it: planned once per connection instead of 1.3 ms per request.
 */
const matchesWhere = (days: string) => `
  from execution_logs l
  join executions e on e.organization_id = l.organization_id and e.uuid = l.workflow_execution_uuid
  join workflows w on w.organization_id = e.organization_id and w.uuid = e.workflow_uuid
  where l.organization_id = $1 and ${days} and (l.timestamp >= $2 and l.timestamp <= $3) is true and l.message ilike $4
    and ($5::uuid is null or e.workflow_uuid = $5) and ($6::text is null or l.node_id = $6)`;
const MATCH_COLUMNS =
  'l.workflow_execution_uuid, e.workflow_uuid, w.name as workflow_name, l.node_id, l.timestamp, l.message';
const statements = (matches: string) => ({
  page: genericPlan(`select ${MATCH_COLUMNS}
   ${matches}
   order by l.timestamp desc, l.workflow_execution_uuid, l.seq
   limit $7 offset $8`),
  count: genericPlan(`select count(*)::int as n from (select 1 ${matches} limit $7) m`),
  /**
   * The count and the page from one reading of the matches, up to `cap` of them: the matches
   * are kept once (a materialized CTE; their order is the index's, not time's), counted, and
   * the page sorted from them. Right whenever the matches are fewer than the cap, since then
   * they are all there; the caller reads the page alone otherwise. The CTE keeps each match's
   * key, not its message: messages up to about 2 kB are stored inline, and 10,001 of them would
   * spill some 20 MB to a temporary file for every search of a common term (longer ones stay
   * TOAST pointers), where the keys fit in work_mem. The page's messages are read back by
   * primary key, a probe per line. One row with a null page when the page is past the last match.
   */
  counted: genericPlan(`with m as materialized (
     select l.workflow_execution_uuid, l.line_hash, l.timestamp, l.seq, l.node_id, e.workflow_uuid, w.name as workflow_name
     ${matches} limit $9)
   select c.n, p.workflow_execution_uuid, p.workflow_uuid, p.workflow_name, p.node_id, p.timestamp, t.message
   from (select count(*)::int as n from m) c
   left join lateral (select * from m order by timestamp desc, workflow_execution_uuid, seq limit $7 offset $8) p on true
   left join lateral (select t.message from execution_logs t
     where t.organization_id = $1 and t.workflow_execution_uuid = p.workflow_execution_uuid
       and t.line_hash = p.line_hash and t.timestamp = p.timestamp) t on true
   order by p.timestamp desc, p.workflow_execution_uuid, p.seq`),
  /** Every match's key, in the order of pages, up to `cap` ($7). */
  keys: genericPlan(`select l.workflow_execution_uuid, e.workflow_uuid, l.node_id, l.timestamp, l.line_hash
   ${matches}
   order by l.timestamp desc, l.workflow_execution_uuid, l.seq
   limit $7`),
});
const BY_RANGE = statements(
  matchesWhere('wfapi_log_day(l.timestamp) between wfapi_log_day($2) and wfapi_log_day($3)'),
);
const statementsFor = (search: LogSearch) => {
  const [first, last] = [dayOf(search.from.getTime()), dayOf(search.to.getTime())];
  if (last - first >= DAYS_ASKED_ONE_BY_ONE) return BY_RANGE;
  const days = Array.from({ length: last - first + 1 }, (_, i) => first + i);
  return statements(matchesWhere(`wfapi_log_day(l.timestamp) = any('{${days.join(',')}}'::int[])`));
};

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
  return db.query<LogMatchRow>(statementsFor(search).page, [
    ...params(organizationId, search),
    paging.limit,
    paging.offset,
  ]);
}

/**
 * The page and the matches counted up to `cap`, in one statement: the page is undefined when
 * the count reached the cap (the matches read were not all of them; read the page alone).
 */
export async function searchLogsCounted(
  db: Queryable,
  organizationId: string,
  search: LogSearch,
  paging: Paging,
  cap: number,
): Promise<{ count: number; page: LogMatchRow[] | undefined }> {
  const rows = await db.query<CountedRow>(statementsFor(search).counted, [
    ...params(organizationId, search),
    paging.limit,
    paging.offset,
    cap,
  ]);
  const count = rows[0]?.n ?? 0;
  if (count >= cap) return { count, page: undefined };
  return {
    count,
    page: rows.flatMap(({ n: _n, ...row }) => (row.workflow_execution_uuid === null ? [] : [row])),
  };
}

/** The keys of the matches, newest first as pages are, up to `cap` of them. */
export async function searchLogKeys(
  db: Queryable,
  organizationId: string,
  search: LogSearch,
  cap: number,
): Promise<LogMatchKey[]> {
  return db.query<LogMatchKey>(statementsFor(search).keys, [...params(organizationId, search), cap]);
}

/**
 * The matches of `keys` with their messages and their workflows' names as stored now, in the
 * order of `keys`: one probe of its line and of its workflow each.
 */
export async function readMatches(
  db: Queryable,
  organizationId: string,
  keys: readonly LogMatchKey[],
): Promise<LogMatchRow[]> {
  if (keys.length === 0) return [];
  return db.query<LogMatchRow>(
    genericPlan(`select k.workflow_execution_uuid, k.workflow_uuid, w.name as workflow_name, k.node_id, k.timestamp, l.message
     from unnest($2::uuid[], $3::uuid[], $4::text[], $5::timestamptz[], $6::bytea[])
       with ordinality as k(workflow_execution_uuid, workflow_uuid, node_id, timestamp, line_hash, i)
     join execution_logs l on l.organization_id = $1 and l.workflow_execution_uuid = k.workflow_execution_uuid
       and l.line_hash = k.line_hash and l.timestamp = k.timestamp
     join workflows w on w.organization_id = $1 and w.uuid = k.workflow_uuid
     order by k.i`),
    [
      organizationId,
      keys.map((k) => k.workflow_execution_uuid),
      keys.map((k) => k.workflow_uuid),
      keys.map((k) => k.node_id),
      keys.map((k) => k.timestamp),
      keys.map((k) => k.line_hash),
    ],
  );
}

/** Matching lines counted up to `cap` (the count stops there). */
export async function countLogMatches(
  db: Queryable,
  organizationId: string,
  search: LogSearch,
  cap: number,
): Promise<number> {
  const [row] = await db.query<{ n: number }>(statementsFor(search).count, [
    ...params(organizationId, search),
    cap,
  ]);
  return row?.n ?? 0;
}
