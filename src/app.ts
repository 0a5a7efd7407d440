import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { queueAlertsOnIngest, startAlerts } from './alerts/index.js';
import type { Config } from './config.js';
import { registerConsoleRoutes } from './console/index.js';
import type { Database } from './db/database.js';
import { openDatabase, openReadRouter, openUnlimited } from './db/open.js';
import { PartitionMaintainer } from './db/partition-maintainer.js';
import type { DatabaseStatus, ReadRouter } from './db/replicas/read-router.js';
import { AppError, clientErrorKind, sendError } from './errors.js';
import { recordChangesOnIngest, registerEvents } from './events/index.js';
import { registerCors } from './graphql/cors.js';
import { DocumentCache } from './graphql/document-cache.js';
import { registerGraphqlRoutes } from './graphql/graphql.route.js';
import { JSON_TYPE, negotiate } from './graphql/media-type.js';
import { publicContextFactory } from './graphql/public-context.js';
import { buildPublicSchema } from './graphql/schema.js';
import { keyAdmission } from './http/admit-key.js';
import { answerClientError } from './http/client-error.js';
import { limitBodyTime } from './http/connection-limits.js';
import { ConnectionRegistry } from './http/connection-registry.js';
import { requestLoggerFactory } from './http/request-logger.js';
import { registerIngestRoutes } from './ingest/ingest.route.js';
import type { IngestObserver } from './ingest/ingest.store.js';
import { recountRollups } from './ingest/recount.js';
import { registerMcpRoute } from './mcp/index.js';
import { registerMetrics } from './metrics/index.js';
import { CredentialCache, credentialsChanged } from './modules/auth/credential-cache.js';
import { KeyUsageRecorder } from './modules/auth/key-usage.js';
import { MemoryRateLimiter, type RateLimiter, RedisRateLimiter } from './modules/auth/rate-limit.js';
import { registerAdminRoutes } from './operator/operator.route.js';
import { RollupUpkeep } from './rollups/rollup-upkeep.store.js';
import { WindowCache } from './rollups/window-cache.js';

/**
 * What every ingested batch does besides storing its records, inside its transaction: record the
 * live stream's changes, then queue the alert deliveries it causes. Every writer passes these
 * (`POST /ingest`, the NATS worker, the demo loader).
 */
export const INGEST_OBSERVERS: readonly IngestObserver[] = [recordChangesOnIngest, queueAlertsOnIngest];

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
  /**
   * Wall-clock milliseconds for API key expiry, the credential cache's interval, the "now" that
   * service levels end their windows at, the alert timer's evaluations and, when ahead of the
   * database's clock, the alert outbox's due times, leases and retries (default `Date.now`):
   * a test moves its own, so that what it shows does not depend on a busy machine.
   */
  readonly now?: () => number;
  /**
   * How far a background load of history has come (the demo's month, loaded newest first after
   * the server starts): `/readyz` adds it as `history`, the console shows a notice while `loading`.
   */
  readonly history?: () => HistoryLoad;
}

