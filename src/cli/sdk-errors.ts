import {
  AuthenticationError,
  NetworkError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServerError,
  TimeoutError,
  UnavailableError,
  ValidationError,
  WfapiError,
} from '../client/index.js';
import { CliError, EXIT } from './run.js';

/**
 * The one-line message and exit code of an SDK failure. Messages say what happened and what to
 * check next; CliErrors and anything else pass through unchanged.
 */
export function cliErrorOf(error: unknown, endpoint: string): unknown {
  if (!(error instanceof WfapiError)) return error;
  const id = error.requestId ? ` (request id ${error.requestId})` : '';
  if (error instanceof AuthenticationError) {
    return new CliError(
      `the server at ${endpoint} refused the API key: ${error.message}. Check WFAPI_API_KEY or --api-key`,
      EXIT.AUTH,
    );
  }
  if (error instanceof PermissionError) return new CliError(`permission denied: ${error.message}`, EXIT.AUTH);
  if (error instanceof NotFoundError) {
    return error.status === 404
      ? new CliError(`no GraphQL endpoint at ${endpoint} (HTTP 404); check WFAPI_URL or --url`, EXIT.USAGE)
      : new CliError(error.message, EXIT.NOT_FOUND);
  }
  if (error instanceof ValidationError) return new CliError(`invalid request: ${error.message}`, EXIT.USAGE);
  if (error instanceof NetworkError) {
    return new CliError(
      `${error.message}. Is the server running? Set WFAPI_URL or --url to its address`,
      EXIT.UNAVAILABLE,
    );
  }
  if (error instanceof TimeoutError) {
    return new CliError(`${error.message}; retry later or raise --timeout`, EXIT.UNAVAILABLE);
  }
  if (error instanceof RateLimitError) {
    const wait = error.retryAfterMs === undefined ? '' : ` in ${Math.ceil(error.retryAfterMs / 1000)}s`;
    return new CliError(`rate limited by ${endpoint}: ${error.message}; try again${wait}`, EXIT.UNAVAILABLE);
  }
  if (error instanceof UnavailableError) {
    return new CliError(`the service is unavailable: ${error.message}${id}; retry later`, EXIT.UNAVAILABLE);
  }
  if (error instanceof ServerError) return new CliError(`server error: ${error.message}${id}`, EXIT.FAILURE);
  // An answer without a GraphQL body (an HTML page, a proxy's error) means the URL is probably wrong.
  const hint = error.code.startsWith('HTTP_') ? `; is ${endpoint} a wfapi GraphQL endpoint?` : '';
  return new CliError(`${error.message}${id}${hint}`, EXIT.FAILURE);
}
