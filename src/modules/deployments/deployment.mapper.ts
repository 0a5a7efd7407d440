import type { ApiScalars } from '../../schema/scalars.js';
import type {
  WorkflowDeployment,
  WorkflowDeploymentStatus,
  WorkflowDeploymentsInput,
} from '../../schema/schema-types.generated.js';
import type { DeploymentFilter, DeploymentRow } from './deployments.store.js';

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

/** A `workflowDeployments` answer: the page and the count are read only when selected. */
export interface DeploymentsOutputParent {
  /** Undefined when the workflow uuid is malformed: nothing can match. */
  readonly filter: DeploymentFilter | undefined;
  readonly input: WorkflowDeploymentsInput<ApiScalars>;
}
