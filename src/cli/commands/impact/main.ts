import type { Client } from '../../../client/index.js';
import type { Impact } from '../../render/verdicts.js';
import { resolveWorkflow, type WorkflowRef } from '../../workflow-ref.js';

export interface DeploymentImpactReport {
  readonly workflow: WorkflowRef;
  /** Null when the workflow has no deployment. */
  readonly impact: Impact | null;
}

/** One deployment's impact: the one named, or the workflow's latest. */
export async function loadImpact(
  client: Client,
  ref: string,
  deploymentUuid: string | undefined,
): Promise<DeploymentImpactReport> {
  const workflow = await resolveWorkflow(client, ref);
  const { data } = await client.deploymentImpact({
    workflowUUID: workflow.uuid,
    ...(deploymentUuid ? { deploymentUUID: deploymentUuid } : { page: { size: 1 } }),
  });
  return { workflow, impact: data[0] ?? null };
}
