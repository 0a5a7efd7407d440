import { z } from 'zod';
import { clip } from '../answer-size.js';
import { workflowArgument } from '../arguments.js';
import { percentText } from '../text.js';
import { defineTool } from '../tool.js';
import { optionalWorkflow } from '../workflow-ref.js';

/** Contract section 7, "Service level objectives": offered once the schema has `serviceLevels`. */
const LEVELS = `query McpServiceLevels($input: ServiceLevelsInput!) {
  serviceLevels(input: $input) {
    data {
      id name workflowUUID workflowName indicator target thresholdMs periodDays
      total good attainment errorBudgetRemaining burnRates { window total bad rate } status
    }
  }
}`;

const levelShape = z.object({
  id: z.string(),
  name: z.string(),
  workflowUUID: z.string().nullable(),
  workflowName: z.string().nullable(),
  indicator: z.string(),
  target: z.number(),
  thresholdMs: z.number().nullable(),
  periodDays: z.number().int(),
  total: z.number().int(),
  good: z.number().int(),
  attainment: z.number().nullable(),
  errorBudgetRemaining: z.number().nullable(),
  burnRates: z.array(
    z.object({
      window: z.string(),
      total: z.number().int(),
      bad: z.number().int(),
      rate: z.number().nullable(),
    }),
  ),
  status: z.string().describe('OK, TICKET, PAGE or NO_DATA'),
});

export const serviceLevels = defineTool({
  name: 'service_levels',
  title: 'Service levels',
  description:
    "The organization's service level objectives (or a workflow's, by uuid or name): attainment over each objective's period, error budget left, burn rates over 5m to 3d, and a status (PAGE, TICKET, OK, NO_DATA).",
  input: {
    workflow: workflowArgument
      .optional()
      .describe('Only the objectives of this workflow (uuid or exact name)'),
  },
  output: {
    workflow: z.object({ name: z.string(), uuid: z.string() }).optional(),
    objectives: z.array(levelShape),
    count: z.number().int(),
    more: z.string().optional(),
  },
  needs: ['serviceLevels'],
  lists: [
    {
      key: 'objectives',
      note: (leftOut) =>
        `${leftOut} objectives were left out to keep the answer under 20,000 characters; name a workflow to narrow.`,
    },
  ],
  async run(args, graphql, now) {
    const workflow = await optionalWorkflow(graphql, args.workflow, now);
    const { serviceLevels } = await graphql.run<{
      serviceLevels: { data: Array<z.infer<typeof levelShape>> };
    }>(LEVELS, {
      input: { ...(workflow && { workflowUUID: workflow.uuid }) },
    });
    // The objectives that need attention first; the API's order (by name) breaks ties.
    const rank = { PAGE: 0, TICKET: 1, OK: 2, NO_DATA: 3 } as Record<string, number>;
    const objectives = serviceLevels.data
      .map((level) => ({ ...level, name: clip(level.name, 200) }))
      .sort((a, b) => (rank[a.status] ?? 4) - (rank[b.status] ?? 4));
    return { ...(workflow && { workflow }), objectives, count: objectives.length };
  },
  summarize(a) {
    if (a.count === 0) return 'No service level objectives.';
    const lines = a.objectives
      .slice(0, 10)
      .map(
        (o) =>
          `- ${o.status}: ${o.name} (${o.indicator} ${percentText(o.target)} over ${o.periodDays}d${o.workflowName ? `, ${o.workflowName}` : ''}): attainment ${percentText(o.attainment)}, error budget left ${percentText(o.errorBudgetRemaining)}`,
      );
    return [`${a.count} objectives, the ones that need attention first:`, ...lines, a.more ?? '']
      .filter(Boolean)
      .join('\n');
  },
});
