import { type Client, type ItemOf, type QueryInput, WfapiError } from '../../../client/index.js';
import { type Collected, collectPages, pageSizeFor } from '../../collect-pages.js';
import { extendedOnlyName } from '../../hosted-schema.js';
import type { Impact } from '../../render/verdicts.js';
import { resolveWorkflow, type WorkflowRef } from '../../workflow-ref.js';

export type DeploymentsFilter = Omit<QueryInput<'workflowDeployments'>, 'page' | 'workflowUUID'>;

export interface WorkflowDeployments extends Collected<ItemOf<'workflowDeployments'>> {
  readonly workflow: WorkflowRef;
  /** Each listed deployment's verdict by uuid (deploymentImpact, wfapi's extended API). */
  readonly impacts: ReadonlyMap<string, Impact>;
}

/** The deployments of one workflow (by uuid or exact name), newest first, each with its verdict. */
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
  const listed = await collectPages(iterator, limit);
  let impacts: Map<string, Impact>;
  try {
    impacts = await impactsOf(client, workflow.uuid, listed.items, filter);
  } catch (error) {
    // A server with the hosted schema only has no verdicts: the list is shown without them.
    if (!(error instanceof WfapiError) || (await extendedOnlyName(error)) === undefined) throw error;
    impacts = new Map();
  }
  return { workflow, ...listed, impacts };
}

/**
 * The verdicts of the listed deployments: the same pages of deploymentImpact (same order) when
 * nothing filters the list, else one request per deployment listed.
 */
async function impactsOf(
  client: Client,
  workflowUuid: string,
  deployments: readonly ItemOf<'workflowDeployments'>[],
  filter: DeploymentsFilter,
): Promise<Map<string, Impact>> {
  if (deployments.length === 0) return new Map();
  const filtered = Object.values(filter).some((value) => value !== undefined && value !== null);
  const impacts = filtered
    ? await Promise.all(
        deployments.map(
          async (d) =>
            (await client.deploymentImpact({ workflowUUID: workflowUuid, deploymentUUID: d.uuid })).data[0]!,
        ),
      )
    : (
        await collectPages(
          client.paginate.deploymentImpact({
            workflowUUID: workflowUuid,
            page: { size: pageSizeFor(deployments.length) },
          }),
          deployments.length,
        )
      ).items;
  return new Map(impacts.map((impact) => [impact.deployment.uuid, impact]));
}
