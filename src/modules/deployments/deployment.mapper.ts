import type { ApiScalars } from '../../schema/scalars.js';
import type { WorkflowDeployment, WorkflowDeploymentStatus } from '../../schema/schema-types.generated.js';
import type { ListParent } from '../shared/list-parent.js';
import type { DeploymentFilter, DeploymentOrder, DeploymentRow } from './deployments.store.js';

/** The stored fields of a deployment; its execution aggregates are resolved only when asked for. */
export type DeploymentParent = Omit<
  WorkflowDeployment<ApiScalars>,
  'executionCountByStatus' | 'hasTeeExecutions' | 'hasNonTeeExecutions'
> & {
  readonly workflowUuid: string;
  readonly supersededAt: Date | null;
};

export function toDeployment(row: DeploymentRow): DeploymentParent {
  return {
    uuid: row.uuid,
    workflowID: row.workflow_id,
    status: row.status as WorkflowDeploymentStatus,
    deployedAt: row.deployed_at,
    txHash: row.tx_hash,
    errorMessage: row.error_message,
    binaryURL: row.binary_url,
    configURL: row.config_url,
    workflowSource: row.workflow_source,
    workflowUuid: row.workflow_uuid,
    supersededAt: row.superseded_at,
  };
}

/** A `workflowDeployments` answer (no filter when the workflow uuid is malformed: nothing can match). */
export type DeploymentsOutputParent = ListParent<DeploymentFilter | undefined, DeploymentOrder>;
