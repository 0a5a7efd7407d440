import type { Config } from '../config.js';
import { ConcurrencyShares } from '../db/concurrency-shares.js';
import type { AbortWatch, Database } from '../db/database.js';
import type { ReadRouter } from '../db/replicas/read-router.js';
import type { Principal } from '../modules/auth/authenticate.js';
import { createContext, type RequestContext } from '../modules/context.js';
import { type WindowCache, withWindowCache } from '../rollups/window-cache.js';

/**
 * The resolvers' context of one admitted request to the public schema: its reads go to a replica
 * or the primary, through the organization's share of database concurrency, and stop when
 * `signal` aborts (the request's time limit); their rollup reads reuse what `windowCache` keeps.
 */
export type PublicContextFactory = (principal: Principal, signal: AbortWatch) => RequestContext;

/**
 * One factory per server, shared by every route that executes the public schema (`/graphql` and
 * `/mcp`), so that an organization's statements are counted against one share whichever way they
 * arrive.
 */
export function publicContextFactory(
  config: Config,
  primary: Database,
  reads: ReadRouter,
  now: () => number = Date.now,
  windowCache?: WindowCache,
): PublicContextFactory {
  const shares = new ConcurrencyShares(
    config.limits.dbConcurrencyPerOrganization ?? (primary.kind === 'pglite' ? 1 : 2),
  );
  return (principal, signal) => {
    const read = reads.forRequest(signal);
    const db = withWindowCache(shares.forTenant(read.db, principal.organizationId, signal), windowCache);
    return createContext(db, principal, config.limits.maxAnswerBytes, read.completeUpTo, now);
  };
}
