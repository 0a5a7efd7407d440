import type { WorkflowExecution, WorkflowExecutionStatus } from '../schema/schema-types.generated.js';
import { errorFromAnswer, type GraphqlErrorEntry, NetworkError, TimeoutError, WfapiError } from './errors.js';
import { type RetryPolicy, retryDelay, sleep } from './retry.js';
import type { Transport } from './transport.js';

/** What `Client.events` streams: the server's `GET /events` filters and where to resume. */
export interface EventsInput {
  readonly workflowUUID?: string;
  readonly status?: readonly WorkflowExecutionStatus[];
  /** Resume after this event id (a previous event's `id`); without it the stream starts now. */
  readonly lastEventId?: string;
  /**
   * Also changes of executions that were already old when ingested (a backfill of past weeks);
   * by default the server sends live changes only.
   */
  readonly history?: boolean;
}

export interface EventsOptions {
  /** Ends the iteration (it returns, it does not throw). */
  readonly signal?: AbortSignal;
  /**
   * Reconnect when no byte arrived for this long (default 45 000 ms: three of the server's
   * 15 s heartbeats), as a dropped connection behind a proxy may never be reported.
   */
  readonly idleTimeoutMs?: number;
  /** Told before each reconnection, with the failure and the wait. */
  readonly onReconnect?: (notice: { readonly error: WfapiError; readonly delayMs: number }) => void;
}

/** One `execution` event: the cursor to resume after, and the execution as /graphql answers it. */
export interface ExecutionEvent {
  readonly id: string;
  readonly execution: WorkflowExecution;
}

/** Reconnection backoff: the server's `retry` first, doubling on consecutive failures up to 30 s. */
const RECONNECT: RetryPolicy = { retries: Number.POSITIVE_INFINITY, baseDelayMs: 1000, maxDelayMs: 30_000 };

/** `/events` beside the GraphQL endpoint (`.../graphql` → `.../events`). */
export function eventsUrl(endpoint: string, input: EventsInput): string {
  const url = new URL(endpoint);
  url.pathname = url.pathname.replace(/\/graphql\/?$|\/?$/, '/events');
  url.search = '';
  if (input.workflowUUID) url.searchParams.set('workflowUUID', input.workflowUUID);
  if (input.status?.length) url.searchParams.set('status', input.status.join(','));
  if (input.history) url.searchParams.set('history', 'true');
  return url.toString();
}

/**
 * The execution changes of the key's organization as they happen, reconnecting with
 * `Last-Event-ID` whenever the connection drops, so that no change is missed or repeated (within
 * the server's 24 hours of history). Errors a retry cannot mend (a bad key, a bad filter) end the
 * iteration by throwing; a 429 or an unreachable server is retried with backoff.
 */
export async function* streamEvents(
  transport: Transport,
  input: EventsInput,
  options: EventsOptions = {},
): AsyncGenerator<ExecutionEvent, void, undefined> {
  const url = eventsUrl(transport.endpoint, input);
  const idleTimeoutMs = options.idleTimeoutMs ?? 45_000;
  let lastEventId = input.lastEventId;
  let failures = 0;
  let serverRetryMs: number | undefined;
  while (!options.signal?.aborted) {
    const controller = new AbortController();
    const stop = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', stop, { once: true });
    let idle: ReturnType<typeof setTimeout> | undefined;
    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(
        () => controller.abort(new TimeoutError(`no data for ${idleTimeoutMs} ms`, { code: 'TIMEOUT' })),
        idleTimeoutMs,
      );
    };
    let failure: WfapiError;
    try {
      touch();
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
      const response = await transport.openStream(url, headers, controller.signal);
      for await (const message of sseMessages(response.body!, touch)) {
        failures = 0;
        if (message.retry !== undefined) serverRetryMs = message.retry;
        if (message.event === 'closed') throw closedError(message.data);
        if (message.event !== 'execution' || message.data === undefined) continue;
        if (message.id !== undefined) lastEventId = message.id;
        yield { id: message.id ?? '', execution: JSON.parse(message.data) as WorkflowExecution };
      }
      failure = new NetworkError(`the server closed the stream ${url}`, { code: 'NETWORK_ERROR' });
    } catch (error) {
      if (options.signal?.aborted) return;
      if (controller.signal.reason instanceof TimeoutError) failure = controller.signal.reason;
      else if (error instanceof WfapiError) failure = error;
      else failure = new NetworkError(`the stream ${url} broke: ${String(error)}`, { code: 'NETWORK_ERROR' });
    } finally {
      clearTimeout(idle);
      options.signal?.removeEventListener('abort', stop);
      controller.abort();
    }
    if (!failure.retryable) throw failure;
    const delayMs =
      retryDelay(
        { ...RECONNECT, baseDelayMs: serverRetryMs ?? RECONNECT.baseDelayMs },
        failures++,
        failure.retryAfterMs,
      ) ?? RECONNECT.maxDelayMs;
    options.onReconnect?.({ error: failure, delayMs });
    try {
      await sleep(delayMs, options.signal);
    } catch {
      return;
    }
  }
}

/**
 * The server ended the stream because its key no longer admits it (revoked, expired, its member's
 * access or its organization gone): the error a new request would get, thrown at once.
 */
function closedError(data: string | undefined): WfapiError {
  let errors: GraphqlErrorEntry[] | undefined;
  try {
    errors = (JSON.parse(data ?? '') as { errors?: GraphqlErrorEntry[] }).errors;
  } catch {}
  const code = errors?.[0]?.extensions?.code;
  return errorFromAnswer({
    status: code === 'FORBIDDEN' ? 403 : 401,
    errors,
    requestId: undefined,
    retryAfterMs: undefined,
    fallbackMessage: 'the server ended the stream: the API key no longer admits it',
  });
}

interface SseMessage {
  id: string | undefined;
  event: string;
  data: string | undefined;
  retry: number | undefined;
}

/** Parses a Server-Sent Events body (the WHATWG HTML "event stream interpretation"), calling `touch` on every chunk. */
async function* sseMessages(body: ReadableStream<Uint8Array>, touch: () => void): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = '';
  let message: SseMessage = { id: undefined, event: 'message', data: undefined, retry: undefined };
  // A reader rather than async iteration of the body, which not every browser offers.
  const reader = body.getReader();
  for (;;) {
    const { done, value: chunk } = await reader.read();
    if (done) return;
    touch();
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.search(/\r\n|\r|\n/);
    while (end >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
      if (line === '') {
        if (message.data !== undefined || message.retry !== undefined) yield message;
        message = { id: undefined, event: 'message', data: undefined, retry: undefined };
      } else if (!line.startsWith(':')) {
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') message.data = message.data === undefined ? value : `${message.data}\n${value}`;
        else if (field === 'event') message.event = value;
        else if (field === 'id' && !value.includes('\0')) message.id = value;
        else if (field === 'retry' && /^\d+$/.test(value)) message.retry = Number(value);
      }
      end = buffer.search(/\r\n|\r|\n/);
    }
  }
}
