import type { Client, QueryResult } from '../../../client/index.js';
import { CliError, EXIT } from '../../run.js';

type Execution = NonNullable<QueryResult<'workflowExecution'>['data']>;
type Events = NonNullable<QueryResult<'workflowExecutionEvents'>['data']>;
type Logs = NonNullable<QueryResult<'workflowExecutionLogs'>['data']>;

export interface ExecutionReport {
  readonly execution: Execution;
  /** Capability events by start time. */
  readonly events: Events;
  /** Log lines of every node by time. */
  readonly logs: Logs;
}

/** Everything about one execution, fetched in parallel; an unknown uuid ends with NOT_FOUND. */
export async function inspectExecution(client: Client, uuid: string): Promise<ExecutionReport> {
  const [execution, events, logs] = await Promise.all([
    client.workflowExecution({ uuid }),
    client.workflowExecutionEvents({ workflowExecutionUUID: uuid }),
    client.workflowExecutionLogs({ workflowExecutionUUID: uuid }),
  ]);
  if (!execution.data) {
    throw new CliError(`no execution ${uuid} (or it is not visible to this API key)`, EXIT.NOT_FOUND);
  }
  return { execution: execution.data, events: events.data ?? [], logs: logs.data ?? [] };
}
