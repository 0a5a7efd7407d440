import { z } from 'zod';
import { parseInstant } from '../lib/instant.js';
import { formatTime } from '../lib/time.js';
import {
  WorkflowDeploymentStatusValues,
  WorkflowExecutionStatusValues,
} from '../schema/schema-types.generated.js';
import { ToolArgumentError } from './tool.js';

/** The arguments the tools share, each with the message that says what to change. */

export const workflowArgument = z
  .string()
  .trim()
  .min(1, 'workflow must name a workflow: its uuid or its exact name (list_workflows lists them)')
  .max(300, 'workflow must be a uuid or a name of at most 300 characters');

export const timeArgument = (role: 'from' | 'to') =>
  z
    .string()
    .max(64, `${role} must be a time such as 24h, 2026-03-01 or 2026-03-01T12:00:00Z`)
    .optional()
    .describe(
      role === 'from'
        ? 'Start of the window, inclusive: a duration back from now (24h, 7d), a UTC date (2026-03-01) or an RFC 3339 time (2026-03-01T12:00:00Z); default: 24 hours before `to`'
        : 'End of the window, inclusive, written as `from`; default: now',
    );

export const pageArguments = {
  page: z
    .number()
    .int('page must be a whole number')
    .min(0, 'page counts from 0')
    .max(100_000, 'page must be at most 100000')
    .default(0)
    .describe('Page to read, from 0'),
  pageSize: z
    .number()
    .int('pageSize must be a whole number')
    .min(1, 'pageSize must be at least 1')
    .max(100, 'pageSize must be at most 100')
    .default(20)
    .describe('Entries per page, 1..100'),
};

export const executionStatuses = z
  .array(z.enum(WorkflowExecutionStatusValues))
  .max(10, 'status takes at most 10 values')
  .optional()
  .describe('Only these statuses (any of them)');

export const deploymentStatuses = z
  .array(z.enum(WorkflowDeploymentStatusValues))
  .max(10, 'status takes at most 10 values')
  .optional()
  .describe('Only workflows whose status is one of these');

export const uuidArgument = (what: string) =>
  z
    .string()
    .trim()
    .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, `${what} must be a uuid`);

/** The RFC 3339 text of a time argument, undefined when absent; a ToolArgumentError when unreadable. */
export function instantArgument(role: string, text: string | undefined, now: number): string | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const instant = parseInstant(text, now);
  if (!instant) {
    throw new ToolArgumentError(
      `${role} must be a duration back from now (24h, 7d, 90m), a date (2026-03-01) or a date-time with an offset (2026-03-01T12:00:00Z); got "${text.slice(0, 64)}"`,
    );
  }
  return formatTime(instant);
}

/** The paging of a list answer, as every paged tool reports it. */
export const pagingOutput = {
  count: z.number().int().describe('Entries in all pages'),
  page: z.number().int(),
  pageSize: z.number().int(),
  more: z.string().optional().describe('What was left out of this answer and the argument that reads it'),
};

/** The note of a page that is not the last one. */
export function nextPageNote(
  count: number,
  page: number,
  pageSize: number,
  what: string,
): string | undefined {
  const after = count - (page + 1) * pageSize;
  return after > 0 ? `${after} more ${what} after this page: pass page=${page + 1}.` : undefined;
}

/** The paging fields of a list answer (`pagingOutput`) for page `page` of `count` entries. */
export function pageAnswer(
  count: number,
  args: { readonly page: number; readonly pageSize: number },
  what: string,
): { count: number; page: number; pageSize: number; more: string | undefined } {
  return {
    count,
    page: args.page,
    pageSize: args.pageSize,
    more: nextPageNote(count, args.page, args.pageSize, what),
  };
}

/** The note of entries of a page cut to keep the answer short. */
export const cutPageNote =
  (what: string) =>
  (leftOut: number, kept: number): string =>
    `${leftOut} ${what} of this page were left out to keep the answer under 20,000 characters: ask with pageSize=${Math.max(1, kept)} or less to read them.`;
