import { genericPlan, type Queryable } from '../../db/database.js';
import { DAY, HOUR } from '../../lib/time.js';
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
 * Windows of up to this many days name their days and hours to the index; longer ones name none
 * and are read by their trigrams alone, bounded by the window afterwards.
 */
const DAYS_NAMED = 400;
/** What migration 0018's `wfapi_log_spans` adds to an hour to keep it apart from the days. */
const HOUR_SPAN = 10_000_000_000;

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

/**
 * A row of the counted statements: the visible matches counted, with a match or, past the last
 * match, nulls; `lines`, when the statement reads lines before their executions, the lines read.
 */
type CountedRow = { n: number; lines?: number } & (LogMatchRow | { [K in keyof LogMatchRow]: null });

/**
 * The spans of migration 0018's `wfapi_log_spans` that hold every line of [from, to] (both ends
 * inclusive): each day the window touches in all its hours, and the hours of each day it touches
 * in part. Undefined past DAYS_NAMED days. Floors, as the function's: whole hours and days before
 * 1970 too.
 */
function spansOf(fromMs: number, toMs: number): number[] | undefined {
  const [firstDay, lastDay] = [Math.floor(fromMs / DAY), Math.floor(toMs / DAY)];
  if (lastDay - firstDay >= DAYS_NAMED) return undefined;
  const [firstHour, lastHour] = [Math.floor(fromMs / HOUR), Math.floor(toMs / HOUR)];
  const spans: number[] = [];
  for (let day = firstDay; day <= lastDay; day++) {
    const [from, to] = [Math.max(firstHour, day * 24), Math.min(lastHour, day * 24 + 23)];
    if (to - from === 23) spans.push(day);
    else for (let hour = from; hour <= to; hour++) spans.push(HOUR_SPAN + hour);
  }
  return spans;
}

/**
 * The lines matching the search in its window. The index (migration 0018) keys each line by its
 * day, its hour and its trigrams, so naming the window's spans as well as the term reads only the
 * lines of those days and hours that hold the term, whatever the month holds; the exact bounds
 * then apply to those. The spans are written into the statement: given as a parameter, the
 * planner's generic plan cannot tell how many there are and leaves them out of the index scan
 * (it would then recheck every matching line of the month). So a window's statement text names
 * its spans: a few texts an hour, and the driver prepares a bounded number of texts
 * (db/postgres.ts). The exact bounds are written `(...) is true` so that they only filter: as
 * index conditions, a prepared statement's generic plan intersected the index with a scan of
 * every line of the window in (organization_id, timestamp), three times the work of the spans
 * alone. With the spans in the text and the bounds as filters, the generic plan is the plan
 * PostgreSQL picks for any term, rare or common, so the statements are marked for it: planned
 * once per connection instead of 1.3 ms per request.
 */
const linesWhere = (spans: string) => `
  from execution_logs l
  where l.organization_id = $1 and ${spans} and (l.timestamp >= $2 and l.timestamp <= $3) is true and l.message ilike $4
    and ($6::text is null or l.node_id = $6)`;
/** The matching lines of visible executions (their workflow stored): each line's execution looked up. */
const matchesWhere = (spans: string) => `
  from execution_logs l
  join executions e on e.organization_id = l.organization_id and e.uuid = l.workflow_execution_uuid
  join workflows w on w.organization_id = e.organization_id and w.uuid = e.workflow_uuid
  where l.organization_id = $1 and ${spans} and (l.timestamp >= $2 and l.timestamp <= $3) is true and l.message ilike $4
    and ($5::uuid is null or e.workflow_uuid = $5) and ($6::text is null or l.node_id = $6)`;
const MATCH_COLUMNS =
  'l.workflow_execution_uuid, e.workflow_uuid, w.name as workflow_name, l.node_id, l.timestamp, l.message';
/** Each line of page `p` with its message, read back by its key; the page in order. */
const WITH_MESSAGES = `left join lateral (select t.message from execution_logs t
     where t.organization_id = $1 and t.workflow_execution_uuid = p.workflow_execution_uuid
       and t.line_hash = p.line_hash and t.timestamp = p.timestamp) t on true
   order by p.timestamp desc, p.workflow_execution_uuid, p.seq`;
/**
 * The matching lines up to `cap`, read first without their executions (`lines`), and the visible
 * matches among them counted (`visible`) by looking up each distinct execution of the lines once,
 * where a search's matches run several lines to an execution (four to one for the benchmark's
 * term at ten million). The count is taken from the lines counted per execution, not from a join
 * of each line to its execution's row: a generic plan expects few lines and would join them by
 * nested loop over the executions found. Exact while fewer than `cap` lines were read, or when
 * every one read is visible; the caller reads each line's execution otherwise (matchesWhere).
 */
