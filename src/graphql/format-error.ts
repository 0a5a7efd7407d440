import type { GraphQLError } from 'graphql';
import { AppError, type ErrorCode, isDatabaseUnavailable, isErrorCode } from '../errors.js';

export interface FormattedError {
  message: string;
  locations?: ReadonlyArray<{ line: number; column: number }>;
  path?: ReadonlyArray<string | number>;
  extensions: { code: ErrorCode };
}

const INTERNAL_MESSAGE = 'Unexpected error';
const UNAVAILABLE_MESSAGE = 'The database is unavailable; retry later';

/**
 * Maps an error of execution to what a client may see. Expected errors (AppError, GraphQL
 * errors with a registered code) keep their message; anything else is masked as
 * INTERNAL_SERVER_ERROR and handed to `logUnexpected`, so no stack, SQL or internal detail leaks.
 */
export function formatError(error: GraphQLError, logUnexpected: (error: unknown) => void): FormattedError {
  const original = error.originalError;
  let message = error.message;
  let code: ErrorCode;
  if (original instanceof AppError) {
    code = original.code;
    message = original.message;
  } else if (original && isDatabaseUnavailable(original)) {
    code = 'SERVICE_UNAVAILABLE';
    message = UNAVAILABLE_MESSAGE;
  } else if (
    original &&
    !(original as { extensions?: unknown }).extensions &&
    original.name !== 'GraphQLError'
  ) {
    logUnexpected(original);
    code = 'INTERNAL_SERVER_ERROR';
    message = INTERNAL_MESSAGE;
  } else {
    const claimed =
      error.extensions?.code ??
      (original as { extensions?: { code?: unknown } } | undefined)?.extensions?.code;
    code = typeof claimed === 'string' && isErrorCode(claimed) ? claimed : 'BAD_USER_INPUT';
  }
  const formatted: FormattedError = { message, extensions: { code } };
  if (error.locations) formatted.locations = error.locations;
  if (error.path) formatted.path = error.path;
  return formatted;
}
