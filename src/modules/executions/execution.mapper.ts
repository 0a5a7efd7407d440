import type { ApiScalars } from '../../schema/scalars.js';
import type {
  WorkflowExecution,
  WorkflowExecutionClassifiedStatus,
  WorkflowExecutionEvent,
  WorkflowExecutionLog,
  WorkflowExecutionStatus,
  WorkflowExecutionsInput,
} from '../../schema/schema-types.generated.js';
import type { EventRow, ExecutionFilter, ExecutionRow, LogRow } from './executions.store.js';

export function toExecution(row: ExecutionRow): WorkflowExecution<ApiScalars> {
  return {
    uuid: row.uuid,
    workflowUUID: row.workflow_uuid,
    id: row.id,
    workflowName: row.workflow_name,
    workflowId: row.workflow_id,
    status: row.status as WorkflowExecutionStatus,
    classifiedStatus: row.classified_status as WorkflowExecutionClassifiedStatus | null,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    creditUsed: row.credit_used,
    errors: row.errors,
    executedInTee: row.executed_in_tee,
  };
}

export function toLog(row: LogRow): WorkflowExecutionLog<ApiScalars> {
  return { nodeID: row.node_id, message: row.message, timestamp: row.timestamp };
}

export function toEvent(row: EventRow): WorkflowExecutionEvent<ApiScalars> {
  return {
    capabilityID: row.capability_id,
    status: row.status,
    method: row.method,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    errors: row.errors,
  };
}

/** A `workflowExecutions` answer: the page and the count are read only when selected. */
export interface ExecutionsOutputParent {
  /** Undefined when the workflow uuid filter is malformed: nothing can match. */
  readonly filter: ExecutionFilter | undefined;
  readonly input: WorkflowExecutionsInput<ApiScalars>;
}
