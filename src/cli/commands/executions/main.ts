import type { Client, ItemOf, QueryInput } from '../../../client/index.js';
import { type Collected, collectPages, pageSizeFor } from '../../collect-pages.js';
import { resolveWorkflow } from '../../workflow-ref.js';

export interface ExecutionsQuery extends Omit<QueryInput<'workflowExecutions'>, 'page' | 'workflowUuid'> {
  /** Workflow uuid or exact name. */
  readonly workflow?: string | undefined;
}

/** Executions matching the query, newest first, at most `limit` of them. */
export async function listExecutions(
  client: Client,
  { workflow, ...filter }: ExecutionsQuery,
  limit: number,
): Promise<Collected<ItemOf<'workflowExecutions'>>> {
  const workflowUuid = workflow === undefined ? undefined : (await resolveWorkflow(client, workflow)).uuid;
  const iterator = client.paginate.workflowExecutions({
    ...filter,
    workflowUuid,
    page: { size: pageSizeFor(limit) },
  });
  return collectPages(iterator, limit);
}