/** What `/readyz` says of a background load of history. */
export interface HistoryLoad {
  /** True until every window of the history is stored. */
  readonly loading: boolean;
  /** The data is complete from this instant (ISO) up to now; older data is still arriving. */
  readonly completeFrom: string | null;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * graphql-jit compiles each document with `new Function`, and V8 keeps every such source and its
 * code in its compilation cache, beyond the reach of the document cache's bound: measured, 200
 * distinct documents of 25 aliased fields left 88 MB behind after the cache had let them go, and
 * nothing after this flag. The server compiles no other code at run time, so it costs nothing.
 */
setFlagsFromString('--no-compilation-cache');

/** Builds the whole service without listening, so tests and `serve` share exactly one assembly. */
export async function buildApp(config: Config, options: AppOptions = {}): Promise<App> {
  const db = options.db ?? (await openDatabase(config, { recountRollups }));
  const ownsDb = options.db === undefined;
  const server = Fastify({
    logger: {
      level: config.logLevel,
      redact: ['req.headers.authorization', 'req.headers.cookie'],
    },
    // Above info a request's logger is made only if it logs (see request-logger.ts).
    childLoggerFactory: requestLoggerFactory(config.logLevel),
    trustProxy: config.trustProxy,
    bodyLimit: config.limits.maxBodyBytes,
    requestIdHeader: false,
    genReqId: (request) => {
      const header = request.headers['x-request-id'];
      return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
    },
    // Requests arriving on open connections while draining are still answered (see below).
    return503OnClosing: false,
    // Requests that are not valid HTTP never reach a route: they get the contract's error shape too.
    clientErrorHandler: answerClientError,
    forceCloseConnections: false,
    // Slow clients: headers must arrive within headersTimeout (checked every quarter of it, not
    // Node's default 30 s), and an idle keep-alive connection closes after keepAliveTimeout. No
    // total request timeout here: /ingest uploads may be long (see limitBodyTime and ingest.route.ts).
    keepAliveTimeout: config.connections.keepAliveTimeoutMs,
    requestTimeout: 0,
    http: {
      headersTimeout: config.connections.headersTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.floor(config.connections.headersTimeoutMs / 4)),
    },
  });
  // Caps connections per address and in all, and drains them on close (see connection-registry.ts).
  new ConnectionRegistry(server.server, config.connections);
  limitBodyTime(server, config.connections);
  let reads: ReadRouter;
  try {
    reads = await openReadRouter(config, db, {
      onChange: (address, inUse, reason) =>
        server.log.warn(
          { replica: address, reason },
          inUse ? 'replica answers reads again' : 'replica skipped',
        ),
    });
  } catch (error) {
    if (ownsDb) await db.close().catch(() => {});
    throw error;
  }
  const rateLimiter =
    options.rateLimiter ??
    (config.redisUrl ? new RedisRateLimiter(config.redisUrl) : new MemoryRateLimiter());
  const keyUsage = new KeyUsageRecorder(db, config.keyUsageFlushMs, (error) =>
    server.log.warn({ err: error }, 'could not record API key use'),
  );
  keyUsage.start();
  const partitions = new PartitionMaintainer(
    db,
    { everyMs: config.partitions.maintenanceMs, retentionDays: config.partitions.retentionDays },
    ({ result, error }) => {
      if (error) server.log.warn({ err: error }, 'partition maintenance failed; retried at the next round');
      for (const { partition, error: reason } of result?.failed ?? []) {
        server.log.error({ partition, reason }, `partition maintenance failed for ${partition}: ${reason}`);
      }
      if (result && (result.created.length > 0 || result.dropped.length > 0 || result.defaultRowsDeleted > 0))
        server.log.info(result, 'partitions maintained');
    },
  );
  await partitions.start();
  const rollupUpkeep = new RollupUpkeep(
    db,
    {
      everyMs: config.partitions.maintenanceMs,
      compaction: config.partitions.rollupReindex,
      // On PostgreSQL rebuilds run on a connection of their own, without the pool's statement
      // time limit and holding the instances' lock; none without a URL to open one (a test's
      // pool). None on the embedded database: a plain REINDEX would hold its one connection for
      // seconds (the demo's month, just loaded at its first start), for a few megabytes.
      compactionDb: () => {
        if (db.kind !== 'postgres' || !config.databaseUrl) return undefined;
        const connection = openUnlimited(config.databaseUrl, 'wfapi-upkeep');
        return { db: connection, close: () => connection.close() };
      },
    },
    ({ result, error }) => {
      if (error) server.log.warn({ err: error }, 'rollup upkeep failed; retried at the next round');
      if (result?.deleted)
        server.log.info(
          { deleted: result.deleted },
          'aged one-minute and five-minute duration rollups deleted',
        );
      if (result && (result.rebuilt.length > 0 || result.dropped.length > 0))
        server.log.info({ rebuilt: result.rebuilt, dropped: result.dropped }, 'rollup indexes rebuilt');
    },
  );
  rollupUpkeep.start();
  const credentials = new CredentialCache(db, config.authCacheMs, { now: options.now });
  const admit = keyAdmission({ config, rateLimiter, keyUsage, credentials, now: options.now ?? Date.now });

