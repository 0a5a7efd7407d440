import type { Client, ItemOf, QueryInput } from '../../../client/index.js';
import { type Collected, collectPages, pageSizeFor } from '../../collect-pages.js';

export type WorkflowsFilter = Omit<QueryInput<'workflows'>, 'page'>;

/** The organization's workflows matching the filter, most recently registered first unless ordered. */
export async function listWorkflows(
  client: Client,
  filter: WorkflowsFilter,
  limit: number | undefined,
): Promise<Collected<ItemOf<'workflows'>>> {
  return collectPages(client.paginate.workflows({ ...filter, page: { size: pageSizeFor(limit) } }), limit);
}
