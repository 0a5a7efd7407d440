import type { ApiScalars } from '../../schema/scalars.js';
import type {
  WorkflowExecution,
  WorkflowExecutionClassifiedStatus,
  WorkflowExecutionEvent,
  WorkflowExecutionLog,
  WorkflowExecutionStatus,
} from '../../schema/schema-types.generated.js';
import type { ListParent } from '../shared/list-parent.js';
import type { EventRow, ExecutionFilter, ExecutionOrder, ExecutionRow, LogRow } from './executions.store.js';

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

/** A `workflowExecutions` answer (no filter when the workflow uuid is malformed: nothing can match). */
export type ExecutionsOutputParent = ListParent<ExecutionFilter | undefined, ExecutionOrder>;
