/**
 * The exit codes of `wfapi` (README, "The command line") and the one mapping from a failed
 * request to them, shared by the read commands (SDK errors), the admin commands, ingestion and
 * the simulator's uploads.
 */

/** Exit codes scripts can rely on. */
export const EXIT = {
  OK: 0,
  /** A failure of the operation: server error, rejected lines, unreachable server. */
  FAILURE: 1,
  /** Wrong usage: unknown command, bad flag, missing argument. */
  USAGE: 2,
  /** The API key was refused (401) or may not read this (403). */
  AUTH: 3,
  /** The named workflow, deployment or execution does not exist or is not visible to the key. */
  NOT_FOUND: 4,
  /** The server could not be reached, timed out, was unavailable or kept rate limiting: retry later. */
  UNAVAILABLE: 5,
} as const;

/** A failure to report as one line and an exit code, without a stack trace. */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: number = EXIT.FAILURE,
  ) {
    super(message);
  }
}

/**
 * Ends a command with an exit code and nothing more to say: the command has already told what
 * went wrong (its summary of rejected lines, that the output is incomplete).
 */
export class QuietExit extends CliError {
  override name = 'QuietExit';
  constructor(exitCode: number) {
    super(`exit ${exitCode}`, exitCode);
  }
}

/** What is known of a failed request. */
export interface RequestFailure {
  /** The error code the server named (`extensions.code`), or the SDK's own (NETWORK_ERROR, TIMEOUT, HTTP_<status>). */
  readonly code?: string | undefined;
  /** The HTTP status of the answer; undefined when none arrived. */
  readonly status?: number | undefined;
}

const BY_CODE: Readonly<Record<string, number>> = {
  UNAUTHENTICATED: EXIT.AUTH,
  FORBIDDEN: EXIT.AUTH,
  NOT_FOUND: EXIT.NOT_FOUND,
  BAD_USER_INPUT: EXIT.USAGE,
  GRAPHQL_PARSE_FAILED: EXIT.USAGE,
  GRAPHQL_VALIDATION_FAILED: EXIT.USAGE,
  RATE_LIMITED: EXIT.UNAVAILABLE,
  SERVICE_UNAVAILABLE: EXIT.UNAVAILABLE,
  INTERNAL_SERVER_ERROR: EXIT.FAILURE,
};

/**
 * The exit code of a failed request: no answer is "retry later"; an HTTP 404 means nothing of
 * wfapi's is at that URL (wrong usage); else the server's error code decides when it is known,
 * then the status, as the SDK picks its error classes (client/errors.ts).
 */
export function exitCodeOf({ code, status }: RequestFailure): number {
  if (status === undefined) return EXIT.UNAVAILABLE;
  if (status === 404) return EXIT.USAGE;
  const byCode = code === undefined ? undefined : BY_CODE[code];
  if (byCode !== undefined) return byCode;
  if (status === 401 || status === 403) return EXIT.AUTH;
  if (status === 429 || status === 502 || status === 503 || status === 504) return EXIT.UNAVAILABLE;
  if (status >= 400 && status < 500) return EXIT.USAGE;
  return EXIT.FAILURE;
}
