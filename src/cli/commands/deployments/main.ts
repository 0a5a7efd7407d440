import type { Client, ItemOf, QueryInput } from '../../../client/index.js';
import { type Collected, collectPages, pageSizeFor } from '../../collect-pages.js';
import { resolveWorkflow, type WorkflowRef } from '../../workflow-ref.js';

export type DeploymentsFilter = Omit<QueryInput<'workflowDeployments'>, 'page' | 'workflowUUID'>;

export interface WorkflowDeployments extends Collected<ItemOf<'workflowDeployments'>> {
  readonly workflow: WorkflowRef;
}

/** The deployments of one workflow (by uuid or exact name), newest first. */
export async function listDeployments(
  client: Client,
  ref: string,
  filter: DeploymentsFilter,
  limit: number | undefined,
): Promise<WorkflowDeployments> {
  const workflow = await resolveWorkflow(client, ref);
  const iterator = client.paginate.workflowDeployments({
    ...filter,
    workflowUUID: workflow.uuid,
    page: { size: pageSizeFor(limit) },
  });
  return { workflow, ...(await collectPages(iterator, limit)) };
}
