import { errorFromAnswer, type GraphqlErrorEntry, NetworkError, TimeoutError, WfapiError } from './errors.js';
import { parseRetryAfter, type RetryPolicy, retryDelay, sleep } from './retry.js';

/**
 * One request over HTTP with a time limit per attempt, cancellation and retries: GraphQL for
 * the SDK and the AdminClient, NDJSON chunks for the ingest client. Uses only what Node 20 and
 * browsers both provide: fetch, AbortController and timers.
 */

export interface ClientOptions {
  /**
   * The GraphQL endpoint, e.g. `https://api.example.com/graphql`. A URL without a path
   * (`http://127.0.0.1:4000`) means its `/graphql`.
   */
  readonly url: string;
  /** Sent as `Authorization: Apikey <apiKey>`. */
  readonly apiKey: string;
  /** Time limit of one attempt, in milliseconds (default 30 000). */
  readonly timeoutMs?: number;
  /** Retries after a 429, a 5xx, a timeout or a network failure (default 3; 0 disables them). */
  readonly retries?: number;
  /** First backoff ceiling in milliseconds, doubled on each retry (default 500). */
  readonly retryDelayMs?: number;
  /** Longest single wait in milliseconds; a longer `Retry-After` is not waited for (default 30 000). */
  readonly maxRetryDelayMs?: number;
  /** Extra headers for every request (not Authorization). */
  readonly headers?: Readonly<Record<string, string>>;
  /** A fetch implementation, e.g. one with a proxy agent; the global fetch by default. */
  readonly fetch?: typeof fetch;
}

/** What a transport is built from: where it posts and the Authorization it sends, besides the client's options. */
export interface TransportOptions extends Omit<ClientOptions, 'url' | 'apiKey'> {
  /** The GraphQL endpoint itself, e.g. `http://127.0.0.1:4000/graphql`. */
  readonly endpoint: string;
  /** The `Authorization` header, e.g. `Apikey wfk_...` or `Bearer <operator token>`. */
  readonly authorization: string;
  /** The bodies' media type (default application/json) and the answers' accepted ones. */
  readonly contentType?: string;
  readonly accept?: string;
}

/** An answer as it arrived, for the reader given to `send`. */
export interface Answer {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly text: string;
}

/** A retry about to happen: the failure, which retry it is (from 1) and the wait before it. */
export interface RetryNotice {
  readonly attempt: number;
  readonly delayMs: number;
  readonly error: WfapiError;
}

export interface RequestOptions {
  /** Cancels the request, including retries and waits; it rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Overrides the client's time limit of one attempt. */
  readonly timeoutMs?: number;
  /** Called before each retry. */
  readonly onRetry?: (retry: RetryNotice) => void;
}

const ACCEPT = 'application/graphql-response+json, application/json;q=0.9';

/** `url` parsed; a TypeError when it is not an http(s) URL. */
export function httpUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`not a URL: "${url}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`the URL must start with http:// or https://, got "${url}"`);
  }
  return parsed;
}

/** The endpoint for a URL: `/graphql` when it names no path. */
export function endpointOf(url: string): string {
  const parsed = httpUrl(url);
  if (parsed.pathname === '/' || parsed.pathname === '') parsed.pathname = '/graphql';
  return parsed.toString();
}

export class Transport {
  readonly endpoint: string;
  private readonly policy: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly headers: Record<string, string>;
  private readonly fetch: typeof fetch;

