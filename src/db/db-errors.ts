/** Errors the database handles raise themselves, shaped as PostgreSQL's (code) so callers read both alike. */

/** Losing the database (isDatabaseUnavailable): 57P01 admin_shutdown unless told otherwise. */
export function connectionError(message: string, code = '57P01'): Error {
  return Object.assign(new Error(`Connection terminated: ${message}`), { code });
}

/** PostgreSQL's query_canceled: a statement timeout, a pg_cancel_backend, or canceledError. */
const QUERY_CANCELED = '57014';

/** A statement cancelled for its caller: PostgreSQL's 57014 query_canceled. */
export function canceledError(): Error {
  return Object.assign(new Error('canceling statement due to the request time limit'), {
    code: QUERY_CANCELED,
  });
}

/** Whether `error` is a cancelled statement (query_canceled), from PostgreSQL or canceledError. */
export const isQueryCanceled = (error: unknown): boolean =>
  (error as { code?: unknown } | undefined)?.code === QUERY_CANCELED;
