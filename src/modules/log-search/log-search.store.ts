import { genericPlan, type Queryable } from '../../db/database.js';
import { dayLiteral } from '../../db/partitions.js';
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

const DAY_MS = 86_400_000;

/** Windows of more days than this ask for the days that hold the organization's lines only. */
const DAYS_ASKED_WHATEVER_THE_DATA = 31;

/** A row of the counted statement: the count, with a match or, past the last match, nulls. */
type CountedRow = { n: number } & (LogMatchRow | { [K in keyof LogMatchRow]: null });

/**
 * Lines of visible executions (their workflow stored) matching the search, bounded by time. Each
 * month partition of the lines has a trigram index per day, partial to that day's lines
 * (migration 0015, `dayIndexes` in db/partitions.ts). The search names each day of its window
 * with the same bounds as those indexes, written into the statement, so the planner proves which
 * index each day needs, reads that day's matching lines only (a BitmapOr of the days), and
 * prunes the partitions of other months; the DEFAULT partition's whole index answers any day.
 * The exact bounds then apply to those lines, written `(...) is true` so that they only filter:
 * as index conditions they intersected a scan of every line of the window in
 * (organization_id, timestamp) with the trigram index. A window's statement text names its days:
 * a few texts a day, which the driver prepares once each (db/postgres.ts), and with the days in
 * the text the generic plan is the plan PostgreSQL picks for any term, so the statements are
 * marked for it: planned once per connection instead of for each request.
 */
const matchesWhere = (days: readonly number[]) => {
  const each = days.map(
    (day) =>
      `(l.timestamp >= '${dayLiteral(day)}' and l.timestamp < '${dayLiteral(day + 1)}' and l.message ilike $4)`,
  );
  return `
  from execution_logs l
  join executions e on e.organization_id = l.organization_id and e.uuid = l.workflow_execution_uuid
  join workflows w on w.organization_id = e.organization_id and w.uuid = e.workflow_uuid
  where l.organization_id = $1 and (${each.length === 0 ? 'false' : each.join(' or ')})
    and (l.timestamp >= $2 and l.timestamp <= $3) is true
    and ($5::uuid is null or e.workflow_uuid = $5) and ($6::text is null or l.node_id = $6)`;
};
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
});

/**
 * The days (whole days since 1970, UTC) the search names: every day of its window, or, for a
 * window longer than a month, those of its days that lie between the organization's first and
 * last stored line (two index probes), so that a window of years names the days of the data.
 */
async function daysOf(db: Queryable, organizationId: string, search: LogSearch): Promise<number[]> {
  let from = search.from.getTime();
  let to = search.to.getTime();
  if (Math.floor(to / DAY_MS) - Math.floor(from / DAY_MS) >= DAYS_ASKED_WHATEVER_THE_DATA) {
    const [span] = await db.query<{ first: Date | null; last: Date | null }>(
      `select (select min(timestamp) from execution_logs where organization_id = $1) as first,
              (select max(timestamp) from execution_logs where organization_id = $1) as last`,
      [organizationId],
    );
    if (!span?.first || !span.last) return [];
    from = Math.max(from, span.first.getTime());
    to = Math.min(to, span.last.getTime());
  }
  const [first, last] = [Math.floor(from / DAY_MS), Math.floor(to / DAY_MS)];
  return Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => first + i);
}

const statementsFor = async (db: Queryable, organizationId: string, search: LogSearch) =>
  statements(matchesWhere(await daysOf(db, organizationId, search)));

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
  return db.query<LogMatchRow>((await statementsFor(db, organizationId, search)).page, [
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
  const rows = await db.query<CountedRow>((await statementsFor(db, organizationId, search)).counted, [
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

/** Matching lines counted up to `cap` (the count stops there). */
export async function countLogMatches(
  db: Queryable,
  organizationId: string,
  search: LogSearch,
  cap: number,
): Promise<number> {
  const [row] = await db.query<{ n: number }>((await statementsFor(db, organizationId, search)).count, [
    ...params(organizationId, search),
    cap,
  ]);
  return row?.n ?? 0;
}
