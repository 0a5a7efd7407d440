import type { Client, ItemOf } from '../../../client/index.js';
import { collectPages, pageSizeFor } from '../../collect-pages.js';
import { resolveScope, type Scope, type ScopeOptions } from '../../insight-scope.js';

/** Matches the API counts and pages through: beyond it, `count` stops and pages are refused. */
export const SEARCH_CAP = 10_000;

export interface LogSearchQuery extends ScopeOptions {
  readonly node?: string | undefined;
  readonly limit: number;
}

export interface LogSearch extends Scope {
  readonly query: string;
  readonly nodeID: string | null;
  /** Matching lines of the window, exact up to 10,000 (then 10,000 and `countIsExact` false). */
  readonly count: number;
  readonly countIsExact: boolean;
  /** The newest `limit` matching lines, newest first, as the API orders them. */
  readonly lines: ItemOf<'searchExecutionLogs'>[];
}

/** The window's log lines containing `text` (case-insensitive), fetched page by page. */
export async function searchLogs(client: Client, text: string, query: LogSearchQuery): Promise<LogSearch> {
  const scope = await resolveScope(client, query);
  const { count, items, last } = await collectPages(
    client.paginate.searchExecutionLogs({
      query: text,
      workflowUUID: scope.workflow?.uuid,
      nodeID: query.node,
      from: scope.from,
      to: scope.to,
      // A page may not reach past the cap. Pages of 100 (any limit of 100 or more) end exactly on
      // it, since 100 divides 10,000; a smaller limit is one page.
      page: { size: pageSizeFor(Math.min(query.limit, SEARCH_CAP)) },
    }),
    query.limit,
  );
  return {
    ...scope,
    query: text,
    nodeID: query.node ?? null,
    count,
    countIsExact: last?.countIsExact ?? true,
    lines: items,
  };
}
