import {
  type AdminArgs,
  AdminClient,
  type AdminOperationName,
  type AdminResult,
  adminEndpointOf,
} from '../client/admin-client.js';
import { NetworkError, TimeoutError, WfapiError } from '../client/errors.js';
import { CliError, EXIT, exitCodeOf } from './exit-codes.js';

/** Where the admin interface of the running server is, and the operator token it expects. */
export interface AdminConnection {
  /** e.g. `http://127.0.0.1:4000/admin/graphql`. */
  readonly endpoint: string;
  readonly token: string;
}

/**
 * The admin endpoint for a server URL (see client/admin-client.ts), or undefined when it is not
 * an http(s) URL. WFAPI_URL is shared with the read commands, so `/graphql` is accepted too.
 */
export function adminEndpoint(url: string): string | undefined {
  try {
    return adminEndpointOf(url);
  } catch {
    return undefined;
  }
}

const TIMEOUT_MS = 30_000;

/** The one-line message and exit code (exitCodeOf) of a failed admin request. */
function adminCliError(error: unknown, endpoint: string): unknown {
  if (!(error instanceof WfapiError)) return error;
  if (error instanceof TimeoutError) {
    return new CliError(
      `the wfapi server at ${endpoint} did not answer within ${TIMEOUT_MS / 1000}s; retry later`,
      EXIT.UNAVAILABLE,
    );
  }
  if (error instanceof NetworkError) {
    // The SDK keeps fetch's error as the cause; undici keeps the system error below it.
    const failure = error.cause as
      | { message?: string; cause?: { code?: string; message?: string } }
      | undefined;
    const reason =
      failure?.cause?.code === 'ECONNREFUSED'
        ? 'connection refused (is `wfapi serve` running there?)'
        : (failure?.cause?.message ?? failure?.message ?? error.message);
    return new CliError(`cannot reach the wfapi server at ${endpoint}: ${reason}`, EXIT.UNAVAILABLE);
  }
  if (error.status === 404) {
    return new CliError(
      `no admin interface at ${endpoint} (HTTP 404): is it a wfapi server started with WFAPI_ADMIN_TOKEN set? Check --url or WFAPI_URL`,
      EXIT.USAGE,
    );
  }
  if (error.status === 401) {
    return new CliError(
      'the server refused the admin token: check WFAPI_ADMIN_TOKEN or --admin-token',
      EXIT.AUTH,
    );
  }
  const first = error.errors[0];
  if (first && typeof first.message === 'string') {
    return new CliError(first.message.split('\n')[0]!, exitCodeOf(error));
  }
  return new CliError(`unexpected answer from ${endpoint} (HTTP ${error.status})`, exitCodeOf(error));
}

/**
 * Runs one admin operation (the generated ADMIN_OPERATIONS, through the SDK's AdminClient) and
 * resolves with its result. Every failure (unreachable server, no admin interface, refused
 * token, an error the server reports) becomes a CliError with a one-line reason, so a command
 * never prints a stack trace. Nothing is retried: a mutation may not be sent twice.
 */
export async function adminRequest<K extends AdminOperationName>(
  connection: AdminConnection,
  name: K,
  args: AdminArgs<K>,
): Promise<AdminResult<K>> {
  const client = new AdminClient({
    url: connection.endpoint,
    adminToken: connection.token,
    timeoutMs: TIMEOUT_MS,
    retries: 0,
  });
  try {
    return await client.request(name, args);
  } catch (error) {
    throw adminCliError(error, connection.endpoint);
  }
}
