import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { Config } from '../config.js';
import { operatorGuard } from '../modules/auth/operator-token.js';
import type { RateLimiter } from '../modules/auth/rate-limit.js';
import type { PlatformMetrics } from './platform-metrics.js';

export interface MetricsRouteDeps {
  readonly config: Config;
  /** The configured token (the route exists only with one). */
  readonly token: string;
  readonly rateLimiter: RateLimiter;
  readonly registry: Registry;
  readonly platform: PlatformMetrics;
}

/**
 * `GET /metrics` (contract section 5): the Prometheus text format, behind `Authorization: Bearer
 * <WFAPI_METRICS_TOKEN>`. Wrong or missing tokens are charged to the client address like those of
 * the other operator endpoints (401, then 429 once the address's budget is spent).
 */
export function registerMetricsRoute(app: FastifyInstance, deps: MetricsRouteDeps): void {
  const guard = operatorGuard({
    token: deps.token,
    name: 'metrics',
    rateLimiter: deps.rateLimiter,
    failureLimit: deps.config.authFailureLimit,
  });
  app.get('/metrics', async (request, reply) => {
    await guard.admit(request.headers.authorization, request.ip);
    await deps.platform.refresh();
    const text = await deps.registry.metrics();
    return reply.header('cache-control', 'no-store').type(deps.registry.contentType).send(text);
  });
}
