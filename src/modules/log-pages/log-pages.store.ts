import type { Queryable } from '../../db/database.js';
import type { LogRow } from '../executions/executions.store.js';

/** Where a page starts: just after this line in the stored order (timestamp, then arrival). */
export interface LineKey {
  /** The line's timestamp in microseconds since 1970, exact (a Date keeps only milliseconds). */
  readonly atMicros: string;
  readonly seq: string;
}

/** A line's place in the stored order and what its text weighs, read without its text. */
export interface LineSize extends LineKey {
  /** UTF-8 bytes of its message and node ID. */
  readonly textBytes: number;
}

const FROM_VISIBLE = `from executions e join workflows w on w.organization_id = e.organization_id and w.uuid = e.workflow_uuid
  where e.organization_id = $1 and e.uuid = $2`;

/**
 * The key condition on lines `x`: after ($3, $4), or from the first when $3 is null. Columns are
 * named through `x` because the statements answer `seq` as text: a bare `seq` in their order
 * would sort by that text.
 */
const AFTER = `($3::bigint is null
    or (x.timestamp, x.seq) > (timestamptz 'epoch' + $3::bigint * interval '1 microsecond', $4::bigint))`;

/**
 * The sizes of up to $5 lines after the key, in order, joined to the visibility check as the
 * execution reads do (executions.store.ts): no row at all when the execution is not visible,
 * one row with null key when it is but no line follows. octet_length reads a stored value's size
 * without its text.
 */
const SIZES_AFTER = `select v.visible, l.at_micros, l.seq, l.text_bytes
  from (select exists (select 1 ${FROM_VISIBLE}) as visible) v
  left join lateral (
    select (extract(epoch from timestamp) * 1000000)::bigint::text as at_micros, seq::text as seq,
      (octet_length(message) + octet_length(node_id))::float8 as text_bytes, timestamp as at, seq as n
    from execution_logs x
    where x.organization_id = $1 and x.workflow_execution_uuid = $2 and ${AFTER}
    order by x.timestamp, x.seq limit $5) l on v.visible
  where v.visible
  order by l.at, l.n`;

const LINES_AFTER = `select node_id, message, timestamp,
    (extract(epoch from timestamp) * 1000000)::bigint::text as at_micros, seq::text as seq
  from execution_logs x
  where x.organization_id = $1 and x.workflow_execution_uuid = $2 and ${AFTER}
  order by x.timestamp, x.seq limit $5`;

const keyParams = (after: LineKey | null) => [after?.atMicros ?? null, after?.seq ?? null];

/**
 * The key and size of each of the first `limit` lines after `after` (from the first when null),
 * in the stored order; undefined when the execution is not visible to the organization (unknown,
 * another organization's, or its workflow not arrived yet).
 */
export async function lineSizesAfter(
  db: Queryable,
  organizationId: string,
  executionUuid: string,
  after: LineKey | null,
  limit: number,
): Promise<LineSize[] | undefined> {
  const rows = await db.query<{
    visible: boolean;
    at_micros: string | null;
    seq: string | null;
    text_bytes: number | null;
  }>(SIZES_AFTER, [organizationId, executionUuid, ...keyParams(after), limit]);
  if (rows.length === 0) return undefined;
  return rows.flatMap((row) =>
    row.at_micros === null || row.seq === null
      ? []
      : [{ atMicros: row.at_micros, seq: row.seq, textBytes: row.text_bytes ?? 0 }],
  );
}

/** A line of a page with its key, from which the next page starts. */
export type KeyedLogRow = LogRow & { at_micros: string; seq: string };

/** The first `limit` lines after `after`, in the stored order (the execution known visible). */
export async function linesAfter(
  db: Queryable,
  organizationId: string,
  executionUuid: string,
  after: LineKey | null,
  limit: number,
): Promise<KeyedLogRow[]> {
  return db.query<KeyedLogRow>(LINES_AFTER, [organizationId, executionUuid, ...keyParams(after), limit]);
}
