import {
  AuthenticationError,
  Client,
  NetworkError,
  PermissionError,
  RateLimitError,
  TimeoutError,
  UnavailableError,
  ValidationError,
  WfapiError,
} from '../../client/index.js';

export { AuthenticationError, Client };

/**
 * The SDK as the console uses it: same-origin `/graphql`, few retries (the view refreshes on its
 * own anyway), and every answer's `extensions.dataAsOf` reported to `onFreshness`. The SDK
 * answers `data` only, so the freshness is read from a copy of the response on its way in.
 */
export function createClient(apiKey: string, onFreshness: (dataAsOf: string) => void): Client {
  return new Client({
    url: new URL('/graphql', location.href).toString(),
    apiKey,
    retries: 1,
    timeoutMs: 20_000,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      response
        .clone()
        .json()
        .then((body: { extensions?: { dataAsOf?: unknown } } | null) => {
          const dataAsOf = body?.extensions?.dataAsOf;
          if (typeof dataAsOf === 'string') onFreshness(dataAsOf);
        })
        .catch(() => undefined);
      return response;
    },
  });
}

/** An error of the API or the network in words, with the API's own message. */
export function describeError(error: unknown): string {
  if (error instanceof AuthenticationError) return `The API refused the key: ${error.message}`;
  if (error instanceof PermissionError) return `This key may not read this: ${error.message}`;
  if (error instanceof RateLimitError)
    return `Too many requests for now; the view retries on its own. (${error.message})`;
  if (error instanceof ValidationError) return `The API refused the question: ${error.message}`;
  if (error instanceof UnavailableError) return `The service is unavailable for now: ${error.message}`;
  if (error instanceof TimeoutError) return `The API did not answer in time: ${error.message}`;
  if (error instanceof NetworkError) return `The server cannot be reached: ${error.message}`;
  if (error instanceof WfapiError) return `The API answered with an error (${error.code}): ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
