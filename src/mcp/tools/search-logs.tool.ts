import { z } from 'zod';
import type { ExecutionLogMatch } from '../../schema/schema-types.generated.js';
import { clip } from '../answer-size.js';
import {
  cutPageNote,
  nextPageNote,
  pageArguments,
  pagingOutput,
  timeArgument,
  workflowArgument,
} from '../arguments.js';
import { timeText } from '../text.js';
import { defineTool } from '../tool.js';
import { scopeArguments } from '../workflow-ref.js';

const SEARCH = `query McpSearchLogs($input: SearchExecutionLogsInput!) {
  searchExecutionLogs(input: $input) {
    count countIsExact
    data { workflowExecutionUUID workflowUUID workflowName nodeID timestamp message }
  }
}`;

/** A row as the tool's query selects it. */
type Row = ExecutionLogMatch;

export const searchLogs = defineTool({
  name: 'search_logs',
  title: 'Search log lines',
  description:
    'Log lines whose message contains `query` (case-insensitive, at least 3 characters), newest first, in a window (default: the last 24 hours), for a workflow (uuid or name) and/or a node.',
  input: {
    query: z
      .string()
      .min(3, 'query must have at least 3 characters')
      .max(200, 'query must be at most 200 characters'),
    workflow: workflowArgument.optional().describe('A workflow by uuid or exact name; default: all'),
    nodeID: z.string().max(300).optional(),
    from: timeArgument('from'),
    to: timeArgument('to'),
    ...pageArguments,
  },
  output: {
    workflow: z.object({ name: z.string(), uuid: z.string() }).optional(),
    lines: z.array(
      z.object({
        timestamp: z.string(),
        workflowName: z.string(),
        workflowUUID: z.string(),
        executionUUID: z.string(),
        nodeID: z.string(),
        message: z.string(),
      }),
    ),
    countIsExact: z.boolean().describe('false when count stopped at 10,000'),
    ...pagingOutput,
  },
  needs: ['searchExecutionLogs'],
  lists: [{ key: 'lines', note: cutPageNote('lines') }],
  async run(args, graphql, now) {
    const { workflow, from, to } = await scopeArguments(graphql, args, now);
    const { searchExecutionLogs } = await graphql.run<{
      searchExecutionLogs: { count: number; countIsExact: boolean; data: Row[] };
    }>(SEARCH, {
      input: {
        query: args.query,
        ...(workflow && { workflowUUID: workflow.uuid }),
        ...(args.nodeID !== undefined && { nodeID: args.nodeID }),
        ...(from && { from }),
        ...(to && { to }),
        page: { number: args.page, size: args.pageSize },
      },
    });
    const { count, countIsExact } = searchExecutionLogs;
    return {
      ...(workflow && { workflow }),
      lines: searchExecutionLogs.data.map((line) => ({
        timestamp: line.timestamp,
        workflowName: clip(line.workflowName, 200),
        workflowUUID: line.workflowUUID,
        executionUUID: line.workflowExecutionUUID,
        nodeID: clip(line.nodeID, 200),
        message: clip(line.message),
      })),
      countIsExact,
      count,
      page: args.page,
      pageSize: args.pageSize,
      more: nextPageNote(count, args.page, args.pageSize, countIsExact ? 'lines' : 'lines at least'),
    };
  },
  summarize(answer) {
    if (answer.count === 0) return 'No log line matches.';
    const lines = answer.lines
      .slice(0, 8)
      .map(
        (l) =>
          `- ${timeText(l.timestamp)} ${l.workflowName} [${l.nodeID}] ${clip(l.message, 160)} (execution ${l.executionUUID})`,
      );
    return [
      `${answer.countIsExact ? '' : 'At least '}${answer.count} lines match, newest first:`,
      ...lines,
      answer.more ?? '',
    ]
      .filter(Boolean)
      .join('\n');
  },
});
