import type { Client, ItemOf } from '../../../client/index.js';
import { collectPages, pageSizeFor } from '../../collect-pages.js';
import { resolveScope, type Scope, type ScopeOptions } from '../../insight-scope.js';

export interface CapabilitiesQuery extends ScopeOptions {
  /** Undefined: every capability called in the window. */
  readonly limit?: number | undefined;
}

export interface CapabilityHealth extends Scope {
  /** Capabilities called in the window. */
  readonly count: number;
  /** Most failures first. */
  readonly capabilities: ItemOf<'capabilityStats'>[];
}

/** Calls, failures, failure rate and latency of each capability called in the window. */
export async function loadCapabilities(client: Client, query: CapabilitiesQuery): Promise<CapabilityHealth> {
  const scope = await resolveScope(client, query);
  const { count, items } = await collectPages(
    client.paginate.capabilityStats({
      workflowUUID: scope.workflow?.uuid,
      from: scope.from,
      to: scope.to,
      page: { size: pageSizeFor(query.limit) },
    }),
    query.limit,
  );
  return { ...scope, count, capabilities: items };
}
