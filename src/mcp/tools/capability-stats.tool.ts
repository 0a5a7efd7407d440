import { z } from 'zod';
import type { CapabilityStats } from '../../schema/schema-types.generated.js';
import { clip } from '../answer-size.js';
import {
  cutPageNote,
  pageAnswer,
  pageArguments,
  pagingOutput,
  timeArgument,
  workflowArgument,
} from '../arguments.js';
import { msText, percentText } from '../text.js';
import { defineTool } from '../tool.js';
import { scopeArguments } from '../workflow-ref.js';

const CAPABILITIES = `query McpCapabilityStats($input: CapabilityStatsInput!) {
  capabilityStats(input: $input) { count data { capabilityID calls failures failureRate p50Ms p95Ms } }
}`;

/** A row as the tool's query selects it. */
type Row = CapabilityStats;

export const capabilityStats = defineTool({
  name: 'capability_stats',
  title: 'Capability statistics',
  description:
    'Capability calls in a window (default: the last 24 hours), most failures first: calls, failures (an error, or a status neither COMPLETED nor SUCCESS), failure rate, p50 and p95 duration, for a workflow (uuid or name) or the organization.',
  input: {
    workflow: workflowArgument.optional().describe('A workflow by uuid or exact name; default: all'),
    from: timeArgument('from'),
    to: timeArgument('to'),
    ...pageArguments,
  },
  output: {
    workflow: z.object({ name: z.string(), uuid: z.string() }).optional(),
    capabilities: z.array(
      z.object({
        capabilityID: z.string(),
        calls: z.number().int(),
        failures: z.number().int(),
        failureRate: z.number(),
        p50Ms: z.number().nullable(),
        p95Ms: z.number().nullable(),
      }),
    ),
    ...pagingOutput,
  },
  needs: ['capabilityStats'],
  lists: [{ key: 'capabilities', note: cutPageNote('capabilities') }],
  async run(args, graphql, now) {
    const { workflow, from, to } = await scopeArguments(graphql, args, now);
    const { capabilityStats } = await graphql.run<{ capabilityStats: { count: number; data: Row[] } }>(
      CAPABILITIES,
      {
        input: {
          ...(workflow && { workflowUUID: workflow.uuid }),
          ...(from && { from }),
          ...(to && { to }),
          page: { number: args.page, size: args.pageSize },
        },
      },
    );
    return {
      ...(workflow && { workflow }),
      capabilities: capabilityStats.data.map((c) => ({ ...c, capabilityID: clip(c.capabilityID, 200) })),
      ...pageAnswer(capabilityStats.count, args, 'capabilities'),
    };
  },
  summarize(answer) {
    if (answer.count === 0) return 'No capability calls in the window.';
    const lines = answer.capabilities
      .slice(0, 10)
      .map(
        (c) =>
          `- ${c.capabilityID}: ${c.failures} of ${c.calls} calls failed (${percentText(c.failureRate)}), p50 ${msText(c.p50Ms)}, p95 ${msText(c.p95Ms)}`,
      );
    return [`${answer.count} capabilities, most failures first:`, ...lines, answer.more ?? '']
      .filter(Boolean)
      .join('\n');
  },
});
