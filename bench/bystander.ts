/**
 * The bystander's latency while fragment bombs arrive, the figure behind "one request must never
 * stall the server": `node --import tsx bench/bystander.ts [--seconds 5]`. An in-process server on
 * the embedded database (the bombs cost parsing and validation, never a statement); another
 * organization's trivial query is timed one at a time, first alone, then while four connections
 * send new 22-61 fragment chains from a worker thread. Prints p50 and p99 of both. The test
 * (test/http/document-expansion.test.ts) keeps only a generous bound; run this on a quiet
 * machine for the figure (the target is a p99 under 50 ms).
 */
import { parseArgs } from 'node:util';
import { migrate } from '../src/db/migrate.js';
import { openPglite } from '../src/db/pglite.js';
import { createTenant } from '../test/harness/fixtures.js';
import { latencyWhile, trivialQueryOf } from '../test/harness/latency.js';
import { startServer } from '../test/harness/server.js';
import { fragmentChain } from '../test/http/fragment-chain.js';

const { values: args } = parseArgs({ options: { seconds: { type: 'string', default: '5' } } });
const durationMs = Number(args.seconds) * 1000;

const db = await openPglite('memory://');
try {
  await migrate(db);
  const server = await startServer(db);
  try {
    const attacker = await createTenant(db, 'Attacker');
    const bystander = await createTenant(db, 'Bystander');
    const probe = trivialQueryOf(server.url, bystander.key);
    const requests = Array.from({ length: 40 }, (_, k) => ({
      url: `${server.url}/graphql`,
      headers: { 'content-type': 'application/json', authorization: `Apikey ${attacker.key}` },
      body: JSON.stringify({ query: fragmentChain(22 + k, 'Bomb{{i}}') }),
    }));
    const calm = await latencyWhile({ hostile: { requests: [], concurrency: 0 }, probe, durationMs });
    const bombed = await latencyWhile({ hostile: { requests, concurrency: 4 }, probe, durationMs });
    const line = (label: string, r: typeof calm) =>
      `${label}: p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ${r.samples.length} probes, ${r.hostileRequests} hostile requests`;
    console.log(line('alone', calm));
    console.log(line('fragment bombs', bombed));
  } finally {
    await server.close();
  }
} finally {
  await db.close();
}
