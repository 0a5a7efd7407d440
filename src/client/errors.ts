/**
 * The SDK's errors: one class per way a request can fail, so that a caller tells them apart
 * with `instanceof` instead of parsing messages. The class comes from the `extensions.code` of
 * the answer's first error when the server names one, else from the HTTP status, so the same
 * classes work against any server that speaks GraphQL over HTTP.
 */

/** One entry of a GraphQL `errors` array, as the server sent it. */
export interface GraphqlErrorEntry {
  readonly message: string;
  readonly path?: ReadonlyArray<string | number>;
  readonly locations?: ReadonlyArray<{ line: number; column: number }>;
  readonly extensions?: { readonly code?: string; readonly [key: string]: unknown };
}

export interface WfapiErrorDetails {
  /** The server's `extensions.code`, or a code of the SDK's own (NETWORK_ERROR, TIMEOUT, HTTP_ERROR). */
  readonly code: string;
  /** HTTP status of the answer; undefined when none arrived. */
  readonly status?: number | undefined;
  readonly errors?: readonly GraphqlErrorEntry[] | undefined;
  /** The server's `x-request-id`, to quote when asking its operator. */
  readonly requestId?: string | undefined;
  /** How long the server asked to wait before retrying (`Retry-After`), in milliseconds. */
  readonly retryAfterMs?: number | undefined;
  readonly cause?: unknown;
}

/** Base class of every error the SDK throws (cancellation rethrows the signal's own reason). */
export class WfapiError extends Error {
  override name = 'WfapiError';
  readonly code: string;
  readonly status: number | undefined;
  readonly errors: readonly GraphqlErrorEntry[];
  readonly requestId: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(message: string, details: WfapiErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = details.code;
    this.status = details.status;
    this.errors = details.errors ?? [];
    this.requestId = details.requestId;
    this.retryAfterMs = details.retryAfterMs;
  }

  /** Whether sending the same request again later may succeed. */
  get retryable(): boolean {
    return false;
  }
}

/** The key is missing, malformed, unknown, revoked or expired (401, UNAUTHENTICATED). */
export class AuthenticationError extends WfapiError {
  override name = 'AuthenticationError';
}

/** The key is valid but may not read this (403, FORBIDDEN). */
export class PermissionError extends WfapiError {
  override name = 'PermissionError';
}

/** The request or one of its arguments is invalid (BAD_USER_INPUT, GRAPHQL_*_FAILED, 4xx). */
export class ValidationError extends WfapiError {
  override name = 'ValidationError';
}

/** The named object does not exist or is not visible to this key (NOT_FOUND, 404). */
export class NotFoundError extends WfapiError {
  override name = 'NotFoundError';
}

/** Too many requests (429, RATE_LIMITED); `retryAfterMs` says when to try again. */
export class RateLimitError extends WfapiError {
  override name = 'RateLimitError';
  override get retryable(): boolean {
    return true;
  }
}

/** The service cannot answer now: 502/503/504, SERVICE_UNAVAILABLE, or no answer at all. */
export class UnavailableError extends WfapiError {
  override name = 'UnavailableError';
  override get retryable(): boolean {
    return true;
  }
}

/** The server could not be reached or dropped the connection (code NETWORK_ERROR). */
export class NetworkError extends UnavailableError {
  override name = 'NetworkError';
}

/** No complete answer within the time limit of one attempt (code TIMEOUT). */
export class TimeoutError extends UnavailableError {
  override name = 'TimeoutError';
}

/** The server failed unexpectedly (500 and other 5xx, INTERNAL_SERVER_ERROR). */
export class ServerError extends WfapiError {
  override name = 'ServerError';
  override get retryable(): boolean {
    return true;
  }
}

type ErrorClass = new (message: string, details: WfapiErrorDetails) => WfapiError;

const BY_CODE: Readonly<Record<string, ErrorClass>> = {
  UNAUTHENTICATED: AuthenticationError,
  FORBIDDEN: PermissionError,
  BAD_USER_INPUT: ValidationError,
  GRAPHQL_PARSE_FAILED: ValidationError,
  GRAPHQL_VALIDATION_FAILED: ValidationError,
  NOT_FOUND: NotFoundError,
  RATE_LIMITED: RateLimitError,
  SERVICE_UNAVAILABLE: UnavailableError,
  INTERNAL_SERVER_ERROR: ServerError,
};

function classOfStatus(status: number): ErrorClass {
  if (status === 401) return AuthenticationError;
  if (status === 403) return PermissionError;
  if (status === 404) return NotFoundError;
  if (status === 429) return RateLimitError;
  if (status === 502 || status === 503 || status === 504) return UnavailableError;
  if (status >= 500) return ServerError;
  if (status >= 400) return ValidationError;
  return WfapiError;
}

export interface FailedAnswer {
  readonly status: number;
  readonly errors: readonly GraphqlErrorEntry[] | undefined;
  readonly requestId: string | undefined;
  readonly retryAfterMs: number | undefined;
  /** What to say when the answer carries no error message (e.g. an HTML page from a proxy). */
  readonly fallbackMessage: string;
}

/** The error an answer stands for: by its first error's code when known, else by HTTP status. */
export function errorFromAnswer(answer: FailedAnswer): WfapiError {
  const errors = answer.errors ?? [];
  const first = errors[0];
  const code = first?.extensions?.code;
  const known = typeof code === 'string' ? BY_CODE[code] : undefined;
  const ErrorType = known ?? classOfStatus(answer.status);
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more errors)` : '';
  const message = first ? `${first.message}${more}` : answer.fallbackMessage;
  return new ErrorType(message, {
    code: typeof code === 'string' ? code : `HTTP_${answer.status}`,
    status: answer.status,
    errors,
    requestId: answer.requestId,
    retryAfterMs: answer.retryAfterMs,
  });
}
