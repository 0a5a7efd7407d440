import { z } from 'zod';
import { errorGroupOf } from '../../rollups/fingerprint.js';
import type {
  CapabilityExecutionError,
  ExecutionError,
  WorkflowExecution,
  WorkflowExecutionEvent,
  WorkflowExecutionLog,
  WorkflowExecutionLogPageOutput,
} from '../../schema/schema-types.generated.js';
import { clip } from '../answer-size.js';
import { uuidArgument } from '../arguments.js';
import { msText, plural, timeText } from '../text.js';
import { defineTool, ToolArgumentError } from '../tool.js';

const EXECUTION = `query McpGetExecution($execution: WorkflowExecutionInput!, $events: WorkflowExecutionEventsInput!, $logs: WorkflowExecutionLogPageInput!) {
  workflowExecution(input: $execution) {
    data { uuid id workflowUUID workflowName status classifiedStatus startedAt finishedAt creditUsed executedInTee errors { error count } }
  }
  workflowExecutionEvents(input: $events) { data { capabilityID status method startedAt finishedAt errors { error count } } }
  workflowExecutionLogPage(input: $logs) { data { nodeID message timestamp } next }
}`;

const LOG_PAGE = `query McpExecutionLogPage($logs: WorkflowExecutionLogPageInput!) {
  workflowExecutionLogPage(input: $logs) { data { nodeID message timestamp } next }
}`;

const DEPLOYMENT = `query McpDeploymentAt($input: WorkflowDeploymentsInput!) {
  workflowDeployments(input: $input) { data { uuid status deployedAt txHash errorMessage } }
}`;

/** Lines of the log read at most, in pages of LOG_PAGE_SIZE; past them the last lines are not known. */
const MAX_LOG_LINES_READ = 10_000;
const LOG_PAGE_SIZE = 1000;
const EDGE_LINES = 5;
const MAX_ERROR_LINES = 20;
/** What marks a log line as an error line (the lines carry no level). */
const ERROR_LINE =
  /\b(errors?|fail(s|ed|ure)?|panic(ked)?|fatal|exception|revert(ed)?|timed? ?out|refused|denied|invalid)\b/i;

/** An error of the execution's or of one of its capability events (the same two fields). */
type ErrorEntry = ExecutionError | CapabilityExecutionError | null;
type Line = WorkflowExecutionLog;
type LogPage = WorkflowExecutionLogPageOutput;
/** The answer of the tool's query: each field as the schema types it, narrowed to what is selected. */
interface Answer {
  workflowExecution: {
    data: Omit<WorkflowExecution, 'workflowId'> | null;
  };
  workflowExecutionEvents: { data: WorkflowExecutionEvent[] | null };
  workflowExecutionLogPage: LogPage;
}

const lineShape = z.object({ timestamp: z.string(), nodeID: z.string(), message: z.string() });
const toLine = (line: Line) => ({
  timestamp: line.timestamp,
  nodeID: clip(line.nodeID, 200),
  message: clip(line.message, 300),
});

/** The errors of an execution and of its capability calls, one entry per error group. */
function groupErrors(
  executionErrors: ErrorEntry[],
  events: Answer['workflowExecutionEvents']['data'] & object,
) {
  const groups = new Map<
    string,
    { fingerprint: string; pattern: string; sampleMessage: string; count: number; capabilityIDs: string[] }
  >();
  const add = (entry: ErrorEntry, capabilityID?: string) => {
    if (!entry) return;
    const { fingerprint, pattern } = errorGroupOf(entry.error);
    const group = groups.get(fingerprint) ?? {
      fingerprint,
      pattern: clip(pattern, 300),
      sampleMessage: clip(entry.error, 300),
      count: 0,
      capabilityIDs: [],
    };
    group.count += entry.count;
    if (capabilityID !== undefined && !group.capabilityIDs.includes(capabilityID))
      group.capabilityIDs.push(capabilityID);
    groups.set(fingerprint, group);
  };
  for (const entry of executionErrors) add(entry);
  for (const event of events) for (const entry of event.errors ?? []) add(entry, event.capabilityID);
  return [...groups.values()].sort((a, b) => b.count - a.count || a.fingerprint.localeCompare(b.fingerprint));
}