  constructor(options: TransportOptions) {
    this.endpoint = options.endpoint;
    this.policy = {
      retries: options.retries ?? 3,
      baseDelayMs: options.retryDelayMs ?? 500,
      maxDelayMs: options.maxRetryDelayMs ?? 30_000,
    };
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.headers = {
      ...options.headers,
      'content-type': options.contentType ?? 'application/json',
      accept: options.accept ?? ACCEPT,
      authorization: options.authorization,
    };
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** Sends the operation until it succeeds, fails for good, or runs out of retries; resolves with `data`. */
  execute(
    query: string,
    variables: Record<string, unknown>,
    options: RequestOptions = {},
  ): Promise<Record<string, unknown>> {
    return this.send(JSON.stringify({ query, variables }), readAnswer, options);
  }

  /**
   * Sends `body` until `read` accepts an answer, the failure is final (an error that is not
   * retryable, from `read` or the network) or the retries run out; resolves with what `read` made.
   */
  async send<T>(body: string, read: (answer: Answer) => T, options: RequestOptions = {}): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      options.signal?.throwIfAborted();
      try {
        return await this.attempt(body, read, options);
      } catch (error) {
        if (options.signal?.aborted) throw options.signal.reason;
        if (!(error instanceof WfapiError) || !error.retryable) throw error;
        const delay = retryDelay(this.policy, attempt, error.retryAfterMs);
        if (delay === undefined) throw error;
        options.onRetry?.({ attempt: attempt + 1, delayMs: delay, error });
        await sleep(delay, options.signal);
      }
    }
  }

  /**
   * Opens a GET of `url` whose answer is read as it arrives (Server-Sent Events): resolves with
   * the response once its status is 2xx, else rejects with the WfapiError its answer makes. No
   * retries and no time limit here: the caller of a stream decides when to reconnect.
   */
  async openStream(url: string, headers: Record<string, string>, signal: AbortSignal): Promise<Response> {
    const { 'content-type': _type, ...sent } = this.headers;
    let response: Response;
    try {
      response = await this.fetch(url, { method: 'GET', headers: { ...sent, ...headers }, signal });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw new NetworkError(`cannot reach ${url}: ${networkReason(error)}`, {
        code: 'NETWORK_ERROR',
        cause: error,
      });
    }
    if (response.ok) return response;
    const { status, statusText } = response;
    return readAnswer({
      status,
      statusText,
      headers: response.headers,
      text: await response.text(),
    }) as never;
  }

  private async attempt<T>(body: string, read: (answer: Answer) => T, options: RequestOptions): Promise<T> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const forward = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', forward, { once: true });
    try {
      const response = await this.fetch(this.endpoint, {
        method: 'POST',
        headers: this.headers,
        body,
        signal: controller.signal,
      });
      const { status, statusText, headers } = response;
      return read({ status, statusText, headers, text: await response.text() });
    } catch (error) {
      if (error instanceof WfapiError) throw error;
      if (options.signal?.aborted) throw options.signal.reason;
      if (controller.signal.aborted) {
        throw new TimeoutError(`no answer from ${this.endpoint} within ${timeoutMs} ms`, { code: 'TIMEOUT' });
      }
      throw new NetworkError(`cannot reach ${this.endpoint}: ${networkReason(error)}`, {
        code: 'NETWORK_ERROR',
        cause: error,
      });
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', forward);
    }
  }
}

/** The `data` of a successful answer; any `errors` entry or failed status becomes a WfapiError. */
function readAnswer({ status, headers, text }: Answer): Record<string, unknown> {
  let body: { data?: unknown; errors?: unknown } | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed;
  } catch {
    body = undefined;
  }
  const errors = Array.isArray(body?.errors) ? (body.errors as GraphqlErrorEntry[]) : undefined;
  const data = body?.data;
  if (status >= 200 && status < 300 && !errors?.length && data && typeof data === 'object') {
    return data as Record<string, unknown>;
  }
  const type = headers.get('content-type')?.split(';')[0] ?? 'no content type';
  throw errorFromAnswer({
    status,
    errors: errors?.length ? errors : undefined,
    requestId: headers.get('x-request-id') ?? undefined,
    retryAfterMs: parseRetryAfter(headers.get('retry-after')),
    fallbackMessage:
      status >= 200 && status < 300
        ? `unexpected answer without data (HTTP ${status}, ${type})`
        : `HTTP ${status} (${type})`,
  });
}

/** The most telling part of a fetch failure: undici wraps the system error (ECONNREFUSED...) as `cause`. */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  const inner = cause instanceof Error ? cause : error instanceof Error ? error : undefined;
  const code = (inner as { code?: unknown } | undefined)?.code;
  const message = inner?.message ?? String(error);
  return typeof code === 'string' && !message.includes(code) ? `${code} ${message}` : message;
}
