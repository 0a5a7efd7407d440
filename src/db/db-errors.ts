/** Errors the database handles raise themselves, shaped as PostgreSQL's (code) so callers read both alike. */

/** Losing the database (isDatabaseUnavailable): 57P01 admin_shutdown unless told otherwise. */
export function connectionError(message: string, code = '57P01'): Error {
  return Object.assign(new Error(`Connection terminated: ${message}`), { code });
}

/** A statement cancelled for its caller: PostgreSQL's 57014 query_canceled. */
export function canceledError(): Error {
  return Object.assign(new Error('canceling statement due to the request time limit'), { code: '57014' });
}