export const getExecution = defineTool({
  name: 'get_execution',
  title: 'Get an execution',
  description:
    "One execution by uuid: its summary, its errors grouped with their fingerprints (for error_groups and find_executions), the capability timeline, the deployment it ran on (the workflow's latest deployed at or before its start), its error log lines (lines that mention an error, failure, panic, revert, timeout...), and its first and last log lines.",
  input: {
    uuid: uuidArgument('uuid').describe('The execution uuid'),
    capabilityID: z.string().max(300).optional().describe('Only this capability in the timeline'),
  },
  output: {
    execution: z.object({
      uuid: z.string(),
      id: z.string(),
      workflowName: z.string(),
      workflowUUID: z.string(),
      status: z.string(),
      classifiedStatus: z.string().nullable(),
      startedAt: z.string(),
      finishedAt: z.string().nullable(),
      durationMs: z.number().nullable(),
      creditUsed: z.string().nullable(),
      executedInTee: z.boolean().nullable(),
    }),
    errors: z.array(
      z.object({
        fingerprint: z.string(),
        pattern: z.string(),
        sampleMessage: z.string(),
        count: z.number().int(),
        capabilityIDs: z.array(z.string()),
      }),
    ),
    deployment: z
      .object({
        uuid: z.string(),
        status: z.string(),
        deployedAt: z.string(),
        txHash: z.string().nullable(),
        errorMessage: z.string().nullable(),
      })
      .nullable(),
    timeline: z.array(
      z.object({
        capabilityID: z.string(),
        method: z.string().nullable(),
        status: z.string(),
        startedAt: z.string(),
        finishedAt: z.string().nullable(),
        durationMs: z.number().nullable(),
        errors: z.array(z.string()),
      }),
    ),
    timelineCount: z.number().int(),
    logs: z.object({
      linesRead: z.number().int(),
      complete: z
        .boolean()
        .describe('false when the log is longer than what was read, so `last` is not its end'),
      first: z.array(lineShape),
      last: z.array(lineShape),
      errorLines: z.array(lineShape),
      errorLineCount: z.number().int(),
    }),
    more: z.string().optional(),
  },
  needs: ['workflowExecution', 'workflowExecutionEvents', 'workflowExecutionLogPage', 'workflowDeployments'],
  lists: [
    {
      key: 'timeline',
      note: (leftOut) =>
        `${leftOut} capability calls (the latest) were left out of the timeline to keep the answer under 20,000 characters; pass capabilityID to see one capability's calls.`,
    },
    {
      key: 'errors',
      note: (leftOut) => `${leftOut} error groups (the rarest) were left out; error_groups lists them all.`,
    },
  ],
  async run(args, graphql) {
    const uuid = args.uuid.toLowerCase();
    const answer = await graphql.run<Answer>(EXECUTION, {
      execution: { uuid },
      events: {
        workflowExecutionUUID: uuid,
        ...(args.capabilityID !== undefined && { capabilityID: args.capabilityID }),
      },
      logs: { workflowExecutionUUID: uuid, size: LOG_PAGE_SIZE },
    });
    const execution = answer.workflowExecution.data;
    if (!execution) {
      throw new ToolArgumentError(
        `No execution ${uuid} in this organization; find_executions lists executions and their uuids.`,
      );
    }
    const events = answer.workflowExecutionEvents.data ?? [];
    const { workflowDeployments } = await graphql.run<{
      workflowDeployments: {
        data: Array<{
          uuid: string;
          status: string;
          deployedAt: string;
          txHash: string | null;
          errorMessage: string | null;
        }>;
      };
    }>(DEPLOYMENT, {
      input: { workflowUUID: execution.workflowUUID, to: execution.startedAt, page: { number: 0, size: 1 } },
    });
    const deployment = workflowDeployments.data[0];

    // The log, read in pages up to MAX_LOG_LINES_READ: its first lines, its last and its error lines.
    const first: Line[] = [];
    let last: Line[] = [];
    const errorLines: Line[] = [];
    let errorLineCount = 0;
    let linesRead = 0;
    let page: LogPage = answer.workflowExecutionLogPage;
    for (;;) {
      for (const line of page.data ?? []) {
        linesRead += 1;
        if (first.length < EDGE_LINES) first.push(line);
        if (ERROR_LINE.test(line.message)) {
          errorLineCount += 1;
          if (errorLines.length < MAX_ERROR_LINES) errorLines.push(line);
        }
      }
      last = [...last, ...(page.data ?? [])].slice(-EDGE_LINES);
      if (page.next === null || linesRead >= MAX_LOG_LINES_READ) break;
      page = (
        await graphql.run<{ workflowExecutionLogPage: LogPage }>(LOG_PAGE, {
          logs: { workflowExecutionUUID: uuid, after: page.next, size: LOG_PAGE_SIZE },
        })
      ).workflowExecutionLogPage;
    }
    const complete = page.next === null;
    return {
      execution: {
        uuid: execution.uuid,
        id: clip(execution.id, 200),
        workflowName: clip(execution.workflowName, 200),
        workflowUUID: execution.workflowUUID,
        status: execution.status,
        classifiedStatus: execution.classifiedStatus,
        startedAt: execution.startedAt,
        finishedAt: execution.finishedAt,
        durationMs: execution.finishedAt
          ? Date.parse(execution.finishedAt) - Date.parse(execution.startedAt)
          : null,
        creditUsed: execution.creditUsed,
        executedInTee: execution.executedInTee,
      },
      errors: groupErrors(execution.errors ?? [], events),
      deployment: deployment
        ? {
            ...deployment,
            errorMessage: deployment.errorMessage === null ? null : clip(deployment.errorMessage, 300),
          }
        : null,
      timeline: events.map((event) => ({
        capabilityID: clip(event.capabilityID, 200),
        method: event.method === null ? null : clip(event.method, 200),
        status: clip(event.status, 100),
        startedAt: event.startedAt,
        finishedAt: event.finishedAt,
        durationMs: event.finishedAt ? Date.parse(event.finishedAt) - Date.parse(event.startedAt) : null,
        errors: (event.errors ?? []).flatMap((entry) => (entry ? [clip(entry.error, 200)] : [])).slice(0, 5),
      })),
      timelineCount: events.length,
      logs: {
        linesRead,
        complete,
        first: first.map(toLine),
        last: last.map(toLine),
        errorLines: errorLines.map(toLine),
        errorLineCount,
      },
      ...(!complete && {
        more: `The log has more than ${linesRead} lines: its last lines here are line ${linesRead - last.length + 1} to ${linesRead}; search_logs finds lines by content.`,
      }),
    };
  },
  summarize(a) {
    const e = a.execution;
    const lines = [
      `${e.workflowName} execution ${e.status}${e.classifiedStatus && e.classifiedStatus !== 'UNSPECIFIED' ? ` (${e.classifiedStatus})` : ''}, started ${timeText(e.startedAt)}, ${e.finishedAt ? `took ${msText(e.durationMs)}` : 'not finished'}; uuid ${e.uuid}.`,
    ];
    const error = a.errors[0];
    if (error)
      lines.push(
        `${plural(a.errors.length, 'error group')}; first: ${error.count} x "${clip(error.sampleMessage, 160)}"${error.capabilityIDs.length ? ` in ${error.capabilityIDs.join(', ')}` : ''} (fingerprint ${error.fingerprint}).`,
      );
    const failed = a.timeline.filter(
      (call) => call.errors.length > 0 || !['COMPLETED', 'SUCCESS'].includes(call.status),
    );
    lines.push(
      `${plural(a.timelineCount, 'capability call')}${
        failed.length
          ? `, failed: ${failed
              .slice(0, 3)
              .map((c) => `${c.capabilityID} (${c.status})`)
              .join(', ')}`
          : ''
      }.`,
    );
    lines.push(
      a.deployment
        ? `Ran on the deployment of ${timeText(a.deployment.deployedAt)} (${a.deployment.status}, uuid ${a.deployment.uuid}).`
        : 'No deployment recorded before it started.',
    );
    lines.push(
      `Log: ${a.logs.linesRead}${a.logs.complete ? '' : '+'} lines, ${a.logs.errorLineCount} error lines.`,
    );
    for (const line of a.logs.errorLines.slice(0, 3))
      lines.push(`  ${timeText(line.timestamp)} [${line.nodeID}] ${clip(line.message, 160)}`);
    if (a.more) lines.push(a.more);
    return lines.join('\n');
  },
});
