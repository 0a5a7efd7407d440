import type { Client, QueryResult, WorkflowExecutionStatus } from '../../../client/index.js';
import { resolveScope, type Scope, type ScopeOptions } from '../../insight-scope.js';

export interface DurationsQuery extends ScopeOptions {
  /** The durations of this capability's calls instead of whole executions. */
  readonly capability?: string | undefined;
  readonly status?: WorkflowExecutionStatus[] | undefined;
}

export interface Durations extends Scope {
  readonly capabilityID: string | null;
  readonly status: WorkflowExecutionStatus[] | null;
  readonly stats: QueryResult<'durationStats'>['data'];
}

/** Percentiles, exact min, max and mean, and the histogram of the window's durations. */
export async function loadDurations(client: Client, query: DurationsQuery): Promise<Durations> {
  const scope = await resolveScope(client, query);
  const { data } = await client.durationStats({
    workflowUUID: scope.workflow?.uuid,
    capabilityID: query.capability,
    status: query.status,
    from: scope.from,
    to: scope.to,
  });
  return { ...scope, capabilityID: query.capability ?? null, status: query.status ?? null, stats: data };
}
