import type { Client, ItemOf, QueryResult } from '../../../client/index.js';
import { resolveWorkflow } from '../../workflow-ref.js';

export interface WorkflowDetails {
  readonly workflow: QueryResult<'workflow'>['data'];
  /** Start of the window of the execution counts and credit. */
  readonly since: string;
  readonly latestDeployment: ItemOf<'workflowDeployments'> | null;
}

/** One workflow (by uuid or exact name) with its counts since `since` and its latest deployment. */
export async function showWorkflow(client: Client, ref: string, since: Date): Promise<WorkflowDetails> {
  const { uuid } = await resolveWorkflow(client, ref);
  const [{ data }, deployments] = await Promise.all([
    client.workflow({ uuid, from: since }),
    client.workflowDeployments({ workflowUUID: uuid, page: { size: 1 } }),
  ]);
  return { workflow: data, since: since.toISOString(), latestDeployment: deployments.data[0] ?? null };
}
