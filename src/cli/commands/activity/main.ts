import type { Client, QueryResult } from '../../../client/index.js';
import { resolveWorkflow, type WorkflowRef } from '../../workflow-ref.js';

export interface Activity {
  /** Undefined for the whole organization. */
  readonly workflow: WorkflowRef | undefined;
  readonly from: string;
  readonly to: string;
  readonly buckets: NonNullable<QueryResult<'workflowActivity'>['data']>;
}

/** Success and failure counts per bucket over [from, to], for one workflow or the organization. */
export async function loadActivity(
  client: Client,
  ref: string | undefined,
  from: Date,
  to: Date,
): Promise<Activity> {
  const workflow = ref === undefined ? undefined : await resolveWorkflow(client, ref);
  const { data } = await client.workflowActivity({ workflowUUID: workflow?.uuid, from, to });
  return { workflow, from: from.toISOString(), to: to.toISOString(), buckets: data ?? [] };
}
