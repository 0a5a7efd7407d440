import type { AnomalyMetric, Client, QueryResult } from '../../../client/index.js';
import { resolveScope, type Scope, type ScopeOptions } from '../../insight-scope.js';

export interface AnomaliesQuery extends ScopeOptions {
  readonly metric?: AnomalyMetric[] | undefined;
  readonly sensitivity?: number | undefined;
}

export interface AnomaliesReport extends Scope {
  readonly sensitivity: number | null;
  readonly answer: QueryResult<'anomalies'>;
}

/** The anomalies of a window, and the scope's series of each metric. */
export async function loadAnomalies(client: Client, query: AnomaliesQuery): Promise<AnomaliesReport> {
  const scope = await resolveScope(client, query);
  const answer = await client.anomalies({
    workflowUUID: scope.workflow?.uuid,
    from: scope.from,
    to: scope.to,
    metrics: query.metric,
    sensitivity: query.sensitivity,
  });
  return { ...scope, sensitivity: query.sensitivity ?? null, answer };
}
