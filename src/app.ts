import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { registerAdminRoutes } from './admin/admin.route.js';
import { answerClientError } from './client-error.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { openDatabase } from './db/open.js';
import { AppError, errorBody, unavailable } from './errors.js';
import { registerCors } from './graphql/cors.js';
import { DocumentCache } from './graphql/document-cache.js';
import { registerGraphqlRoutes } from './graphql/graphql.route.js';
import { JSON_TYPE, negotiate } from './graphql/media-type.js';
import { registerIngestRoutes } from './ingest/ingest.route.js';
import { CredentialCache } from './modules/auth/credential-cache.js';
import { KeyUsageRecorder } from './modules/auth/key-usage.js';
import { MemoryRateLimiter, type RateLimiter, RedisRateLimiter } from './modules/auth/rate-limit.js';
import { buildPublicSchema } from './schema/schema.js';

export interface App {
  readonly server: FastifyInstance;
  readonly db: Database;
  readonly config: Config;
  /** Listens and resolves with the base URL, e.g. `http://127.0.0.1:4000`. */
  listen(): Promise<string>;
  /** Stops accepting requests, drains in-flight ones, flushes key usage and closes the database. */
  close(): Promise<void>;
}

export interface AppOptions {
  /** An open, migrated database; when absent one is opened from the config (and closed by `close`). */
  readonly db?: Database;
  readonly rateLimiter?: RateLimiter;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Builds the whole service without listening, so tests and `serve` share exactly one assembly. */
export async function buildApp(config: Config, options: AppOptions = {}): Promise<App> {
  const db = options.db ?? (await openDatabase(config));
  const ownsDb = options.db === undefined;
  const server = Fastify({
    logger: {
      level: config.logLevel,
      redact: ['req.headers.authorization', 'req.headers.cookie'],
    },
    trustProxy: config.trustProxy,
    bodyLimit: config.limits.maxBodyBytes,
    requestIdHeader: false,
    genReqId: (request) => {
      const header = request.headers['x-request-id'];
      return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
    },
    // Requests arriving while draining are answered by the onRequest hook below, in the contract's shape.
    return503OnClosing: false,
    // Requests that are not valid HTTP never reach a route: they get the contract's error shape too.
    clientErrorHandler: answerClientError,
    forceCloseConnections: false,
  });
  const rateLimiter =
    options.rateLimiter ??
    (config.redisUrl ? new RedisRateLimiter(config.redisUrl) : new MemoryRateLimiter());
  const keyUsage = new KeyUsageRecorder(db, config.keyUsageFlushMs, (error) =>
    server.log.warn({ err: error }, 'could not record API key use'),
  );
  keyUsage.start();
  const credentials = new CredentialCache(db, config.authCacheMs);

  // Once closing, every answer ends its connection, so that idle keep-alive clients cannot hold the drain open.
  let draining = false;
  server.addHook('preClose', async () => {
    draining = true;
  });
  server.addHook('onRequest', async (_request, reply) => {
    if (draining) return reply.code(503).send(errorBody(unavailable('The server is shutting down; retry')));
  });
  server.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (draining) reply.header('connection', 'close');
  });

  server.setErrorHandler((error: FastifyError, request, reply) => {
    // The media type the client asked for (GraphQL over HTTP), also when Fastify refuses the body.
    reply.type(`${negotiate(request.headers.accept) ?? JSON_TYPE}; charset=utf-8`);
    if (error instanceof AppError) {
      return reply.code(error.status).headers(error.headers).send(errorBody(error));
    }
    const status = error.statusCode ?? 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'unexpected error');
      return reply.code(500).send(errorBody(new AppError('INTERNAL_SERVER_ERROR', 'Unexpected error')));
    }
    // Fastify's own request errors (bad JSON, body too large, unsupported media type) keep their status.
    const message =
      error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
        ? 'The request body is too large'
        : error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
          ? 'Unsupported Content-Type; send application/json'
          : error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY'
            ? 'The request body is not valid JSON'
            : error.message;
    return reply.code(status).send(errorBody(new AppError('BAD_USER_INPUT', message, { status })));
  });

  server.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send(errorBody(new AppError('NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`))),
  );

  server.get('/healthz', async () => ({ status: 'ok' }));
  server.get('/readyz', async (_request, reply) => {
    try {
      await db.ping();
      return { status: 'ready' };
    } catch {
      return reply.code(503).send({
        status: 'unavailable',
        ...errorBody(new AppError('SERVICE_UNAVAILABLE', 'The database is unavailable')),
      });
    }
  });

  registerCors(server, config.corsOrigins);
  const documents = new DocumentCache(buildPublicSchema(), config.limits);
  registerGraphqlRoutes(server, { config, db, documents, rateLimiter, keyUsage, credentials });
  registerAdminRoutes(server, { config, db, rateLimiter });
  registerIngestRoutes(server, { config, db });

  let closing: Promise<void> | undefined;
  return {
    server,
    db,
    config,
    async listen() {
      return server.listen({ port: config.port, host: config.host });
    },
    close() {
      closing ??= (async () => {
        await server.close();
        await keyUsage.stop();
        credentials.close();
        await rateLimiter.close();
        if (ownsDb) await db.close();
      })();
      return closing;
    },
  };
}
