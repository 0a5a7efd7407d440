import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { AppError } from '../errors.js';
import { DocumentCache } from '../graphql/document-cache.js';
import { executeGraphqlRequest } from '../graphql/execute-request.js';
import { chargeAuthFailure } from '../modules/auth/auth-failures.js';
import { bearerTokenCheck } from '../modules/auth/bearer-token.js';
import type { RateLimiter } from '../modules/auth/rate-limit.js';
import type { AdminContext } from './admin.resolvers.js';
import { buildAdminSchema } from './admin.schema.js';

export interface AdminRouteDeps {
  readonly config: Config;
  readonly db: Database;
  readonly rateLimiter: RateLimiter;
}

const unauthenticated = () =>
  new AppError('UNAUTHENTICATED', 'Invalid or missing admin token', {
    headers: { 'www-authenticate': 'Bearer' },
  });

/**
 * POST /admin/graphql (contract section 2), only when an admin token is configured: without one
 * the route does not exist and answers like any unknown route (404). Queries and mutations are
 * executed exactly like the public endpoint's, with the same limits, error shape and statuses.
 */
export function registerAdminRoutes(app: FastifyInstance, deps: AdminRouteDeps): void {
  const { config, db, rateLimiter } = deps;
  if (config.adminToken === undefined) return;
  const tokenMatches = bearerTokenCheck(config.adminToken);
  const documents = new DocumentCache(buildAdminSchema(), config.limits);

  /** A wrong token is charged to the client address like a wrong API key, to slow down guessing. */
  async function admitOperator(request: FastifyRequest): Promise<AdminContext> {
    if (!tokenMatches(request.headers.authorization)) {
      await chargeAuthFailure(rateLimiter, request.ip, config.authFailureLimit);
      throw unauthenticated();
    }
    return { db };
  }

  app.post('/admin/graphql', { bodyLimit: config.limits.maxBodyBytes }, (request, reply) => {
    // Answers can carry a new API key: no cache may keep them.
    reply.header('cache-control', 'no-store');
    return executeGraphqlRequest(request, reply, request.body, {
      documents,
      operations: ['query', 'mutation'],
      timeoutMs: config.limits.requestTimeoutMs,
      context: () => admitOperator(request),
    });
  });
}
