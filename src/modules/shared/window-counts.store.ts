import type { Queryable } from '../../db/database.js';
import { splitWindow, type TimeWindow } from './windows.js';

export interface CountedWindow extends TimeWindow {
  /** Caller's key for the answer. */
  readonly key: number;
  /** Count one workflow's executions; null counts every visible workflow of the organization. */
  readonly workflowUuid: string | null;
}

export interface WindowCounts {
  readonly total: number;
  readonly byStatus: ReadonlyMap<string, number>;
  readonly tee: number;
  /** Sum of creditUsed as a decimal string without trailing zeros. */
  readonly credit: string;
}

export const EMPTY_COUNTS: WindowCounts = Object.freeze({
  total: 0,
  byStatus: new Map(),
  tee: 0,
  credit: '0',
});

interface CountRow {
  window_key: number;
  status: string | null;
  n: number;
  tee: number;
  credit: string;
}

/**
 * The counting statement. Each piece is a lateral, parameterised index probe (rollups by
 * organization, grain, workflow and bucket; executions by organization, workflow and start), so
 * the cost follows the number of pieces, never the number of executions. Per-workflow windows
 * check once that their workflow is visible; organization-wide windows count visible workflows.
 */
function countSql(scope: 'workflow' | 'organization'): string {
  const perWorkflow = scope === 'workflow';
  const rollupScope = perWorkflow
    ? 'and r.workflow_uuid = p.workflow_uuid'
    : 'and r.workflow_uuid in (select uuid from workflows where organization_id = $1)';
  const executionScope = perWorkflow
    ? 'and e.workflow_uuid = p.workflow_uuid'
    : 'and e.workflow_uuid in (select uuid from workflows where organization_id = $1)';
  const visiblePiece = perWorkflow
    ? 'where exists (select 1 from workflows w where w.organization_id = $1 and w.uuid = p.workflow_uuid)'
    : '';
  return `with pieces as (
       select * from unnest($2::int[], $3::int[], $4::timestamptz[], $5::timestamptz[], $6::uuid[])
         as p(window_key, grain, lo, hi, workflow_uuid)
       ${visiblePiece}
     ),
     counted as (
       select p.window_key, c.status, c.n, c.tee, c.credit
       from pieces p
       cross join lateral (
         select r.status, r.execution_count as n, r.tee_count as tee, r.credit_used as credit
         from execution_rollups r
         where r.organization_id = $1 and r.grain = p.grain ${rollupScope}
           and r.bucket_start >= p.lo and r.bucket_start < coalesce(p.hi, 'infinity')
           and ($7::text[] is null or r.status = any($7))
       ) c
       where p.grain > 0
       union all
       select p.window_key, c.status, 1, c.tee, c.credit
       from pieces p
       cross join lateral (
         select e.status, case when e.executed_in_tee then 1 else 0 end as tee, coalesce(e.credit_used, 0) as credit
         from executions e
         where e.organization_id = $1 ${executionScope}
           and e.started_at >= p.lo and e.started_at < coalesce(p.hi, 'infinity')
           and ($7::text[] is null or e.status = any($7))
       ) c
       where p.grain = 0
     )
     select window_key, status, sum(n)::int8 as n, sum(tee)::int8 as tee, trim_scale(sum(credit))::text as credit
     from counted
     group by grouping sets ((window_key, status), (window_key))`;
}

const SQL = { workflow: countSql('workflow'), organization: countSql('organization') };

/**
 * Counts executions in many windows with at most two statements (per-workflow windows, and
 * organization-wide ones): rollup buckets for the aligned middle of each window, an index range
 * scan of executions for its edges. Only executions of workflows that exist are counted, like
 * every read. `statuses` restricts to those statuses.
 */
export async function countWindows(
  db: Queryable,
  organizationId: string,
  windows: readonly CountedWindow[],
  statuses?: readonly string[],
): Promise<Map<number, WindowCounts>> {
  const rows: CountRow[] = [];
  for (const scope of ['workflow', 'organization'] as const) {
    const keys: number[] = [];
    const grains: number[] = [];
    const froms: Date[] = [];
    const tos: (Date | null)[] = [];
    const workflows: (string | null)[] = [];
    for (const window of windows) {
      if ((window.workflowUuid !== null) !== (scope === 'workflow')) continue;
      for (const piece of splitWindow(window)) {
        keys.push(window.key);
        grains.push(piece.grain);
        froms.push(new Date(piece.from));
        tos.push(piece.to === null ? null : new Date(piece.to));
        workflows.push(window.workflowUuid);
      }
    }
    // Windows without pieces (to <= from) count nothing and still get an answer below.
    if (keys.length === 0) continue;
    rows.push(
      ...(await db.query<CountRow>(SQL[scope], [
        organizationId,
        keys,
        grains,
        froms,
        tos,
        workflows,
        statuses ?? null,
      ])),
    );
  }

  const partial = new Map<
    number,
    { total: number; byStatus: Map<string, number>; tee: number; credit: string }
  >();
  const entry = (key: number) => {
    const value = partial.get(key) ?? { total: 0, byStatus: new Map<string, number>(), tee: 0, credit: '0' };
    partial.set(key, value);
    return value;
  };
  for (const row of rows) {
    const value = entry(row.window_key);
    if (row.status === null) {
      value.total = row.n;
      value.tee = row.tee;
      value.credit = row.credit;
    } else {
      value.byStatus.set(row.status, row.n);
    }
  }
  return new Map(windows.map((window) => [window.key, partial.get(window.key) ?? EMPTY_COUNTS]));
}
