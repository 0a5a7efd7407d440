import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AbortWatch } from '../db/database.js';
import {
  AppError,
  badInput,
  isDatabaseUnavailable,
  sendError as sendErrorAnswer,
  unavailable,
  unsupportedContentType,
} from '../errors.js';
import type { DocumentCache } from './document-cache.js';
import { type FormattedError, formatError } from './format-error.js';
import { type Executed, executeKept } from './kept-answers.js';
import {
  GRAPHQL_RESPONSE,
  isJsonContentType,
  JSON_TYPE,
  negotiate,
  type ResponseMediaType,
} from './media-type.js';
import { TimeLimit } from './time-limit.js';
import { coerceVariables } from './variables.js';

/** What one GraphQL endpoint (public or admin) decides for itself; the rest is shared. */
export interface GraphqlEndpoint<Context> {
  readonly documents: DocumentCache;
  /** Operation types the endpoint runs; any other is refused with 405. */
  readonly operations: ReadonlyArray<'query' | 'mutation'>;
  readonly timeoutMs: number;
  /**
   * Authenticates the request and builds the resolvers' context. It runs before the body is
   * looked at, so an unauthenticated caller learns nothing from it; an AppError it throws is
   * the answer. `signal` aborts when the request's time limit passes: queries made through it
   * stop then (Database.abortable). It may answer without a promise when it need not wait.
   */
  readonly context: (signal: AbortWatch) => Context | Promise<Context>;
  /** Entries for the answer's `extensions`, once the context exists (e.g. freshness). */
  readonly extensions?: (context: Context) => Record<string, unknown> | undefined;
  /** Told the outcome of every request that got past media type negotiation (e.g. metrics). */
  readonly observe?: (outcome: GraphqlOutcome) => void;
}

/** What a request did, for observers: nothing here identifies the caller or the document. */
export interface GraphqlOutcome {
  /** The operation's root fields when it was executed, else empty. */
  readonly rootFields: readonly string[];
  /** From the request's arrival to its answer. */
  readonly seconds: number;
  /** `extensions.code` of each error answered, in order. */
  readonly errorCodes: readonly string[];
}

interface GraphqlParams {
  query: string;
  variables: Record<string, unknown> | undefined;
  operationName: string | undefined;
}

/** Validates the request parameters (body or query string) of a GraphQL-over-HTTP request. */
function readParams(raw: unknown): GraphqlParams {
  if (Array.isArray(raw))
    throw badInput('Batched operations are not supported; send one operation per request');
  if (!raw || typeof raw !== 'object')
    throw badInput('The request body must be a JSON object with a "query"');
  const { query, variables, operationName } = raw as Record<string, unknown>;
  if (typeof query !== 'string' || query.trim() === '') throw badInput('"query" must be a non-empty string');
  let parsedVariables = variables;
  if (typeof variables === 'string') {
    // GET requests carry variables as JSON text.
    try {
      parsedVariables = JSON.parse(variables);
    } catch {
      throw badInput('"variables" must be a JSON object');
    }
  }
  if (parsedVariables !== undefined && parsedVariables !== null) {
    if (typeof parsedVariables !== 'object' || Array.isArray(parsedVariables))
      throw badInput('"variables" must be an object');
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
    throw badInput('"operationName" must be a string');
  }
  return {
    query,
    variables: (parsedVariables ?? undefined) as Record<string, unknown> | undefined,
    operationName: (operationName ?? undefined) as string | undefined,
  };
}

/** Each response media type's Content-Type header, made once. */
const CONTENT_TYPE: Readonly<Record<ResponseMediaType, string>> = {
  [GRAPHQL_RESPONSE]: `${GRAPHQL_RESPONSE}; charset=utf-8`,
  [JSON_TYPE]: `${JSON_TYPE}; charset=utf-8`,
};

function sendJson(
  reply: FastifyReply,
  status: number,
  mediaType: ResponseMediaType,
  json: string,
): FastifyReply {
  return reply.code(status).header('content-type', CONTENT_TYPE[mediaType]).send(json);
}

const send = (reply: FastifyReply, status: number, mediaType: ResponseMediaType, body: unknown) =>
  sendJson(reply, status, mediaType, JSON.stringify(body));

/** An error that decides the whole answer, in the media type the client accepts. */
function sendError(
  reply: FastifyReply,
  mediaType: ResponseMediaType,
  error: AppError,
  extensions?: Record<string, unknown>,
): FastifyReply {
  reply.header('content-type', CONTENT_TYPE[mediaType]);
  return sendErrorAnswer(reply, error, extensions && { extensions });
}

/**
 * A request error (the document does not parse or validate, the variables do not coerce): no
 * `data` entry; 400 for application/graphql-response+json, 200 for application/json.
 */
function sendRequestErrors(
  reply: FastifyReply,
  mediaType: ResponseMediaType,
  errors: readonly FormattedError[],
  extensions: Record<string, unknown> | undefined,
): FastifyReply {
  return send(reply, mediaType === GRAPHQL_RESPONSE ? 400 : 200, mediaType, {
    errors,
    ...(extensions && { extensions }),
  });
}

