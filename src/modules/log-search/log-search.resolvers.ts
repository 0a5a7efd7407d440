import { badInput } from '../../errors.js';
import { subfieldNames } from '../../schema/selected-fields.js';
import type { RequestContext } from '../context.js';
import type { Resolvers } from '../resolver-types.generated.js';
import { LINE_OVERHEAD_BYTES, megabytes } from '../shared/answer-budget.js';
import { checkTextBound, likePattern, toPaging } from '../shared/paging.js';
import { windowOf } from '../shared/time-window.js';
import { workflowScope } from '../shared/workflow-scope.js';
import { type Asked, createLogSearchLoaders, MAX_COUNTED_MATCHES } from './log-search.loaders.js';
import type { SearchParent } from './log-search.mapper.js';
import type { LogMatchRow, LogSearch } from './log-search.store.js';

export { MAX_COUNTED_MATCHES };

/** The answer's search, when a line can match it. */
const asked = (parent: SearchParent) => (parent.search === null ? null : (parent as Asked));

/** The page of a search: read alone, or with the count when both are selected. */
async function pageOf(parent: SearchParent, ctx: RequestContext): Promise<LogMatchRow[]> {
  const search = asked(parent);
  if (search === null) return [];
  const loaders = ctx.loaders.of(createLogSearchLoaders);
  const together = search.together ? (await loaders.together.load(search)).page : undefined;
  return together ?? loaders.page.load(search);
}

/** The matches counted up to one past MAX_COUNTED_MATCHES. */
async function countOf(parent: SearchParent, ctx: RequestContext): Promise<number> {
  const search = asked(parent);
  if (search === null) return 0;
  const loaders = ctx.loaders.of(createLogSearchLoaders);
  return search.together ? (await loaders.together.load(search)).count : loaders.count.load(search);
}

const MIN_QUERY_LENGTH = 3;

export const logSearchResolvers: Resolvers = {
  Query: {
    searchExecutionLogs: async (_parent, { input }, ctx, info) => {
      if ([...input.query].length < MIN_QUERY_LENGTH) {
        throw badInput(`query must be at least ${MIN_QUERY_LENGTH} characters`);
      }
      checkTextBound('query', input.query);
      const window = windowOf(input);
      const paging = toPaging(input.page);
      if (paging.offset + paging.limit > MAX_COUNTED_MATCHES) {
        throw badInput(
          `searchExecutionLogs pages end at match ${MAX_COUNTED_MATCHES}: narrow the window or the query to see older matches`,
        );
      }
      const workflowUuid = await workflowScope(ctx, input.workflowUUID, 'unchecked');
      const selected = subfieldNames(info);
      // Both: one reading of the matches gives the count and, below the cap, the page.
      const together = selected.has('data') && (selected.has('count') || selected.has('countIsExact'));
      const windowNamed = window.fixed === 'both';
      if (workflowUuid === undefined) return { search: null, paging, together, windowNamed };
      const search: LogSearch = {
        pattern: likePattern(input.query),
        workflowUuid,
        nodeId: input.nodeID ?? null,
        from: new Date(window.from),
        to: new Date(window.to),
      };
      return { search, paging, together, windowNamed };
    },
  },
  SearchExecutionLogsOutput: {
    data: async (parent, _args, ctx) => {
      const rows = await pageOf(parent, ctx);
      // A page is at most 100 lines: it is measured once read, and refused before it is answered.
      const textBytes = rows.reduce(
        (sum, row) => sum + Buffer.byteLength(row.message) + Buffer.byteLength(row.node_id),
        0,
      );
      ctx.answerBytes.charge(
        textBytes + rows.length * LINE_OVERHEAD_BYTES,
        (max) =>
          `searchExecutionLogs: the page's ${rows.length} lines hold ${megabytes(textBytes)} of text, more than this answer may still carry (its budget is ${max}); ask for a smaller page`,
      );
      return rows.map((row) => ({
        workflowExecutionUUID: row.workflow_execution_uuid,
        workflowUUID: row.workflow_uuid,
        workflowName: row.workflow_name,
        nodeID: row.node_id,
        timestamp: row.timestamp,
        message: row.message,
      }));
    },
    count: async (parent, _args, ctx) => Math.min(await countOf(parent, ctx), MAX_COUNTED_MATCHES),
    countIsExact: async (parent, _args, ctx) => (await countOf(parent, ctx)) <= MAX_COUNTED_MATCHES,
  },
};
