import { z } from 'zod';
import type { ErrorGroup } from '../../schema/schema-types.generated.js';
import { clip } from '../answer-size.js';
import {
  cutPageNote,
  pageAnswer,
  pageArguments,
  pagingOutput,
  timeArgument,
  workflowArgument,
} from '../arguments.js';
import { timeText } from '../text.js';
import { defineTool } from '../tool.js';
import { scopeArguments } from '../workflow-ref.js';

const GROUPS = `query McpErrorGroups($input: ErrorGroupsInput!) {
  errorGroups(input: $input) {
    count
    data { fingerprint pattern sampleMessage occurrences executionCount workflowCount capabilityIDs firstSeenAt lastSeenAt }
  }
}`;

/** A row as the tool's query selects it: every field of the group but its activity. */
type Row = Omit<ErrorGroup, 'activity'>;

export const errorGroups = defineTool({
  name: 'error_groups',
  title: 'Error groups',
  description:
    'Errors grouped by pattern (numbers, hex, uuids, addresses and quoted strings as placeholders), most occurrences first, in a window (default: the last 24 hours), for a workflow (uuid or name) and/or a capability. `fingerprint` feeds find_executions. firstSeenAt/lastSeenAt are over all time.',
  input: {
    workflow: workflowArgument.optional().describe('A workflow by uuid or exact name; default: all'),
    capabilityID: z.string().max(300).optional().describe('Only errors carried by this capability'),
    from: timeArgument('from'),
    to: timeArgument('to'),
    ...pageArguments,
  },
  output: {
    workflow: z.object({ name: z.string(), uuid: z.string() }).optional(),
    groups: z.array(
      z.object({
        fingerprint: z.string(),
        pattern: z.string(),
        sampleMessage: z.string(),
        occurrences: z.number().int(),
        executions: z.number().int(),
        workflows: z.number().int(),
        capabilityIDs: z.array(z.string()),
        firstSeenAt: z.string(),
        lastSeenAt: z.string(),
      }),
    ),
    ...pagingOutput,
  },
  needs: ['errorGroups'],
  lists: [{ key: 'groups', note: cutPageNote('error groups') }],
  async run(args, graphql, now) {
    const { workflow, from, to } = await scopeArguments(graphql, args, now);
    const { errorGroups } = await graphql.run<{ errorGroups: { count: number; data: Row[] } }>(GROUPS, {
      input: {
        ...(workflow && { workflowUUID: workflow.uuid }),
        ...(args.capabilityID !== undefined && { capabilityID: args.capabilityID }),
        ...(from && { from }),
        ...(to && { to }),
        page: { number: args.page, size: args.pageSize },
      },
    });
    return {
      ...(workflow && { workflow }),
      groups: errorGroups.data.map((g) => ({
        fingerprint: g.fingerprint,
        pattern: clip(g.pattern, 300),
        sampleMessage: clip(g.sampleMessage, 300),
        occurrences: g.occurrences,
        executions: g.executionCount,
        workflows: g.workflowCount,
        capabilityIDs: g.capabilityIDs.slice(0, 20).map((id) => clip(id, 200)),
        firstSeenAt: g.firstSeenAt,
        lastSeenAt: g.lastSeenAt,
      })),
      ...pageAnswer(errorGroups.count, args, 'error groups'),
    };
  },
  summarize(answer) {
    if (answer.count === 0) return 'No errors in the window.';
    const lines = answer.groups
      .slice(0, 8)
      .map(
        (g) =>
          `- ${g.occurrences} x "${clip(g.pattern, 150)}" in ${g.executions} executions${g.capabilityIDs.length ? ` (capabilities ${g.capabilityIDs.slice(0, 3).join(', ')})` : ''}; first seen ${timeText(g.firstSeenAt)}, last ${timeText(g.lastSeenAt)}; fingerprint ${g.fingerprint}`,
      );
    return [`${answer.count} error groups, most frequent first:`, ...lines, answer.more ?? '']
      .filter(Boolean)
      .join('\n');
  },
});
