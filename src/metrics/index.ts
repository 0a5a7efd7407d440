/**
 * Prometheus metrics (contract section 5): `registerMetrics` adds `GET /metrics` when
 * WFAPI_METRICS_TOKEN is set and returns the hooks the other routes report to; without a token
 * there is neither route nor counting.
 */
import type { FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import type { DatabaseStatus } from '../db/replicas/read-router.js';
import type { RateLimiter } from '../modules/auth/rate-limit.js';
import type { WindowCache } from '../rollups/window-cache.js';
import { registerMetricsRoute } from './metrics.route.js';
import { PlatformMetrics } from './platform-metrics.js';
import { ServerMetrics } from './server-metrics.js';

export { OTHER_WORKFLOWS } from './platform-snapshot.js';
export type { ServerMetrics };

/** Call before the other routes are declared: every answer of `server` is counted. */
export function registerMetrics(
  server: FastifyInstance,
  deps: {
    readonly config: Config;
    readonly db: Database;
    readonly rateLimiter: RateLimiter;
    /** Each database's state, when read replicas are configured. */
    readonly databases?: () => readonly DatabaseStatus[];
    /** The rollup answers the server keeps. */
    readonly windowCache?: WindowCache;
  },
): ServerMetrics | undefined {
  const { config, db, rateLimiter, databases, windowCache } = deps;
  const token = config.metrics.token;
  if (token === undefined) return undefined;
  // One registry per server, never prom-client's global one: several apps may share a process (tests, demo).
  const registry = new Registry();
  const metrics = new ServerMetrics(registry, db, databases, windowCache);
  metrics.observeRequests(server);
  const platform = new PlatformMetrics(
    registry,
    db,
    { maxWorkflows: config.metrics.maxWorkflows, timeoutMs: config.metrics.platformTimeoutMs },
    (error) => server.log.warn({ err: error }, 'could not read the platform metrics'),
  );
  registerMetricsRoute(server, { config, token, rateLimiter, registry, platform });
  return metrics;
}
