import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { createContext } from '../context.js';
import type { Database } from '../db/database.js';
import { AppError, badInput, errorBody, isDatabaseUnavailable, unavailable } from '../errors.js';
import { authenticate, type Principal } from '../modules/auth/authenticate.js';
import type { KeyUsageRecorder } from '../modules/auth/key-usage.js';
import { type RateLimiter, rateLimitHeaders } from '../modules/auth/rate-limit.js';
import type { DocumentCache } from './document-cache.js';
import { formatError } from './format-error.js';
import { renderGraphiql } from './graphiql.js';
import { GRAPHQL_RESPONSE, negotiate, type ResponseMediaType } from './media-type.js';

export interface GraphqlRouteDeps {
  readonly config: Config;
  readonly db: Database;
  readonly documents: DocumentCache;
  readonly rateLimiter: RateLimiter;
  readonly keyUsage: KeyUsageRecorder;
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

function send(
  reply: FastifyReply,
  status: number,
  mediaType: ResponseMediaType,
  body: unknown,
): FastifyReply {
  return reply.code(status).header('content-type', `${mediaType}; charset=utf-8`).send(JSON.stringify(body));
}

function sendError(reply: FastifyReply, mediaType: ResponseMediaType, error: AppError): FastifyReply {
  reply.headers(error.headers);
  return send(reply, error.status, mediaType, errorBody(error));
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(unavailable(`The request exceeded its time limit of ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export function registerGraphqlRoutes(app: FastifyInstance, deps: GraphqlRouteDeps): void {
  const { config, db, documents, rateLimiter, keyUsage } = deps;

  /** Authentication, then the key's rate limit; failures are charged to the client address only. */
  async function admit(request: FastifyRequest, reply: FastifyReply): Promise<Principal> {
    let principal: Principal;
    try {
      principal = await authenticate(db, request.headers.authorization);
    } catch (error) {
      if (error instanceof AppError && error.code === 'UNAUTHENTICATED') {
        const decision = await rateLimiter
          .take(`auth:${request.ip}`, config.authFailureLimit)
          .catch(() => undefined);
        if (decision && !decision.allowed) {
          throw new AppError('RATE_LIMITED', 'Too many failed authentication attempts; retry later', {
            headers: { 'retry-after': String(decision.retryAfterSeconds) },
          });
        }
      }
      throw isDatabaseUnavailable(error) ? unavailable() : error;
    }
    request.log = request.log.child({ organizationId: principal.organizationId, keyId: principal.keyId });
    // A rate limiter outage must not take the API down: such requests are let through.
    const decision = await rateLimiter.take(`key:${principal.keyId}`, config.rateLimit).catch((error) => {
      request.log.warn({ err: error }, 'rate limiter unavailable');
      return undefined;
    });
    if (decision) {
      reply.headers(rateLimitHeaders(decision, config.rateLimit, 'per-key'));
      if (!decision.allowed)
        throw new AppError('RATE_LIMITED', 'Rate limit exceeded; retry after the Retry-After delay');
    }
    keyUsage.touch(principal.keyId);
    return principal;
  }

  async function handle(request: FastifyRequest, reply: FastifyReply, raw: unknown): Promise<FastifyReply> {
    const mediaType = negotiate(request.headers.accept);
    if (!mediaType) {
      return sendError(
        reply,
        'application/json',
        new AppError(
          'BAD_USER_INPUT',
          `Acceptable response types are application/json and ${GRAPHQL_RESPONSE}`,
          {
            status: 406,
          },
        ),
      );
    }
    try {
      const principal = await admit(request, reply);
      const params = readParams(raw);
      const prepared = documents.prepare(params.query, params.operationName);
      if (prepared.kind !== 'ok') {
        const errors = prepared.errors.map((e) => formatError(e, () => {}));
        return send(reply, mediaType === GRAPHQL_RESPONSE ? 400 : 200, mediaType, { errors });
      }
      if (prepared.operation !== 'query') {
        throw new AppError('BAD_USER_INPUT', 'Only query operations are supported', { status: 405 });
      }
      const context = createContext(db, principal);
      const result = await withTimeout(
        Promise.resolve(prepared.compiled.query(undefined, context, params.variables ?? {})),
        config.limits.requestTimeoutMs,
      );
      const errors = result.errors?.map((e) =>
        formatError(e, (error) => request.log.error({ err: error }, 'unexpected error in resolver')),
      );
      if (!('data' in result) || result.data === undefined) {
        // Variables that do not coerce: a request error, with no data entry.
        const requestErrors = (errors ?? []).map((e) => ({
          ...e,
          extensions: { code: 'BAD_USER_INPUT' as const },
        }));
        return send(reply, mediaType === GRAPHQL_RESPONSE ? 400 : 200, mediaType, { errors: requestErrors });
      }
      const body = errors?.length ? { data: result.data, errors } : { data: result.data };
      const outage = errors?.some((e) => e.extensions.code === 'SERVICE_UNAVAILABLE');
      return send(reply, outage ? 503 : 200, mediaType, body);
    } catch (error) {
      if (error instanceof AppError) return sendError(reply, mediaType, error);
      if (isDatabaseUnavailable(error)) return sendError(reply, mediaType, unavailable());
      throw error;
    }
  }

  app.post('/graphql', { bodyLimit: config.limits.maxBodyBytes }, (request, reply) =>
    handle(request, reply, request.body),
  );

  app.get('/graphql', (request, reply) => {
    const query = request.query as Record<string, unknown>;
    if (request.headers.accept?.includes('text/html') && query.query === undefined) {
      return reply.type('text/html; charset=utf-8').send(renderGraphiql());
    }
    return handle(request, reply, query);
  });
}