const byExecution = (spans: string, cap: string) => `with lines as materialized (
     select l.workflow_execution_uuid, l.line_hash, l.timestamp, l.seq, l.node_id ${linesWhere(spans)} limit ${cap}),
   per_execution as materialized (
     select workflow_execution_uuid as uuid, count(*)::int as n from lines group by workflow_execution_uuid),
   visible as (
     select coalesce(sum(p.n), 0)::int as n from per_execution p
     join executions e on e.organization_id = $1 and e.uuid = p.uuid
     join workflows w on w.organization_id = $1 and w.uuid = e.workflow_uuid
     where ($5::uuid is null or e.workflow_uuid = $5))`;
const statements = (spans: string) => ({
  page: genericPlan(`select ${MATCH_COLUMNS}
   ${matchesWhere(spans)}
   order by l.timestamp desc, l.workflow_execution_uuid, l.seq
   limit $7 offset $8`),
  count: genericPlan(`select count(*)::int as n from (select 1 ${matchesWhere(spans)} limit $7) m`),
  /** The count as `count` has it, and the lines read (byExecution). */
  countByExecution: genericPlan(`${byExecution(spans, '$7')}
   select (select n from visible) as n, (select count(*)::int from lines) as lines`),
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
     ${matchesWhere(spans)} limit $9)
   select c.n, p.workflow_execution_uuid, p.workflow_uuid, p.workflow_name, p.node_id, p.timestamp, t.message
   from (select count(*)::int as n from m) c
   left join lateral (select * from m order by timestamp desc, workflow_execution_uuid, seq limit $7 offset $8) p on true
   ${WITH_MESSAGES}`),
  /**
   * The same from the lines read first (byExecution), with the lines read. The page walks the
   * lines newest first and looks up each one's execution until it has its lines: one probe a
   * line of the page (and of the pages before it).
   */
  countedByExecution: genericPlan(`${byExecution(spans, '$9')}
   select c.n, c.lines, p.workflow_execution_uuid, p.workflow_uuid, p.workflow_name, p.node_id, p.timestamp, t.message
   from (select (select n from visible) as n, (select count(*)::int from lines) as lines) c
   left join lateral (select s.*, x.workflow_uuid, x.workflow_name
     from (select * from lines order by timestamp desc, workflow_execution_uuid, seq) s
     join lateral (select e.workflow_uuid, w.name as workflow_name from executions e
       join workflows w on w.organization_id = $1 and w.uuid = e.workflow_uuid
       where e.organization_id = $1 and e.uuid = s.workflow_execution_uuid
         and ($5::uuid is null or e.workflow_uuid = $5)) x on true
     order by s.timestamp desc, s.workflow_execution_uuid, s.seq
     limit $7 offset $8) p on true
   ${WITH_MESSAGES}`),
  /** Every match's key, in the order of pages, up to `cap` ($7). */
  keys: genericPlan(`select l.workflow_execution_uuid, e.workflow_uuid, l.node_id, l.timestamp, l.line_hash
   ${matchesWhere(spans)}
   order by l.timestamp desc, l.workflow_execution_uuid, l.seq
   limit $7`),
});
const statementsFor = (search: LogSearch) => {
  const spans = spansOf(search.from.getTime(), search.to.getTime());
  return statements(
    spans === undefined ? 'true' : `wfapi_log_spans(l.timestamp) && '{${spans.join(',')}}'::bigint[]`,
  );
};

/**
 * The rows of `byExecution`, the statement that reads the lines first and looks up each distinct
 * execution once, when they are the answer; else of `eachLine`, which looks up each line's
 * execution. The first is not asked for one workflow's lines, which may be few among the lines
 * read, and its answer is not taken when the cap was reached with invisible lines among those
 * read (more visible ones may lie past them).
 */
async function countedRows<Row extends { n: number }>(
  db: Queryable,
  search: LogSearch,
  [byExecution, eachLine]: readonly [string, string],
  values: readonly unknown[],
  cap: number,
): Promise<Row[]> {
  if (search.workflowUuid === null) {
    const rows = await db.query<Row & { lines: number }>(byExecution, values);
    const head = rows[0];
    if (head !== undefined && (head.lines < cap || head.n >= cap)) return rows;
  }
  return db.query<Row>(eachLine, values);
}

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
  const statements = statementsFor(search);
  const values = [...params(organizationId, search), paging.limit, paging.offset, cap];
  const rows = await countedRows<CountedRow>(
    db,
    search,
    [statements.countedByExecution, statements.counted],
    values,
    cap,
  );
  const count = rows[0]?.n ?? 0;
  if (count >= cap) return { count, page: undefined };
  return {
    count,
    page: rows.flatMap(({ n: _n, lines: _lines, ...row }) =>
      row.workflow_execution_uuid === null ? [] : [row],
    ),
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
  const statements = statementsFor(search);
  const values = [...params(organizationId, search), cap];
  const [row] = await countedRows<{ n: number }>(
    db,
    search,
    [statements.countByExecution, statements.count],
    values,
    cap,
  );
  return row?.n ?? 0;
}
