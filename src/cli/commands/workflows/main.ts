import type { Client, ItemOf, QueryInput, WorkflowOrderBy } from '../../../client/index.js';
import { type Collected, collectPages, pageSizeFor } from '../../collect-pages.js';
import { type WindowCounts, windowCounts } from './window-counts.js';

export type WorkflowsFilter = Omit<QueryInput<'workflows'>, 'page' | 'orderBy'>;

/** A listed workflow with its counts over the window (`--window`). */
export type WorkflowRow = ItemOf<'workflows'> & { readonly window: WindowCounts };

export const SORTS = ['name', 'status', 'last-run', 'failure-rate', 'runs'] as const;
export type Sort = (typeof SORTS)[number];

/** Sorts the server does itself, so that --limit keeps the first rows of the whole sorted list. */
const SERVER_ORDER: Partial<Record<Sort, WorkflowOrderBy>> = {
  name: { field: 'NAME', order: 'ASC' },
  status: { field: 'STATUS', order: 'ASC' },
  'last-run': { field: 'EXECUTED_AT', order: 'DESC' },
};

const byName = (a: WorkflowRow, b: WorkflowRow) =>
  a.name.localeCompare(b.name) || a.uuid.localeCompare(b.uuid);

/** Sorts over the window's counts, done here: the highest failure rate, or the most runs, first. */
const CLIENT_ORDER: Partial<Record<Sort, (a: WorkflowRow, b: WorkflowRow) => number>> = {
  'failure-rate': (a, b) =>
    (b.window.failureRate ?? -1) - (a.window.failureRate ?? -1) ||
    b.window.failure - a.window.failure ||
    byName(a, b),
  runs: (a, b) => b.window.executionCount - a.window.executionCount || byName(a, b),
};

export interface ListOptions {
  readonly limit: number | undefined;
  readonly sort: Sort | undefined;
  /** Start of the window the failure rate and runs cover. */
  readonly from: Date;
}

/**
 * The organization's workflows matching the filter, most recently registered first unless
 * sorted, each with its counts over the window. Sorting by the window's counts needs every
 * workflow first, then keeps the first `limit`.
 */
export async function listWorkflows(
  client: Client,
  filter: WorkflowsFilter,
  { limit, sort, from }: ListOptions,
): Promise<Collected<WorkflowRow>> {
  const compare = sort === undefined ? undefined : CLIENT_ORDER[sort];
  const fetchLimit = compare ? undefined : limit;
  const orderBy = sort === undefined ? undefined : SERVER_ORDER[sort];
  const listed = await collectPages(
    client.paginate.workflows({ ...filter, orderBy, page: { size: pageSizeFor(fetchLimit) } }),
    fetchLimit,
  );
  const counts = await windowCounts(
    client,
    listed.items.map((w) => w.uuid),
    from,
  );
  const empty: WindowCounts = {
    from: from.toISOString(),
    executionCount: 0,
    success: 0,
    failure: 0,
    failureRate: null,
  };
  const rows = listed.items.map((w) => ({ ...w, window: counts.get(w.uuid) ?? empty }));
  return { count: listed.count, items: compare ? rows.sort(compare).slice(0, limit) : rows };
}
