import type { Client, QueryResult } from '../../../client/index.js';
import { errorGroupOf } from '../../../rollups/fingerprint.js';
import { CliError, EXIT } from '../../exit-codes.js';

type Execution = NonNullable<QueryResult<'workflowExecution'>['data']>;
type Events = NonNullable<QueryResult<'workflowExecutionEvents'>['data']>;
type Logs = NonNullable<QueryResult<'workflowExecutionLogs'>['data']>;

/** One error of the execution, at its own level or carried by one of its capability calls. */
export interface ErrorLine {
  readonly error: string;
  /** How many nodes reported it. */
  readonly count: number;
  /** The capability whose call carried it; undefined for the execution's own errors. */
  readonly capabilityID: string | undefined;
  /** The error group's fingerprint, as `wfapi errors` and `errorGroups` show it. */
  readonly fingerprint: string;
}

export interface ExecutionReport {
  readonly execution: Execution;
  /** Capability events by start time. */
  readonly events: Events;
  /** Log lines of every node by time. */
  readonly logs: Logs;
  /** The execution's own errors, then its calls' errors in order of start. */
  readonly errors: readonly ErrorLine[];
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
  const eventList = events.data ?? [];
  return {
    execution: execution.data,
    events: eventList,
    logs: logs.data ?? [],
    errors: [
      ...errorLines(execution.data.errors, undefined),
      ...eventList.flatMap((event) => errorLines(event.errors, event.capabilityID)),
    ],
  };
}

/**
 * The fingerprint is computed here by the server's own grouping function: a fingerprint depends
 * on the message alone, the same in every process, so it equals what `errorGroups` answers.
 */
function errorLines(
  errors: ReadonlyArray<{ readonly error: string; readonly count: number } | null> | null,
  capabilityID: string | undefined,
): ErrorLine[] {
  return (errors ?? []).flatMap((x) =>
    x
      ? [{ error: x.error, count: x.count, capabilityID, fingerprint: errorGroupOf(x.error).fingerprint }]
      : [],
  );
}
