/**
 * The bystander's latency while hostile requests arrive, the figure behind "one request must never
 * stall the server": `node --import tsx bench/bystander.ts [--seconds 5] [--attack bombs|ranges|guesses]`.
 * An in-process server on the embedded database; another organization's trivial query is timed
 * one at a time, first alone, then while four connections send, from a worker thread, new 22-61
 * fragment chains (`bombs`, the default: parsing and validation, never a statement), aggregates
 * over 0001..9999 (`ranges`) or guessed ingest tokens (`guesses`). Prints p50 and p99 of both.
 * The tests (test/http/document-expansion.test.ts, test/http/hostile-ranges.test.ts,
 * test/ingest/token-guessing.test.ts) assert only that the hostile requests are refused and the
 * bystander never stalls, within generous bounds; run this on a quiet machine for the figure (the
 * target is a p99 under 50 ms).
 */
import { parseArgs } from 'node:util';
import { migrate } from '../src/db/migrate.js';
import { openPglite } from '../src/db/pglite.js';
import { createTenant } from '../test/harness/fixtures.js';
import { latencyWhile, trivialQueryOf } from '../test/harness/latency.js';
import { startServer } from '../test/harness/server.js';
import { fragmentChain } from '../test/http/fragment-chain.js';

const { values: args } = parseArgs({
  options: { seconds: { type: 'string', default: '5' }, attack: { type: 'string', default: 'bombs' } },
});
const durationMs = Number(args.seconds) * 1000;
const INGEST_TOKEN = 'the-right-ingest-token';
const WIDEST = '{ from: "0001-01-01T00:00:00Z", to: "9999-12-31T23:59:59Z" }';

const db = await openPglite('memory://');
try {
  await migrate(db);
  const server = await startServer(db, { ingestToken: INGEST_TOKEN });
  try {
    const attacker = await createTenant(db, 'Attacker');
    const bystander = await createTenant(db, 'Bystander');
    const probe = trivialQueryOf(server.url, bystander.key);
    const asAttacker = (query: string) => ({
      url: `${server.url}/graphql`,
      headers: { 'content-type': 'application/json', authorization: `Apikey ${attacker.key}` },
      body: JSON.stringify({ query }),
    });
    const attacks: Record<string, Array<ReturnType<typeof asAttacker>>> = {
      bombs: Array.from({ length: 40 }, (_, k) => asAttacker(fragmentChain(22 + k, 'Bomb{{i}}'))),
      ranges: [
        asAttacker(`{ workflowActivity(input: ${WIDEST}) { data { from successCount } } }`),
        asAttacker(`{ errorGroups(input: ${WIDEST}) { count data { activity { occurrences } } } }`),
      ],
      guesses: [
        {
          url: `${server.url}/ingest`,
          headers: { 'content-type': 'application/x-ndjson', authorization: 'Bearer guess-{{i}}' },
          body: '',
        },
      ],
    };
    const requests = attacks[args.attack];
    if (!requests) throw new Error(`--attack is one of ${Object.keys(attacks).join(', ')}`);
    const calm = await latencyWhile({ hostile: { requests: [], concurrency: 0 }, probe, durationMs });
    const bombed = await latencyWhile({ hostile: { requests, concurrency: 4 }, probe, durationMs });
    const line = (label: string, r: typeof calm) =>
      `${label}: p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ${r.samples.length} probes, ${r.hostileRequests} hostile requests`;
    console.log(line('alone', calm));
    console.log(line(args.attack, bombed));
  } finally {
    await server.close();
  }
} finally {
  await db.close();
}
