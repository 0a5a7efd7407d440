import { AppError, type ErrorCode, errorBody } from '../errors.js';
import { formatTime } from '../lib/time.js';
import type { KeyRefusalReason } from '../modules/auth/authenticate.js';
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

/** What the `closed` event says for each reason a key stops admitting its streams. */
const CLOSED: Readonly<Record<KeyRefusalReason, readonly [ErrorCode, string]>> = {
  KEY_REVOKED: ['UNAUTHENTICATED', 'The API key was revoked'],
  KEY_EXPIRED: ['UNAUTHENTICATED', 'The API key expired'],
  ORGANIZATION_DELETED: ['FORBIDDEN', 'The organization of this API key is deleted'],
  MEMBER_REMOVED: ['FORBIDDEN', 'The member of this API key was removed from the organization'],
  DEPLOY_ACCESS_REMOVED: ['FORBIDDEN', 'The member of this API key does not have deploy access'],
};

/**
 * The last message of a stream whose key no longer admits it (docs/stream.md): its reason, and
 * the error a new request with the key now gets, in the contract's error shape. No `id`, so a
 * client's Last-Event-ID stays that of the last change it was sent.
 */
export function sseClosed(reason: KeyRefusalReason): string {
  const [code, message] = CLOSED[reason];
  return `event: closed\ndata: ${JSON.stringify({ reason, ...errorBody(new AppError(code, message)) })}\n\n`;
}
