import { badInput } from '../../errors.js';
import { normalizeUuid } from '../../lib/uuid.js';
import { toLog } from '../executions/execution.mapper.js';
import type { Resolvers } from '../resolver-types.generated.js';
import { LINE_OVERHEAD_BYTES, megabytes } from '../shared/answer-budget.js';
import { decodeCursor, encodeCursor } from './log-page-cursor.js';
import { type LineSize, lineSizesAfter, linesAfter } from './log-pages.store.js';

/** Lines per page at most, and by default. */
export const MAX_PAGE_LINES = 1_000;

const NONE = { data: null, next: null };

/** The bytes an answer line costs: its text and its JSON. */
const costOf = (line: LineSize) => line.textBytes + LINE_OVERHEAD_BYTES;

/** How many of `lines`, from the first, fit in `bytes`, and what they cost. */
function fitting(lines: readonly LineSize[], bytes: number): { count: number; cost: number } {
  let cost = 0;
  let count = 0;
  for (const line of lines) {
    if (cost + costOf(line) > bytes) break;
    cost += costOf(line);
    count++;
  }
  return { count, cost };
}

export const logPagesResolvers: Resolvers = {
  Query: {
    workflowExecutionLogPage: async (_parent, { input }, ctx) => {
      const size = input.size ?? MAX_PAGE_LINES;
      if (size < 1) throw badInput('size must be at least 1');
      if (size > MAX_PAGE_LINES) throw badInput(`size must be at most ${MAX_PAGE_LINES}`);
      const after = input.after === undefined || input.after === null ? null : decodeCursor(input.after);
      const uuid = normalizeUuid(input.workflowExecutionUUID);
      if (uuid === undefined) return NONE;
      // The sizes of one line more than the page: whether a next page exists, decided unread.
      const sizes = await lineSizesAfter(ctx.db, ctx.organizationId, uuid, after, size + 1);
      if (sizes === undefined) return NONE;
      const page = sizes.slice(0, size);
      let { count, cost } = fitting(page, ctx.answerBytes.remaining);
      const first = page[0];
      if (count === 0 && first !== undefined) {
        // Its first line alone passes what remains: answered alone when the answer is untouched
        // (a budget configured below one line), refused when earlier fields took the budget.
        if (!ctx.answerBytes.untouched) {
          throw badInput(
            `workflowExecutionLogPage: the page's first line holds ${megabytes(first.textBytes)} of text, more than this answer may still carry (its budget is ${megabytes(ctx.answerBytes.max)}); ask for this page in a request of its own`,
          );
        }
        count = 1;
        cost = costOf(first);
      }
      ctx.answerBytes.take(cost);
      if (count === 0) return { data: [], next: null };
      const rows = await linesAfter(ctx.db, ctx.organizationId, uuid, after, count);
      const last = rows.at(-1);
      const more = count < sizes.length && last !== undefined;
      return {
        data: rows.map(toLog),
        next: more ? encodeCursor({ atMicros: last.at_micros, seq: last.seq }) : null,
      };
    },
  },
};
