import { formatTime } from '../modules/shared/time.js';
import type { ApiScalars } from '../schema/scalars.js';
import type { WorkflowExecution } from '../schema/schema-types.generated.js';

/**
 * An execution as /graphql serialises it (WireScalars): Time through the Time scalar's format,
 * errors with exactly ExecutionError's fields.
 */
export function wireExecution(execution: WorkflowExecution<ApiScalars>): WorkflowExecution {
  return {
    ...execution,
    startedAt: formatTime(execution.startedAt),
    finishedAt: execution.finishedAt && formatTime(execution.finishedAt),
    errors: execution.errors && execution.errors.map((e) => e && { error: e.error, count: e.count }),
  };
}

/** One Server-Sent Events message (the data is JSON: one line, no newline to escape). */
export const sseEvent = (id: number, event: string, data: unknown): string =>
  `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** A comment line: ignored by clients, it keeps proxies and load balancers from closing an idle stream. */
export const sseComment = (text: string): string => `: ${text}\n\n`;
