/**
 * The one registry of error codes. Every error a client can see carries one of these codes in
 * `extensions.code`; the HTTP status of a request-level failure comes from here and nowhere else.
 * docs/errors.md documents each code; test/http/error-registry.test.ts fails when the two drift apart.
 */
export const ERROR_CODES = {
  UNAUTHENTICATED: {
    status: 401,
    description: 'Missing, malformed, unknown, revoked or expired credentials. Always the same message.',
  },
  FORBIDDEN: {
    status: 403,
    description: 'The key is valid but its member lacks deploy access, or its organization is deleted.',
  },
  BAD_USER_INPUT: {
    status: 400,
    description: 'An argument or request body is invalid; the message names the field and the bound.',
  },
  NOT_FOUND: {
    status: 200,
    description: '`workflow` or `workflowDeployment` named a uuid the caller cannot see.',
  },
  GRAPHQL_PARSE_FAILED: {
    status: 400,
    description: 'The query is not valid GraphQL syntax or exceeds the token limit.',
  },
  GRAPHQL_VALIDATION_FAILED: {
    status: 400,
    description:
      'The query does not validate against the schema, or exceeds the depth, alias, field, fragment-spread or field-merging limits.',
  },
  RATE_LIMITED: { status: 429, description: 'Too many requests; wait for `Retry-After` seconds.' },
  SERVICE_UNAVAILABLE: {
    status: 503,
    description:
      'The database is unreachable or out of resources (disk full, too many connections), or the request exceeded its time limit; retry later.',
  },
  INTERNAL_SERVER_ERROR: {
    status: 500,
    description: 'An unexpected failure; details are logged, never returned.',
  },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** An error the caller is meant to see: its message is safe to return as is. */
export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode;
  /** HTTP status when this error decides the status of the whole response. */
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { status?: number; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.code = code;
    this.status = options.status ?? ERROR_CODES[code].status;
    this.headers = options.headers ?? {};
  }
}

/** The body of every error answer: `{"data"?: null, "errors": [{message, extensions: {code}}]}`. */
export function errorBody(error: AppError, withData = false): Record<string, unknown> {
  const body: Record<string, unknown> = {
    errors: [{ message: error.message, extensions: { code: error.code } }],
  };
  return withData ? { data: null, ...body } : body;
}

/**
 * The one message of every refused key, whatever the reason (contract: the same body): it names
 * the expected form, so a caller who sent `Bearer <key>` learns the scheme without being told
 * which check failed.
 */
export const UNAUTHENTICATED_MESSAGE = 'Invalid or missing API key: send it as Authorization: Apikey <key>';

export const unauthenticated = () =>
  new AppError('UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE, { headers: { 'www-authenticate': 'Apikey' } });

export const badInput = (message: string) => new AppError('BAD_USER_INPUT', message);

export const notFound = (message: string) => new AppError('NOT_FOUND', message);

/** 415: the one answer to a request body in a media type the endpoint does not read. */
export const unsupportedContentType = (expected = 'application/json') =>
  new AppError('BAD_USER_INPUT', `Unsupported Content-Type; send ${expected}`, { status: 415 });

export const unavailable = (message = 'The service is temporarily unavailable; retry later') =>
  new AppError('SERVICE_UNAVAILABLE', message);

/**
 * Whether an error comes from losing the database (connection refused or reset, pool closed,
 * server shutting down, disk full) rather than from a bad query: those become SERVICE_UNAVAILABLE.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH'].includes(code))
      return true;
    // 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 08xxx connection exceptions
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03') return true;
    // 57014 query_canceled (statement_timeout)
    if (code === '57014') return true;
    // class 53, insufficient resources: 53100 disk_full, 53200 out_of_memory, 53300 too_many_connections
    if (code.startsWith('53')) return true;
  }
  return /Connection terminated|connection timeout|Client has encountered a connection error|Cannot use a pool after calling end|timeout exceeded when trying to connect|Query read timeout/i.test(
    error.message,
  );
}
