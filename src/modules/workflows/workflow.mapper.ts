import type { ApiScalars } from '../../schema/scalars.js';
import type { Workflow, WorkflowDeploymentStatus } from '../../schema/schema-types.generated.js';
import type { ListParent } from '../shared/list-parent.js';
import type { WorkflowFilter, WorkflowOrder, WorkflowRow } from './workflows.store.js';

/** The stored fields of a Workflow; its aggregates are resolved per field, only when asked for. */
export type WorkflowParent = Pick<
  Workflow<ApiScalars>,
  'uuid' | 'ownerAddress' | 'name' | 'workflowId' | 'status' | 'registeredAt' | 'workflowSource'
> & {
  /** Start of the aggregate window (ms); null means all time (the `workflows` list). */
  readonly windowFrom: number | null;
};

export function toWorkflow(row: WorkflowRow, windowFrom: number | null): WorkflowParent {
  return {
    uuid: row.uuid,
    ownerAddress: row.owner_address,
    name: row.name,
    workflowId: row.workflow_id,
    status: row.effective_status as WorkflowDeploymentStatus,
    registeredAt: row.registered_at,
    workflowSource: row.workflow_source,
    windowFrom,
  };
}

/** A `workflows` answer: the page and the count are read only when selected. */
export type WorkflowsOutputParent = ListParent<WorkflowFilter, WorkflowOrder>;
