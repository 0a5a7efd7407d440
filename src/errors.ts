import type { FastifyReply } from 'fastify';

/**
 * The one registry of error answers. Each entry is one way a request can fail, with the HTTP
 * status it answers and the code a client sees in `extensions.code` (one of the contract's nine,
 * section 1; several answers share a code, never a status). Every error answer of every route is
 * built from an entry here (AppError, errorBody) and nowhere else. docs/errors.md's table is
 * generated from it (`npm run gen`); test/http/error-registry.test.ts fails when they differ.
 */
export const ERRORS = {
  UNAUTHENTICATED: {
    code: 'UNAUTHENTICATED',
    status: 401,
    description:
      'Missing header, another scheme than `Apikey`, malformed, unknown, revoked or expired key: always the same body, with `WWW-Authenticate: Apikey`. A wrong admin or ingest token answers the same code with `WWW-Authenticate: Bearer`.',
  },
  FORBIDDEN: {
    code: 'FORBIDDEN',
    status: 403,
    description:
      'The key is valid but its member lacks deploy access or was removed, or its organization is deleted.',
  },
  BAD_USER_INPUT: {
    code: 'BAD_USER_INPUT',
    status: 400,
    description:
      'An invalid argument (as a field error, 200) or request (not valid HTTP, not valid JSON); the message names the field and the bound.',
  },
  METHOD_NOT_ALLOWED: {
    code: 'BAD_USER_INPUT',
    status: 405,
    description:
      'The path exists but not for this method (a mutation sent with GET, for one); `Allow` names the methods it answers.',
  },
  NOT_ACCEPTABLE: {
    code: 'BAD_USER_INPUT',
    status: 406,
    description: '`Accept` names no media type the endpoint answers in.',
  },
  REQUEST_TIMEOUT: {
    code: 'BAD_USER_INPUT',
    status: 408,
    description:
      "The request's headers or body took longer than their limit to arrive; the connection is closed.",
  },
  PAYLOAD_TOO_LARGE: {
    code: 'BAD_USER_INPUT',
    status: 413,
    description:
      'The body is over its limit, or a gzip body decompresses past its ratio; `/ingest` says which lines are stored.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    code: 'BAD_USER_INPUT',
    status: 415,
    description: '`Content-Type` or `Content-Encoding` is one the endpoint does not read.',
  },
  HEADERS_TOO_LARGE: {
    code: 'BAD_USER_INPUT',
    status: 431,
    description: "The request's headers are over the size limit; the connection is closed.",
  },
  NOT_FOUND: {
    code: 'NOT_FOUND',
    status: 200,
    description:
      '`workflow` or `workflowDeployment` named a uuid the caller cannot see (a field error, message `workflow not found`); an unknown organization, member or key in the admin API.',
  },
  ROUTE_NOT_FOUND: {
    code: 'NOT_FOUND',
    status: 404,
    description: 'No such route, console or GraphiQL asset; an operator endpoint that is switched off.',
  },
  GRAPHQL_PARSE_FAILED: {
    code: 'GRAPHQL_PARSE_FAILED',
    status: 400,
    description:
      'The document is not valid GraphQL or exceeds the token limit (200 with `Accept: application/json`).',
  },
  GRAPHQL_VALIDATION_FAILED: {
    code: 'GRAPHQL_VALIDATION_FAILED',
    status: 400,
    description:
      'The document does not validate against the schema or exceeds the depth, alias, field, fragment-spread or field-merging limits (see [operators.md](operators.md#bounds-against-hostile-clients)) (200 with `Accept: application/json`).',
  },
  RATE_LIMITED: {
    code: 'RATE_LIMITED',
    status: 429,
    description:
      'Too many requests, event streams or connections for this key or address, or too many failed authentications from this address; see `Retry-After` (seconds).',
  },
  SERVICE_UNAVAILABLE: {
    code: 'SERVICE_UNAVAILABLE',
    status: 503,
    description:
      'The database is unreachable or out of resources (disk full, too many connections), the server holds too many connections, or the request exceeded its time limit; retry later.',
  },
  INTERNAL_SERVER_ERROR: {
    code: 'INTERNAL_SERVER_ERROR',
    status: 500,
    description:
      'An unexpected failure; the details are logged with the request id (`x-request-id`), never returned.',
  },
} as const satisfies Record<string, { code: string; status: number; description: string }>;

/** One way a request can fail: an entry of the registry. */
export type ErrorKind = keyof typeof ERRORS;

/** A code a client sees in `extensions.code`. */
export type ErrorCode = (typeof ERRORS)[ErrorKind]['code'];

/** The codes, each once, in the registry's order. */
export const ERROR_CODES: readonly ErrorCode[] = [
  ...new Set(Object.values(ERRORS).map((entry) => entry.code)),
];

export const isErrorCode = (value: string): value is ErrorCode =>
  (ERROR_CODES as readonly string[]).includes(value);

/** An error the caller is meant to see: its message is safe to return as is. */
export class AppError extends Error {
  override name = 'AppError';
  readonly kind: ErrorKind;
  readonly code: ErrorCode;
  /** HTTP status when this error decides the status of the whole response. */
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(kind: ErrorKind, message: string, options: { headers?: Record<string, string> } = {}) {
    super(message);
    this.kind = kind;
    this.code = ERRORS[kind].code;
    this.status = ERRORS[kind].status;
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
 * The one way a route answers an error: the status of its registry entry, its headers, and the
 * contract's body, with `extra` fields beside `errors` where a route adds some (`/ingest`'s
 * progress, `/readyz`'s databases, GraphQL's `extensions`). Sockets answered before any route
 * use rawErrorAnswer (src/http/client-error.ts), which writes the same body.
 */
export function sendError(
  reply: FastifyReply,
  error: AppError,
  extra: Record<string, unknown> = {},
): FastifyReply {
  return reply
    .code(error.status)
    .headers(error.headers)
    .send({ ...errorBody(error), ...extra });
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
  new AppError('UNSUPPORTED_MEDIA_TYPE', `Unsupported Content-Type; send ${expected}`);

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

/**
 * The entry answering a client error of HTTP `status` that the framework decided (Fastify's own
 * refusals of a body: too large, another media type): the invalid-request entry of that status,
 * else BAD_USER_INPUT (400).
 */
export function clientErrorKind(status: number): ErrorKind {
  const kinds = Object.keys(ERRORS) as ErrorKind[];
  return (
    kinds.find((kind) => ERRORS[kind].code === 'BAD_USER_INPUT' && ERRORS[kind].status === status) ??
    'BAD_USER_INPUT'
  );
}
