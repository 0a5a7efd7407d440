import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AdminContext } from '../admin/admin-context.js';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { DocumentCache } from '../graphql/document-cache.js';
import { executeGraphqlRequest, type GraphqlOutcome } from '../graphql/execute-request.js';
import { operatorGuard } from '../modules/auth/operator-token.js';
import type { RateLimiter } from '../modules/auth/rate-limit.js';
import { buildAdminSchema } from './operator.schema.js';

export interface AdminRouteDeps {
  readonly config: Config;
  readonly db: Database;
  readonly rateLimiter: RateLimiter;
  /** Told the outcome of each request (metrics). */
  readonly observe?: (outcome: GraphqlOutcome) => void;
}

/**
 * POST /admin/graphql (contract section 2), only when an admin token is configured: without one
 * the route does not exist and answers like any unknown route (404). Queries and mutations are
 * executed exactly like the public endpoint's, with the same limits, error shape and statuses.
 */
export function registerAdminRoutes(app: FastifyInstance, deps: AdminRouteDeps): void {
  const { config, db, rateLimiter } = deps;
  if (config.adminToken === undefined) return;
  const guard = operatorGuard({
    token: config.adminToken,
    name: 'admin',
    rateLimiter,
    failureLimit: config.authFailureLimit,
  });
  const documents = new DocumentCache(buildAdminSchema(), config.limits, config.limits.documentCacheBytes);

  async function admitOperator(request: FastifyRequest): Promise<AdminContext> {
    await guard.admit(request.headers.authorization, request.ip);
    return { db, config };
  }

  app.post('/admin/graphql', { bodyLimit: config.limits.maxBodyBytes }, (request, reply) => {
    // Answers can carry a new API key: no cache may keep them.
    reply.header('cache-control', 'no-store');
    return executeGraphqlRequest(request, reply, request.body, {
      documents,
      operations: ['query', 'mutation'],
      timeoutMs: config.limits.requestTimeoutMs,
      context: () => admitOperator(request),
      observe: deps.observe,
    });
  });
}
