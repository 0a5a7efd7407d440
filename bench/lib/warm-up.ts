import { type DatasetFacts, type MixQuery, requestVariables } from '../queries.js';
import { closedLoop } from './closed-loop.js';
import { GraphqlHttpClient } from './http-client.js';

/** What a benchmarked server runs with: the bench's pool size, the rate limit out of the way. */
export const benchServerEnv = (databaseUrl: string): Record<string, string> => ({
  DATABASE_URL: databaseUrl,
  WFAPI_DB_POOL_SIZE: '16',
  WFAPI_RATE_LIMIT_BURST: '1000000',
  WFAPI_RATE_LIMIT_PER_SECOND: '1000000',
});

/**
 * A server fresh from start runs its first requests unoptimised: runs every query for `seconds`
 * at 4 connections, so that whichever is measured first is not measured cold.
 */
export async function warmUp(
  url: string,
  key: string,
  facts: DatasetFacts,
  queries: readonly MixQuery[],
  seconds: number,
): Promise<void> {
  const client = new GraphqlHttpClient(url, key, 4);
  for (const q of queries) {
    const variables = requestVariables(q, facts);
    await closedLoop(() => client.post(q.query, variables()), { concurrency: 4, seconds });
  }
  client.close();
}
