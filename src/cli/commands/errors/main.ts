import type { Client, ItemOf } from '../../../client/index.js';
import { collectPages, pageSizeFor } from '../../collect-pages.js';
import { resolveScope, type Scope, type ScopeOptions } from '../../insight-scope.js';

export interface ErrorsQuery extends ScopeOptions {
  /** Only errors this capability's events carried. */
  readonly capability?: string | undefined;
  readonly limit: number;
}

export interface ErrorGroups extends Scope {
  readonly capabilityID: string | null;
  /** Groups with at least one execution in the window. */
  readonly count: number;
  /** The first `limit` groups, most occurrences first. */
  readonly groups: ItemOf<'errorGroups'>[];
}

/** The window's error groups, most frequent first, each with its activity over the window. */
export async function loadErrorGroups(client: Client, query: ErrorsQuery): Promise<ErrorGroups> {
  const scope = await resolveScope(client, query);
  const { count, items } = await collectPages(
    client.paginate.errorGroups({
      workflowUUID: scope.workflow?.uuid,
      capabilityID: query.capability,
      from: scope.from,
      to: scope.to,
      page: { size: pageSizeFor(query.limit) },
    }),
    query.limit,
  );
  return { ...scope, capabilityID: query.capability ?? null, count, groups: items };
}