/**
 * Answers one GraphQL-over-HTTP request: media type negotiation, authentication (through
 * `endpoint.context`), parameter checks, the cached document, execution with a time limit, and
 * the status rules of the GraphQL over HTTP specification for both response media types.
 */
export async function executeGraphqlRequest<Context>(
  request: FastifyRequest,
  reply: FastifyReply,
  raw: unknown,
  endpoint: GraphqlEndpoint<Context>,
): Promise<FastifyReply> {
  const mediaType = negotiate(request.headers.accept);
  if (!mediaType) {
    return sendError(
      reply,
      'application/json',
      new AppError(
        'NOT_ACCEPTABLE',
        `Acceptable response types are application/json and ${GRAPHQL_RESPONSE}`,
      ),
    );
  }
  // Fastify also parses text/plain bodies; GraphQL over HTTP defines only application/json.
  if (request.method === 'POST' && !isJsonContentType(request.headers['content-type'])) {
    return sendError(reply, mediaType, unsupportedContentType());
  }
  // Once the caller is authenticated, every answer carries the endpoint's extensions, errors included.
  let extensions: Record<string, unknown> | undefined;
  const started = performance.now();
  let rootFields: readonly string[] = [];
  let errorCodes: readonly string[] = ['INTERNAL_SERVER_ERROR'];
  // One time limit for the whole request, authentication included.
  const limit = new TimeLimit(endpoint.timeoutMs);
  try {
    const context = await limit.run(() => endpoint.context(limit), true);
    extensions = endpoint.extensions?.(context);
    const params = readParams(raw);
    const prepared = endpoint.documents.prepare(params.query, params.operationName);
    // GraphQL over HTTP: a GET never runs a mutation (links and prefetches must be safe), and says
    // so with 405 even where the schema has no mutations at all.
    if (request.method === 'GET' && prepared.operation !== undefined && prepared.operation !== 'query') {
      throw new AppError('METHOD_NOT_ALLOWED', 'Mutations must be sent with POST', {
        headers: { allow: 'POST' },
      });
    }
    if (prepared.kind !== 'ok') {
      const errors = prepared.errors.map((e) => formatError(e, () => {}));
      errorCodes = errors.map((e) => e.extensions.code);
      return sendRequestErrors(reply, mediaType, errors, extensions);
    }
    if (!(endpoint.operations as readonly string[]).includes(prepared.operation)) {
      throw new AppError(
        'METHOD_NOT_ALLOWED',
        `Only ${endpoint.operations.join(' and ')} operations are supported`,
      );
    }
    const { errors: invalidVariables, coerced } = coerceVariables(
      endpoint.documents.schema,
      prepared.variableDefinitions,
      params.variables ?? {},
    );
    if (invalidVariables.length) {
      errorCodes = invalidVariables.map(() => 'BAD_USER_INPUT');
      return sendRequestErrors(
        reply,
        mediaType,
        invalidVariables.map((e) => ({
          ...formatError(e, () => {}),
          extensions: { code: 'BAD_USER_INPUT' },
        })),
        extensions,
      );
    }
    rootFields = prepared.rootFields;
    const executed: Executed = await limit.run(
      async () =>
        prepared.kept
          ? executeKept(prepared.kept, prepared.compiled, context, params.variables ?? {}, coerced)
          : { result: await prepared.compiled.query(undefined, context, params.variables ?? {}) },
      prepared.operation === 'query',
    );
    if ('data' in executed) {
      // An answer without errors, already written: only the extensions are added.
      errorCodes = [];
      const written = extensions ? `,"extensions":${JSON.stringify(extensions)}` : '';
      return sendJson(reply, 200, mediaType, `{"data":${executed.data}${written}}`);
    }
    const { result } = executed;
    const errors = result.errors?.map((e) =>
      formatError(e, (error) => request.log.error({ err: error }, 'unexpected error in resolver')),
    );
    errorCodes = errors?.map((e) => e.extensions.code) ?? [];
    if (!('data' in result) || result.data === undefined) {
      // Variables graphql-jit could not coerce (variableErrors let them through): a request error.
      errorCodes = errorCodes.map(() => 'BAD_USER_INPUT');
      return sendRequestErrors(
        reply,
        mediaType,
        (errors ?? []).map((e) => ({ ...e, extensions: { code: 'BAD_USER_INPUT' as const } })),
        extensions,
      );
    }
    // JSON leaves out an `extensions` that is undefined (the hosted schema's answers).
    const body = errors?.length
      ? { data: result.data, errors, extensions }
      : { data: result.data, extensions };
    const outage = errors?.some((e) => e.extensions.code === 'SERVICE_UNAVAILABLE');
    return send(reply, outage ? 503 : 200, mediaType, body);
  } catch (error) {
    if (error instanceof AppError || isDatabaseUnavailable(error)) {
      const answered = error instanceof AppError ? error : unavailable();
      errorCodes = [answered.code];
      return sendError(reply, mediaType, answered, extensions);
    }
    throw error;
  } finally {
    limit.dispose();
    endpoint.observe?.({ rootFields, seconds: (performance.now() - started) / 1000, errorCodes });
  }
}
