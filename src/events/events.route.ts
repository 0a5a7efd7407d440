import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';
import { AppError, badInput, isDatabaseUnavailable, unavailable } from '../errors.js';
import type { AdmitKey } from '../http/admit-key.js';
import { normalizeUuid } from '../lib/uuid.js';
import {
  type WorkflowExecutionStatus,
  WorkflowExecutionStatusValues,
} from '../schema/schema-types.generated.js';
import { latestChangeId } from './change-feed.store.js';
import type { EventHub } from './event-hub.js';
import { EventStream, type StreamFilter } from './event-stream.js';
import { sseComment } from './sse.js';

export interface EventsRouteDeps {
  readonly db: Database;
  readonly admit: AdmitKey;
  readonly hub: EventHub;
}

const PARAMETERS = new Set(['workflowUUID', 'status', 'history']);
const STATUSES = new Set<string>(WorkflowExecutionStatusValues);
/** Ids are positive integers that JavaScript numbers hold exactly. */
const CURSOR = /^\d{1,15}$/;
/** What a client asking for SSE may send in Accept (an absent header accepts anything). */
const ACCEPTS_SSE = /(^|,)\s*(text\/event-stream|text\/\*|\*\/\*)\s*(;|,|$)/i;

/**
 * `?workflowUUID=<uuid>&status=A,B` (or `status=A&status=B`) and `history=true|false`; anything
 * else is refused with 400.
 */
export function parseStreamFilter(query: Record<string, string | string[] | undefined>): StreamFilter {
  for (const name of Object.keys(query)) {
    if (!PARAMETERS.has(name)) {
      throw badInput(
        `Unknown query parameter "${name.slice(0, 64)}"; /events takes workflowUUID, status and history`,
      );
    }
  }
  const one = (name: string): string | undefined => {
    const value = query[name];
    if (Array.isArray(value)) throw badInput(`Query parameter ${name} may be given once`);
    return value;
  };
  const uuidText = one('workflowUUID');
  const workflowUuid = uuidText === undefined ? undefined : normalizeUuid(uuidText);
  if (uuidText !== undefined && workflowUuid === undefined) {
    throw badInput(`workflowUUID must be a uuid, got "${uuidText.slice(0, 64)}"`);
  }
  const statusTexts = [query.status ?? []].flat().flatMap((text) => text.split(','));
  for (const status of statusTexts) {
    if (!STATUSES.has(status)) {
      throw badInput(
        `status must be one of ${WorkflowExecutionStatusValues.join(', ')}, got "${status.slice(0, 64)}"`,
      );
    }
  }
  const history = one('history');
  if (history !== undefined && history !== 'true' && history !== 'false') {
    throw badInput(`history must be true or false, got "${history.slice(0, 64)}"`);
  }
  return {
    workflowUuid,
    statuses: statusTexts.length ? new Set(statusTexts as WorkflowExecutionStatus[]) : undefined,
    history: history === 'true',
  };
}

function parseLastEventId(header: string | string[] | undefined): number | undefined {
  if (header === undefined || header === '') return undefined;
  if (typeof header !== 'string' || !CURSOR.test(header.trim())) {
    throw badInput('Last-Event-ID must be the id of an event this stream sent');
  }
  return Number(header.trim());
}

/** The headers that open a stream (a HEAD is answered them too). */
const STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  'x-accel-buffering': 'no',
} as const;

/**
 * `GET /events` (contract section 5): the organization's execution changes as Server-Sent
 * Events. Authentication and the key's rate limit are those of /graphql; failures answer the
 * contract's error shape before any byte of the stream. `Last-Event-ID` resumes after that event.
 * `HEAD /events` (Fastify routes it here) is answered at once with the status and headers a GET
 * would get, and holds no stream slot.
 */
export function registerEventsRoute(app: FastifyInstance, deps: EventsRouteDeps): void {
  const { db, admit, hub } = deps;
  app.get('/events', async (request, reply) => {
    const principal = await admit(request, reply);
    const accept = request.headers.accept;
    if (accept !== undefined && !ACCEPTS_SSE.test(accept)) {
      throw new AppError('NOT_ACCEPTABLE', '/events answers text/event-stream; accept it');
    }
    const filter = parseStreamFilter(request.query as Record<string, string | string[] | undefined>);
    const resumeAfter = parseLastEventId(request.headers['last-event-id']);
    hub.reserve(principal.keyId);
    if (request.method === 'HEAD') {
      hub.release(principal.keyId);
      return reply.code(200).headers(STREAM_HEADERS).send();
    }
    let after: number;
    try {
      after = resumeAfter ?? (await latestChangeId(db, principal.organizationId));
    } catch (error) {
      hub.release(principal.keyId);
      throw isDatabaseUnavailable(error) ? unavailable() : error;
    }
    // From here on the response is the stream: Fastify's reply (and its hooks) step aside.
    reply.hijack();
    const response = reply.raw;
    response.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      ...STREAM_HEADERS,
      'x-request-id': request.id,
    });
    const stream = new EventStream(principal.organizationId, principal.keyId, filter, after, response);
    // The client may have gone while the cursor was read: then 'close' has fired already.
    if (response.destroyed || request.raw.socket.destroyed) {
      hub.release(principal.keyId);
      response.destroy();
      return;
    }
    response.on('close', () => hub.remove(stream));
    // The headers and a first line at once, so that clients and proxies see the stream is open.
    stream.write([`retry: 1000\n${sseComment('connected')}`]);
    hub.add(stream);
  });
}
