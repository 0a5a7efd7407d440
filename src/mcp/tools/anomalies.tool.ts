import { z } from 'zod';
import { clip } from '../answer-size.js';
import { timeArgument, workflowArgument } from '../arguments.js';
import { timeText } from '../text.js';
import { defineTool } from '../tool.js';
import { scopeArguments } from '../workflow-ref.js';

/** Contract section 7, "Anomalies": the tool is offered once the schema has `anomalies`. */
const ANOMALIES = `query McpAnomalies($input: AnomaliesInput!) {
  anomalies(input: $input) {
    data { metric workflowUUID workflowName from to observed expected lower upper direction score }
  }
}`;

const METRICS = ['EXECUTIONS', 'FAILURE_RATE', 'DURATION_P95'] as const;
const anomalyShape = z.object({
  metric: z.enum(METRICS),
  workflowUUID: z.string().nullable(),
  workflowName: z.string().nullable(),
  from: z.string(),
  to: z.string(),
  observed: z.number(),
  expected: z.number(),
  lower: z.number(),
  upper: z.number(),
  direction: z.string().describe('UP or DOWN'),
  score: z.number(),
});

export const anomalies = defineTool({
  name: 'anomalies',
  title: 'Anomalies',
  description:
    'Buckets of a window (default: the last 24 hours) where executions, failure rate or p95 duration left the band expected from the same time of the week over the four weeks before (or the 8 buckets before): newest first, then by score. For a workflow (uuid or name) or the organization and each of its workflows.',
  input: {
    workflow: workflowArgument
      .optional()
      .describe('A workflow by uuid or exact name; default: the organization and each workflow'),
    metrics: z.array(z.enum(METRICS)).min(1, 'metrics takes at least one metric').max(3).optional(),
    from: timeArgument('from'),
    to: timeArgument('to'),
    sensitivity: z
      .number()
      .min(1, 'sensitivity must be between 1 and 10')
      .max(10, 'sensitivity must be between 1 and 10')
      .optional()
      .describe('Width of the band in spreads (default 3): higher flags fewer buckets'),
  },
  output: {
    workflow: z.object({ name: z.string(), uuid: z.string() }).optional(),
    anomalies: z.array(anomalyShape),
    count: z.number().int(),
    more: z.string().optional(),
  },
  needs: ['anomalies'],
  lists: [
    {
      key: 'anomalies',
      note: (leftOut) =>
        `${leftOut} anomalies (the oldest) were left out to keep the answer under 20,000 characters; narrow from/to or name a workflow to read them.`,
    },
  ],
  async run(args, graphql, now) {
    const { workflow, from, to } = await scopeArguments(graphql, args, now);
    const { anomalies } = await graphql.run<{ anomalies: { data: Array<z.infer<typeof anomalyShape>> } }>(
      ANOMALIES,
      {
        input: {
          ...(workflow && { workflowUUID: workflow.uuid }),
          ...(args.metrics && { metrics: args.metrics }),
          ...(from && { from }),
          ...(to && { to }),
          ...(args.sensitivity !== undefined && { sensitivity: args.sensitivity }),
        },
      },
    );
    return {
      ...(workflow && { workflow }),
      anomalies: anomalies.data.map((a) => ({
        ...a,
        workflowName: a.workflowName === null ? null : clip(a.workflowName, 200),
      })),
      count: anomalies.data.length,
    };
  },
  summarize(a) {
    if (a.count === 0) return `No anomalies${a.workflow ? ` for ${a.workflow.name}` : ''} in the window.`;
    const lines = a.anomalies.slice(0, 8).map((x) => {
      const scope = x.workflowName ?? 'the organization';
      return `- ${scope} ${x.metric} ${x.direction} at ${timeText(x.from)}: observed ${Number(x.observed.toFixed(3))}, expected ${Number(x.expected.toFixed(3))} (band ${Number(x.lower.toFixed(3))}..${Number(x.upper.toFixed(3))}, score ${x.score.toFixed(1)})`;
    });
    return [`${a.count} anomalies, newest first:`, ...lines, a.more ?? ''].filter(Boolean).join('\n');
  },
});
