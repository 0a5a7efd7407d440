import type {
  Client,
  EventsOptions,
  ExecutionEvent,
  WorkflowExecutionStatus,
} from '../../../client/index.js';
import { resolveWorkflow } from '../../workflow-ref.js';

export interface WatchQuery {
  /** Workflow uuid or exact name. */
  readonly workflow?: string | undefined;
  readonly status?: readonly WorkflowExecutionStatus[] | undefined;
  /** Resume after this event id. */
  readonly lastEventId?: string | undefined;
  /** Also the changes judged history (a backfill of old executions); live ones only by default. */
  readonly history?: boolean | undefined;
}

/**
 * Tails the organization's execution changes until `options.signal` aborts (then resolves), or
 * a failure no reconnection can mend (then rejects). Each change is handed to `onEvent`.
 */
export async function watchExecutions(
  client: Client,
  query: WatchQuery,
  onEvent: (event: ExecutionEvent) => void,
  options: EventsOptions,
): Promise<void> {
  const workflowUUID =
    query.workflow === undefined ? undefined : (await resolveWorkflow(client, query.workflow)).uuid;
  const events = client.events(
    { workflowUUID, status: query.status, lastEventId: query.lastEventId, history: query.history },
    options,
  );
  for await (const event of events) onEvent(event);
}
