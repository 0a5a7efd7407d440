import { z } from 'zod';
import type { Workflow } from '../../schema/schema-types.generated.js';
import { clip } from '../answer-size.js';
import { cutPageNote, deploymentStatuses, pageAnswer, pageArguments, pagingOutput } from '../arguments.js';
import { timeText } from '../text.js';
import { defineTool } from '../tool.js';

const WORKFLOWS = `query McpListWorkflows($input: WorkflowsInput!) {
  workflows(input: $input) {
    count
    data { uuid name status registeredAt executedAt executionCount executionCountByStatus { success failure } }
  }
}`;

/** A row as the tool's query selects it. */
type Row = Pick<
  Workflow,
  'uuid' | 'name' | 'status' | 'registeredAt' | 'executedAt' | 'executionCount' | 'executionCountByStatus'
>;

export const listWorkflows = defineTool({
  name: 'list_workflows',
  title: 'List workflows',
  description:
    "The organization's workflows, newest registered first: name, uuid, status, when each last ran and its execution counts over all time. `search` matches part of the name.",
  input: {
    search: z
      .string()
      .max(200, 'search must be at most 200 characters')
      .optional()
      .describe('Part of the name'),
    status: deploymentStatuses,
    ...pageArguments,
  },
  output: {
    workflows: z.array(
      z.object({
        name: z.string(),
        uuid: z.string(),
        status: z.string(),
        registeredAt: z.string(),
        lastExecutedAt: z.string().nullable(),
        executions: z.number().int(),
        successes: z.number().int(),
        failures: z.number().int(),
      }),
    ),
    ...pagingOutput,
  },
  needs: ['workflows'],
  lists: [{ key: 'workflows', note: cutPageNote('workflows') }],
  async run(args, graphql) {
    const { workflows } = await graphql.run<{ workflows: { count: number; data: Row[] } }>(WORKFLOWS, {
      input: {
        ...(args.search !== undefined && { search: args.search }),
        ...(args.status && { status: args.status }),
        page: { number: args.page, size: args.pageSize },
      },
    });
    return {
      workflows: workflows.data.map((w) => ({
        name: clip(w.name, 200),
        uuid: w.uuid,
        status: w.status,
        registeredAt: w.registeredAt,
        lastExecutedAt: w.executedAt,
        executions: w.executionCount,
        successes: w.executionCountByStatus.success,
        failures: w.executionCountByStatus.failure,
      })),
      ...pageAnswer(workflows.count, args, 'workflows'),
    };
  },
  summarize(answer) {
    if (answer.count === 0) return 'No workflows match.';
    const lines = answer.workflows
      .slice(0, 10)
      .map(
        (w) =>
          `- ${w.name} (${w.status}): ${w.executions} executions, ${w.failures} failed; last ran ${timeText(w.lastExecutedAt)}; uuid ${w.uuid}`,
      );
    const shown = answer.workflows.length > 10 ? ` (first 10 of the ${answer.workflows.length} here)` : '';
    return [`${answer.count} workflows; page ${answer.page}${shown}:`, ...lines, answer.more ?? '']
      .filter(Boolean)
      .join('\n');
  },
});
