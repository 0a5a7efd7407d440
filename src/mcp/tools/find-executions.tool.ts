import { z } from 'zod';
import type { WorkflowExecution } from '../../schema/schema-types.generated.js';
import { clip } from '../answer-size.js';
import {
  cutPageNote,
  executionStatuses,
  pageAnswer,
  pageArguments,
  pagingOutput,
  timeArgument,
  workflowArgument,
} from '../arguments.js';
import { msText, timeText } from '../text.js';
import { defineTool } from '../tool.js';
import { scopeArguments } from '../workflow-ref.js';

const EXECUTIONS = `query McpFindExecutions($input: WorkflowExecutionsInput!) {
  workflowExecutions(input: $input) {
    count
    data { uuid id workflowUUID workflowName status classifiedStatus startedAt finishedAt errors { error count } }
  }
}`;

/** A row as the tool's query selects it. */
type Row = Pick<
  WorkflowExecution,
  | 'uuid'
  | 'id'
  | 'workflowUUID'
  | 'workflowName'
  | 'status'
  | 'classifiedStatus'
  | 'startedAt'
  | 'finishedAt'
  | 'errors'
>;

export const findExecutions = defineTool({
  name: 'find_executions',
  title: 'Find executions',
  description:
    'Executions, newest first (or oldest first), filtered by workflow (uuid or name), status, a time window on their start, an error group (`errorFingerprint` from error_groups or get_execution) or `search` (part of the execution id, uuid or workflow name). Each with its duration and first error.',
  input: {
    workflow: workflowArgument.optional().describe('A workflow by uuid or exact name; default: all'),
    status: executionStatuses,
    errorFingerprint: z
      .string()
      .regex(/^[0-9a-f]{16}$/, 'errorFingerprint must be 16 hex digits, as error_groups answers it')
      .optional()
      .describe('Only executions with an error of this group'),
    search: z.string().max(200, 'search must be at most 200 characters').optional(),
    from: timeArgument('from'),
    to: timeArgument('to'),
    order: z.enum(['newest', 'oldest']).default('newest').describe('By start time'),
    ...pageArguments,
  },
  output: {
    workflow: z.object({ name: z.string(), uuid: z.string() }).optional(),
    executions: z.array(
      z.object({
        uuid: z.string(),
        id: z.string(),
        workflowName: z.string(),
        workflowUUID: z.string(),
        status: z.string(),
        classifiedStatus: z.string().nullable(),
        startedAt: z.string(),
        finishedAt: z.string().nullable(),
        durationMs: z.number().nullable(),
        firstError: z.string().nullable(),
      }),
    ),
    ...pagingOutput,
  },
  needs: ['workflowExecutions'],
  lists: [{ key: 'executions', note: cutPageNote('executions') }],
  async run(args, graphql, now) {
    const { workflow, from, to } = await scopeArguments(graphql, args, now);
    const { workflowExecutions } = await graphql.run<{ workflowExecutions: { count: number; data: Row[] } }>(
      EXECUTIONS,
      {
        input: {
          ...(workflow && { workflowUuid: workflow.uuid }),
          ...(args.status && { status: args.status }),
          ...(args.errorFingerprint && { errorFingerprint: args.errorFingerprint }),
          ...(args.search !== undefined && { search: args.search }),
          ...(from && { from }),
          ...(to && { to }),
          orderBy: { field: 'STARTED_AT', order: args.order === 'oldest' ? 'ASC' : 'DESC' },
          page: { number: args.page, size: args.pageSize },
        },
      },
    );
    return {
      ...(workflow && { workflow }),
      executions: workflowExecutions.data.map((e) => {
        const first = e.errors?.find((error) => error !== null);
        return {
          uuid: e.uuid,
          id: clip(e.id, 200),
          workflowName: clip(e.workflowName, 200),
          workflowUUID: e.workflowUUID,
          status: e.status,
          classifiedStatus: e.classifiedStatus,
          startedAt: e.startedAt,
          finishedAt: e.finishedAt,
          durationMs: e.finishedAt ? Date.parse(e.finishedAt) - Date.parse(e.startedAt) : null,
          firstError: first ? clip(first.error, 300) : null,
        };
      }),
      ...pageAnswer(workflowExecutions.count, args, 'executions'),
    };
  },
  summarize(answer) {
    if (answer.count === 0) return 'No executions match.';
    const failures = answer.executions.filter((e) => e.status === 'FAILURE').length;
    const lines = answer.executions
      .slice(0, 10)
      .map(
        (e) =>
          `- ${e.workflowName} ${e.status} started ${timeText(e.startedAt)}, took ${e.finishedAt ? msText(e.durationMs) : 'still running'}${e.firstError ? `: ${clip(e.firstError, 120)}` : ''}; uuid ${e.uuid}`,
      );
    return [
      `${answer.count} executions match; page ${answer.page} has ${answer.executions.length}, ${failures} of them failed:`,
      ...lines,
      answer.more ?? '',
    ]
      .filter(Boolean)
      .join('\n');
  },
});
