import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openPostgres, statementName } from '../../src/db/postgres.js';
import type { DatasetFacts, MixQuery } from '../queries.js';
import { onClock } from './clock.js';
import { type RecordedStatement, recordingDatabase } from './recording-db.js';

/**
 * Asks the in-process server once for `query` and returns the SQL statements it issued: the
 * work a request needs from the database, to be replayed directly through the driver.
 */
export async function captureStatements(
  server: FastifyInstance,
  take: () => RecordedStatement[],
  apiKey: string,
  query: string,
  variables: Record<string, unknown>,
): Promise<RecordedStatement[]> {
  take();
  const response = await server.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', authorization: `Apikey ${apiKey}` },
    payload: JSON.stringify({ query, variables }),
  });
  if (response.statusCode !== 200 || JSON.parse(response.body).errors !== undefined) {
    throw new Error(`capture failed: ${response.statusCode} ${response.body.slice(0, 300)}`);
  }
  return take();
}

/**
 * One replay of a request's statements, in order, on a pooled connection, named as the server
 * names them (prepared once per connection), so the ceiling saves what the server saves.
 */
export function replayer(pool: pg.Pool, statements: readonly RecordedStatement[]): () => Promise<boolean> {
  return async () => {
    for (const { text, params } of statements) {
      await pool.query({ text, values: params as unknown[], name: statementName(text, params) });
    }
    return true;
  };
}

/**
 * The statements each query causes (by name), captured in-process once on `databaseUrl`. Each
 * query is captured on its second run: the first also reads the key's credentials, which under
 * load are read once a second at most (the credential cache), not once a request.
 */
export async function captureMix(
  databaseUrl: string,
  apiKey: string,
  facts: DatasetFacts,
  queries: readonly MixQuery[],
): Promise<Map<string, RecordedStatement[]>> {
  const recorder = recordingDatabase(openPostgres(databaseUrl, { poolSize: 2, statementTimeoutMs: 60_000 }));
  // The clock the benchmarked server runs on (lib/dataset-clock.mjs), for the capture's whole
  // run: windows that end now end at the dataset's end, and which buckets still have one-minute
  // duration rows (src/rollups/grains.ts) is judged from there too.
  return onClock(facts.now.getTime(), async () => {
    const capture = await buildApp(loadConfig({}, { logLevel: 'silent', authCacheMs: 60_000 }), {
      db: recorder.db,
      now: () => facts.now.getTime(),
    });
    const statements = new Map<string, RecordedStatement[]>();
    for (const q of queries) {
      const run = () => captureStatements(capture.server, recorder.take, apiKey, q.query, q.variables(facts));
      await run();
      statements.set(q.name, await run());
    }
    await capture.close();
    await recorder.db.close();
    return statements;
  });
}
