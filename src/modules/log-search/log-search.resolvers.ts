import { badInput } from '../../errors.js';
import type { Resolvers } from '../../schema/resolver-types.generated.js';
import { once } from '../shared/once.js';
import { likePattern, toPaging } from '../shared/paging.js';
import { windowOf } from '../shared/time-window.js';
import { normalizeUuid } from '../shared/uuid.js';
import { countLogMatches, type LogSearch, searchLogs } from './log-search.store.js';

/** Matches counted exactly up to this many; pages end there too. */
export const MAX_COUNTED_MATCHES = 10_000;
const MIN_QUERY_LENGTH = 3;

export const logSearchResolvers: Resolvers = {
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
    data: async (parent, _args, ctx) =>
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
    count: async (parent) => Math.min(await parent.count(), MAX_COUNTED_MATCHES),
    countIsExact: async (parent) => (await parent.count()) <= MAX_COUNTED_MATCHES,
  },
};
