import { CliError, EXIT, exitCodeOf } from './exit-codes.js';

/** Where the admin interface of the running server is, and the operator token it expects. */
export interface AdminConnection {
  /** e.g. `http://127.0.0.1:4000/admin/graphql`. */
  readonly endpoint: string;
  readonly token: string;
}

/**
 * The admin endpoint for a server URL, which may be the server's base URL (with a path prefix
 * behind a proxy) or its public `/graphql` endpoint, since WFAPI_URL is shared with the read
 * commands: `http://h:4000`, `http://h:4000/graphql` -> `http://h:4000/admin/graphql`.
 */
export function adminEndpointOf(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  const path = parsed.pathname.replace(/\/+$/, '');
  if (!path.endsWith('/admin/graphql')) {
    parsed.pathname = `${path.endsWith('/graphql') ? path.slice(0, -'/graphql'.length) : path}/admin/graphql`;
  }
  return parsed.toString();
}

const TIMEOUT_MS = 30_000;

interface GraphqlAnswer {
  data?: unknown;
  errors?: ReadonlyArray<{ message?: unknown; extensions?: { code?: unknown } }>;
}

function unreachable(connection: AdminConnection, error: unknown): CliError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if ((error as Error).name === 'TimeoutError')
    return new CliError(
      `the wfapi server at ${connection.endpoint} did not answer within ${TIMEOUT_MS / 1000}s; retry later`,
      EXIT.UNAVAILABLE,
    );
  const reason =
    cause?.code === 'ECONNREFUSED'
      ? 'connection refused (is `wfapi serve` running there?)'
      : (cause?.message ?? (error as Error).message);
  return new CliError(`cannot reach the wfapi server at ${connection.endpoint}: ${reason}`, EXIT.UNAVAILABLE);
}

const codeOf = (code: unknown) => (typeof code === 'string' ? code : undefined);

function parseAnswer(text: string): GraphqlAnswer | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' ? (parsed as GraphqlAnswer) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Sends one operation to `POST <url>/admin/graphql` and resolves with its `data`. Every failure
 * (unreachable server, no admin interface, refused token, an error the server reports) becomes a
 * CliError with a one-line reason, so a command never prints a stack trace.
 */
export async function adminRequest<Data>(
  connection: AdminConnection,
  query: string,
  variables: Record<string, unknown>,
): Promise<Data> {
  let response: Response;
  try {
    response = await fetch(connection.endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        authorization: `Bearer ${connection.token}`,
      },
      body: JSON.stringify({ query, variables }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    throw unreachable(connection, error);
  }
  const answer = parseAnswer(await response.text().catch(() => ''));
  if (response.status === 404) {
    throw new CliError(
      `no admin interface at ${connection.endpoint} (HTTP 404): is it a wfapi server started with WFAPI_ADMIN_TOKEN set? Check --url or WFAPI_URL`,
      EXIT.USAGE,
    );
  }
  if (response.status === 401) {
    throw new CliError(
      'the server refused the admin token: check WFAPI_ADMIN_TOKEN or --admin-token',
      EXIT.AUTH,
    );
  }
  const first = answer?.errors?.[0];
  if (first && typeof first.message === 'string') {
    throw new CliError(
      first.message.split('\n')[0]!,
      exitCodeOf({ code: codeOf(first.extensions?.code), status: response.status }),
    );
  }
  if (!response.ok || !answer || answer.data === null || typeof answer.data !== 'object') {
    throw new CliError(`unexpected answer from ${connection.endpoint} (HTTP ${response.status})`);
  }
  return answer.data as Data;
}
