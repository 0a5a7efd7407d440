import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { AdmitKey } from '../http/admit-key.js';
import { formatTime } from '../lib/time.js';
import type { Principal } from '../modules/auth/authenticate.js';
import type { DocumentCache } from './document-cache.js';
import { executeGraphqlRequest, type GraphqlOutcome } from './execute-request.js';
import { GRAPHIQL_HEADERS, renderGraphiql } from './graphiql.js';
import { registerGraphiqlAssets } from './graphiql-assets.js';
import type { PublicContextFactory } from './public-context.js';

export interface GraphqlRouteDeps {
  readonly config: Config;
  /** Each admitted request's context: where its reads go, under its organization's share. */
  readonly contextFor: PublicContextFactory;
  readonly documents: DocumentCache;
  /** Authenticates and rate-limits a request's API key (see src/http/admit-key.ts). */
  readonly admit: AdmitKey;
  /** Wall-clock milliseconds: the instant windows that end now end at. */
  readonly now: () => number;
  /** Told the outcome of each request (metrics). */
  readonly observe?: (outcome: GraphqlOutcome) => void;
}

export function registerGraphqlRoutes(app: FastifyInstance, deps: GraphqlRouteDeps): void {
  const { config, documents, admit, contextFor } = deps;
  // The last freshness answered: a key's credentials (and their dataAsOf, the same Date) are
  // reused for a second, as is a replica's measured state, so most requests answer the very
  // extensions the previous one made (frozen: every answer shares them).
  let answered: { date: Date | null; extensions: Readonly<Record<string, unknown>> } | undefined;
  const freshness = (date: Date | null): Readonly<Record<string, unknown>> => {
    if (answered?.date !== date) {
      answered = { date, extensions: Object.freeze({ dataAsOf: date && formatTime(date) }) };
    }
    return answered.extensions;
  };

  function handle(request: FastifyRequest, reply: FastifyReply, raw: unknown): Promise<FastifyReply> {
    return executeGraphqlRequest(request, reply, raw, {
      documents,
      operations: ['query'],
      timeoutMs: config.limits.requestTimeoutMs,
      // Without a promise when admission answers at once (see AdmitKey).
      context: (signal) => {
        const principal = admit(request, reply);
        const build = (admitted: Principal) => contextFor(admitted, signal);
        return principal instanceof Promise ? principal.then(build) : build(principal);
      },
      observe: deps.observe,
      // Freshness is part of the extended API; the hosted schema answers exactly as the hosted service.
      extensions: config.schema === 'extended' ? (context) => freshness(context.dataAsOf) : undefined,
    });
  }

  app.post('/graphql', { bodyLimit: config.limits.maxBodyBytes }, (request, reply) =>
    handle(request, reply, request.body),
  );

  registerGraphiqlAssets(app);
  app.get('/graphql', (request, reply) => {
    const query = request.query as Record<string, unknown>;
    if (request.headers.accept?.includes('text/html') && query.query === undefined) {
      return reply.type('text/html; charset=utf-8').headers(GRAPHIQL_HEADERS).send(renderGraphiql());
    }
    return handle(request, reply, query);
  });
}
