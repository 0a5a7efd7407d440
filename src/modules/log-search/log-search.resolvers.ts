import type { RequestContext } from '../../context.js';
import { badInput } from '../../errors.js';
import type { ModuleResolvers } from '../../graphql/resolver-types.js';
import { once } from '../shared/once.js';
import { likePattern, type Paging, toPaging } from '../shared/paging.js';
import { windowOf } from '../shared/time-window.js';
import { normalizeUuid } from '../shared/uuid.js';
import { countLogMatches, type LogSearch, searchLogs } from './log-search.store.js';

/** Matches counted exactly up to this many; pages end there too. */
export const MAX_COUNTED_MATCHES = 10_000;
const MIN_QUERY_LENGTH = 3;

interface SearchParent {
  /** Undefined when the workflow filter cannot match anything. */
  readonly search: LogSearch | undefined;
  readonly paging: Paging;
  /** Matches counted up to one past the cap, once for both count fields. */
  readonly count: () => Promise<number>;
}

export const logSearchResolvers: ModuleResolvers = {
  Query: {
    searchExecutionLogs: async (_parent, { input }, ctx) => {
      if ([...input.query].length < MIN_QUERY_LENGTH) {
        throw badInput(`query must be at least ${MIN_QUERY_LENGTH} characters`);
      }
      const window = windowOf(input);
      const paging = toPaging(input.page);
      if (paging.offset + paging.limit > MAX_COUNTED_MATCHES) {
        throw badInput(
          `searchExecutionLogs pages end at match ${MAX_COUNTED_MATCHES}: narrow the window or the query to see older matches`,
        );
      }
      let workflowUuid: string | null = null;
      if (input.workflowUUID !== undefined && input.workflowUUID !== null) {
        const uuid = normalizeUuid(input.workflowUUID);
        if (uuid === undefined) return { search: undefined, paging, count: async () => 0 };
        workflowUuid = uuid;
      }
      const search: LogSearch = {
        pattern: likePattern(input.query),
        workflowUuid,
        nodeId: input.nodeID ?? null,
        from: new Date(window.from),
        to: new Date(window.to),
      };
      return {
        search,
        paging,
        count: once(() => countLogMatches(ctx.db, ctx.organizationId, search, MAX_COUNTED_MATCHES + 1)),
      };
    },
  },
  SearchExecutionLogsOutput: {
    data: async (parent: SearchParent, _args: never, ctx: RequestContext) =>
      (parent.search === undefined
        ? []
        : await searchLogs(ctx.db, ctx.organizationId, parent.search, parent.paging)
      ).map((row) => ({
        workflowExecutionUUID: row.workflow_execution_uuid,
        workflowUUID: row.workflow_uuid,
        workflowName: row.workflow_name,
        nodeID: row.node_id,
        timestamp: row.timestamp,
        message: row.message,
      })),
    count: async (parent: SearchParent) => Math.min(await parent.count(), MAX_COUNTED_MATCHES),
    countIsExact: async (parent: SearchParent) => (await parent.count()) <= MAX_COUNTED_MATCHES,
  },
};