  // Once closing, no new connection is accepted, but a request that arrives on an open one is
  // still answered (it was accepted), and every answer ends its connection, so that keep-alive
  // clients cannot hold the drain open.
  let draining = false;
  server.addHook('preClose', async () => {
    draining = true;
  });
  // Callback style: it runs on every answer, and an async hook costs each a promise.
  server.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    if (draining) reply.header('connection', 'close');
    done(null, payload);
  });

  server.setErrorHandler((error: FastifyError, request, reply) => {
    // The media type the client asked for (GraphQL over HTTP), also when Fastify refuses the body.
    reply.type(`${negotiate(request.headers.accept) ?? JSON_TYPE}; charset=utf-8`);
    if (error instanceof AppError) {
      return sendError(reply, error);
    }
    const status = error.statusCode ?? 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'unexpected error');
      return sendError(reply, new AppError('INTERNAL_SERVER_ERROR', 'Unexpected error'));
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
    return sendError(reply, new AppError(clientErrorKind(status), message));
  });

  // The methods of each path, so that a known path asked with another method (TRACE, PROPFIND, an
  // OPTIONS that is no CORS preflight...) answers 405 with Allow rather than 404.
  const methodsByPath = new Map<string, Set<string>>();
  server.addHook('onRoute', (route) => {
    const methods = methodsByPath.get(route.url) ?? new Set<string>();
    for (const method of [route.method].flat()) methods.add(method);
    methodsByPath.set(route.url, methods);
  });
  server.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const methods = methodsByPath.get(path);
    if (methods) {
      const allow = [...methods]
        .filter((method) => method !== 'HEAD')
        .sort()
        .join(', ');
      return sendError(
        reply,
        new AppError('METHOD_NOT_ALLOWED', `Method ${request.method} not allowed on ${path}; use ${allow}`, {
          headers: { allow },
        }),
      );
    }
    return sendError(reply, new AppError('ROUTE_NOT_FOUND', `No route ${request.method} ${path}`));
  });

  // One per server: it keeps the rollup answers of the primary and its replicas, which agree on
  // what each rollup version stands for (src/rollups/window-cache.ts).
  const windowCache =
    config.limits.rollupCacheMb > 0 ? new WindowCache(config.limits.rollupCacheMb * 1024 * 1024) : undefined;
  const metrics = registerMetrics(server, {
    config,
    db,
    rateLimiter,
    windowCache,
    ...(reads.hasReplicas && { databases: () => reads.status(true) }),
  });
  server.get('/healthz', async () => ({ status: 'ok' }));
  // With replicas, each database is reported (the replicas as of their last check).
  const databases = (primaryUp: boolean): { databases?: DatabaseStatus[] } =>
    reads.hasReplicas ? { databases: reads.status(primaryUp) } : {};
  server.get('/readyz', async (_request, reply) => {
    let timer: NodeJS.Timeout | undefined;
    try {
      // A database that accepts connections but never answers must not hold the probe: orchestrators
      // time out probes after a few seconds and would learn nothing.
      await Promise.race([
        db.ping(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('ping timed out')), config.readyTimeoutMs);
        }),
      ]);
      return { status: 'ready', ...databases(true), ...(options.history && { history: options.history() }) };
    } catch {
      return sendError(reply, new AppError('SERVICE_UNAVAILABLE', 'The database is unavailable'), {
        status: 'unavailable',
        ...databases(false),
      });
    } finally {
      clearTimeout(timer);
    }
  });

  registerCors(server, config.corsOrigins);
  const documents = new DocumentCache(
    buildPublicSchema(config.schema),
    config.limits,
    config.limits.documentCacheBytes,
  );
  const contextFor = publicContextFactory(config, db, reads, options.now, windowCache);
  registerGraphqlRoutes(server, {
    config,
    contextFor,
    documents,
    admit,
    now: options.now ?? Date.now,
    observe: metrics?.graphqlObserver('/graphql'),
  });
  registerMcpRoute(server, { config, documents, admit, contextFor, now: options.now });
  registerAdminRoutes(server, {
    config,
    db,
    rateLimiter,
    observe: metrics?.graphqlObserver('/admin/graphql'),
  });
  registerEvents(server, { config, db, admit });
  registerIngestRoutes(server, {
    config,
    db,
    rateLimiter,
    observers: INGEST_OBSERVERS,
    onBatch: metrics?.ingestBatch,
    // Reads through this server see the new freshness mark at once (others within their cache interval).
    afterStored: () => credentialsChanged(db),
  });
  registerConsoleRoutes(server);
  // Off the request path: deliveries are sent and timer rules evaluated on their own schedule.
  const alerts = startAlerts(db, config, server.log, options.now);

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
        // In-flight requests get the grace period to finish; past it their connections are cut
        // (a long /ingest upload keeps what it committed, and its client may re-send safely).
        const deadline = setTimeout(() => server.server.closeAllConnections(), config.shutdownGraceMs);
        try {
          await server.close();
        } finally {
          clearTimeout(deadline);
        }
        await alerts?.stop();
        await keyUsage.stop();
        await partitions.stop();
        await rollupUpkeep.stop();
        credentials.close();
        await rateLimiter.close();
        await reads.close();
        if (ownsDb) await db.close();
      })();
      return closing;
    },
  };
}
