import { z } from 'zod';
import { executionStatuses, timeArgument, workflowArgument } from '../arguments.js';
import { msText } from '../text.js';
import { defineTool } from '../tool.js';
import { scopeArguments } from '../workflow-ref.js';

const DURATIONS = `query McpDurationStats($input: DurationStatsInput!) {
  durationStats(input: $input) {
    data { count minMs maxMs meanMs p50Ms p90Ms p95Ms p99Ms histogram { fromMs toMs count } }
  }
}`;

const ms = z.number().nullable();

export const durationStats = defineTool({
  name: 'duration_stats',
  title: 'Duration statistics',
  description:
    'How long finished executions took (or calls of one capability, with `capabilityID`) that started in a window (default: the last 24 hours): count, min, mean, p50, p90, p95, p99 and max in milliseconds (percentiles within 2%), and a histogram of the non-empty buckets.',
  input: {
    workflow: workflowArgument.optional().describe('A workflow by uuid or exact name; default: all'),
    capabilityID: z.string().max(300).optional().describe("Durations of this capability's calls instead"),
    status: executionStatuses,
    from: timeArgument('from'),
    to: timeArgument('to'),
  },
  output: {
    workflow: z.object({ name: z.string(), uuid: z.string() }).optional(),
    capabilityID: z.string().optional(),
    count: z.number().int(),
    minMs: ms,
    meanMs: ms,
    p50Ms: ms,
    p90Ms: ms,
    p95Ms: ms,
    p99Ms: ms,
    maxMs: ms,
    histogram: z.array(z.object({ fromMs: z.number(), toMs: z.number(), count: z.number().int() })),
    more: z.string().optional(),
  },
  needs: ['durationStats'],
  lists: [
    {
      key: 'histogram',
      note: (leftOut) =>
        `${leftOut} histogram buckets (the longest durations) were left out to keep the answer under 20,000 characters; narrow the window with from/to to see them.`,
    },
  ],
  async run(args, graphql, now) {
    const { workflow, from, to } = await scopeArguments(graphql, args, now);
    const { durationStats } = await graphql.run<{
      durationStats: {
        data: {
          count: number;
          minMs: number | null;
          maxMs: number | null;
          meanMs: number | null;
          p50Ms: number | null;
          p90Ms: number | null;
          p95Ms: number | null;
          p99Ms: number | null;
          histogram: Array<{ fromMs: number; toMs: number; count: number }>;
        };
      };
    }>(DURATIONS, {
      input: {
        ...(workflow && { workflowUUID: workflow.uuid }),
        ...(args.capabilityID !== undefined && { capabilityID: args.capabilityID }),
        ...(args.status && { status: args.status }),
        ...(from && { from }),
        ...(to && { to }),
      },
    });
    return {
      ...(workflow && { workflow }),
      ...(args.capabilityID !== undefined && { capabilityID: args.capabilityID }),
      ...durationStats.data,
    };
  },
  summarize(answer) {
    const what = answer.capabilityID ? `calls of ${answer.capabilityID}` : 'finished executions';
    const scope = answer.workflow ? ` of ${answer.workflow.name}` : '';
    if (answer.count === 0) return `No ${what}${scope} in the window.`;
    return `${answer.count} ${what}${scope}: p50 ${msText(answer.p50Ms)}, p95 ${msText(answer.p95Ms)}, p99 ${msText(answer.p99Ms)}, max ${msText(answer.maxMs)} (min ${msText(answer.minMs)}, mean ${msText(answer.meanMs)}).${answer.more ? `\n${answer.more}` : ''}`;
  },
});
