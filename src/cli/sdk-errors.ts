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
import { CliError, exitCodeOf } from './exit-codes.js';

/**
 * The one-line message and exit code (exitCodeOf) of an SDK failure. Messages say what happened
 * and what to check next; CliErrors and anything else pass through unchanged.
 */
export function cliErrorOf(error: unknown, endpoint: string): unknown {
  if (!(error instanceof WfapiError)) return error;
  const fail = (message: string) => new CliError(message, exitCodeOf(error));
  const id = error.requestId ? ` (request id ${error.requestId})` : '';
  if (error instanceof AuthenticationError) {
    return fail(
      `the server at ${endpoint} refused the API key: ${error.message}. Check WFAPI_API_KEY or --api-key`,
    );
  }
  if (error instanceof PermissionError) return fail(`permission denied: ${error.message}`);
  if (error instanceof NotFoundError) {
    return error.status === 404
      ? fail(`no GraphQL endpoint at ${endpoint} (HTTP 404); check WFAPI_URL or --url`)
      : fail(error.message);
  }
  if (error instanceof ValidationError) return fail(`invalid request: ${error.message}`);
  if (error instanceof NetworkError) {
    return fail(`${error.message}. Is the server running? Set WFAPI_URL or --url to its address`);
  }
  if (error instanceof TimeoutError) {
    return fail(`${error.message}; retry later or raise --timeout`);
  }
  if (error instanceof RateLimitError) {
    const wait = error.retryAfterMs === undefined ? '' : ` in ${Math.ceil(error.retryAfterMs / 1000)}s`;
    return fail(`rate limited by ${endpoint}: ${error.message}; try again${wait}`);
  }
  if (error instanceof UnavailableError) {
    return fail(`the service is unavailable: ${error.message}${id}; retry later`);
  }
  if (error instanceof ServerError) return fail(`server error: ${error.message}${id}`);
  // An answer without a GraphQL body (an HTML page, a proxy's error) means the URL is probably wrong.
  const hint = error.code.startsWith('HTTP_') ? `; is ${endpoint} a wfapi GraphQL endpoint?` : '';
  return fail(`${error.message}${id}${hint}`);
}
