/**
 * What live push costs ingestion: records a second through `POST /ingest` with N streams attached
 * to `GET /events` (each reading every change) against none, side by side in one run on one
 * server, medians over rounds, and their ratio (issue 13: within 10%).
 *
 *   node --import tsx bench/push-overhead.ts [--streams 10] [--rounds 5] [--executions 2000] [--db postgres|pglite] [--rules N]
 *
 * The records are the simulator's (one organization of 20 workflows, with events and log lines),
 * a fresh window of its history per round so that every round inserts new executions; rounds
 * alternate without and with streams (ABBA), so that the database growing during the run weighs
 * on both alike. `--rules N` creates N alert rules first when the server has an admin
 * `createAlertRule` mutation; without one it says that rules were skipped.
 * PostgreSQL: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { Client } from '../src/client/index.js';
import { createWorld, recordsBetween, toNdjsonLine } from '../src/simulate/index.js';
import { createOrganizationOver, scratchDatabase, streamIngest } from './lib/ingest-lines.js';
import { ServerProcess } from './lib/server-process.js';
import { median } from './lib/stats.js';

const { values: args } = parseArgs({
  options: {
    streams: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '5' },
    executions: { type: 'string', default: '2000' },
    db: { type: 'string', default: 'postgres' },
    rules: { type: 'string', default: '0' },
    port: { type: 'string', default: '4707' },
  },
});
const STREAMS = Number(args.streams);
const ROUNDS = Number(args.rounds);
const PER_ROUND = Number(args.executions);
const RULES = Number(args.rules);
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TOKEN = randomBytes(16).toString('hex');
const DAY = 86_400_000;

async function admin<T>(url: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await fetch(`${url}/admin/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: T; errors?: Array<{ message: string }> };
  if (!body.data || body.errors?.length)
    throw new Error(body.errors?.[0]?.message ?? `HTTP ${response.status}`);
  return body.data;
}

async function apiKeyFor(url: string, organizationId: string): Promise<string> {
  const { createMember } = await admin<{ createMember: { memberId: string } }>(
    url,
    'mutation ($input: CreateMemberInput!) { createMember(input: $input) { memberId } }',
    {
      input: {
        organizationId,
        emailAddress: 'bench@wfapi.example',
        displayName: 'Bench',
        deployAccess: true,
      },
    },
  );
  const { createApiKey } = await admin<{ createApiKey: { key: string } }>(
    url,
    'mutation ($input: CreateApiKeyInput!) { createApiKey(input: $input) { key } }',
    { input: { memberId: createMember.memberId, name: 'bench' } },
  );
  return createApiKey.key;
}

/**
 * Creates `count` EXECUTION_FAILED webhook rules when the server has createAlertRule; returns
 * what was done, in words. The rule input is another helper's: it is guessed from the contract
 * (section 5) and a refusal is reported, not hidden.
 */
async function createRules(
  url: string,
  organizationId: string,
  count: number,
  receiver: string,
): Promise<string> {
  if (count === 0) return 'no rules (--rules 0)';
  const { __schema } = await admin<{
    __schema: { mutationType: { fields: Array<{ name: string }> } | null };
  }>(url, '{ __schema { mutationType { fields { name } } } }');
  if (!__schema.mutationType?.fields.some((field) => field.name === 'createAlertRule')) {
    return `rules skipped: this server has no createAlertRule mutation (--rules ${count} asked)`;
  }
  try {
    for (let i = 0; i < count; i++) {
      await admin(
        url,
        'mutation ($input: CreateAlertRuleInput!) { createAlertRule(input: $input) { __typename } }',
        {
          input: {
            organizationId,
            name: `bench rule ${i}`,
            condition: { type: 'EXECUTION_FAILED' },
            target: { type: 'WEBHOOK', url: receiver },
          },
        },
      );
    }
    return `${count} EXECUTION_FAILED webhook rules`;
  } catch (error) {
    return `rules skipped: createAlertRule refused the guessed input (${(error as Error).message})`;
  }
}

/** N streams reading every change; resolves their event count when stopped. */
function attachStreams(url: string, apiKey: string, count: number): { stop(): Promise<number> } {
  const controller = new AbortController();
  let events = 0;
  const readers = Array.from({ length: count }, async () => {
    const client = new Client({ url, apiKey });
    for await (const _event of client.events({}, { signal: controller.signal })) events++;
  });
  return {
    async stop() {
      // Let the streams take the round's last changes before they close.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      controller.abort();
      await Promise.allSettled(readers);
      return events;
    },
  };
}

const target = await scratchDatabase(args.db, ADMIN_URL);
// A receiver for the rules' webhooks, answering 204 to everything.
const receiver = createServer((_request, response) => response.writeHead(204).end());
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
try {
  const server = await ServerProcess.start(
    {
      ...target.env,
      WFAPI_INGEST_TOKEN: TOKEN,
      WFAPI_ADMIN_TOKEN: TOKEN,
      WFAPI_DB_POOL_SIZE: '8',
      WFAPI_SSE_MAX_STREAMS: String(Math.max(100, STREAMS)),
      WFAPI_ALERTS_ALLOW_PRIVATE: 'true',
    },
    Number(args.port),
  );
  try {
    const organizationId = await createOrganizationOver(server.url, TOKEN);
    const apiKey = await apiKeyFor(server.url, organizationId);
    const rules = await createRules(server.url, organizationId, RULES, receiverUrl);
    // One simulated history, cut into one window per round (and a first, untimed, with the registrations).
    const windows = ROUNDS * 2 + 1;
    const end = Date.parse('2026-06-01T00:00:00Z');
    const start = end - windows * DAY;
    const world = createWorld({
      seed: 'push-overhead',
      organizationId,
      workflows: 20,
      start,
      days: windows,
      executions: PER_ROUND * windows,
    });
    const windowLines = (index: number) => {
      const after = index === 0 ? Number.NEGATIVE_INFINITY : start + index * DAY;
      return [...recordsBetween(world, after, start + (index + 1) * DAY)].map(toNdjsonLine);
    };
    const warm = windowLines(0);
    await streamIngest(server.url, TOKEN, warm.values(), warm.length);

    const figures = { none: [] as number[], streams: [] as number[] };
    let delivered = 0;
    let executionsSent = 0;
    for (let round = 0; round < ROUNDS * 2; round++) {
      const withStreams = [1, 2].includes(round % 4);
      const lines = windowLines(round + 1);
      const attached = withStreams ? attachStreams(server.url, apiKey, STREAMS) : undefined;
      if (attached) await new Promise((resolve) => setTimeout(resolve, 500));
      const perSecond = await streamIngest(server.url, TOKEN, lines.values(), lines.length);
      if (attached) {
        delivered += await attached.stop();
        executionsSent += lines.filter((line) => line.includes('"type":"execution"')).length;
      }
      (withStreams ? figures.streams : figures.none).push(perSecond);
      console.log(
        `round ${round + 1}: ${lines.length} records, ${withStreams ? `${STREAMS} streams` : 'no streams'}: ${Math.round(perSecond)} records/s`,
      );
    }
    const none = median(figures.none);
    const streams = median(figures.streams);
    console.log(
      `command: node --import tsx bench/push-overhead.ts --streams ${STREAMS} --rounds ${ROUNDS} --executions ${PER_ROUND} --db ${args.db} --rules ${RULES}`,
    );
    console.log(`Node ${process.version}, ${args.db}, ${rules}`);
    console.log(`no streams   median ${Math.round(none)} records/s over ${figures.none.length} rounds`);
    console.log(
      `${STREAMS} streams   median ${Math.round(streams)} records/s over ${figures.streams.length} rounds`,
    );
    console.log(
      `ratio with/without ${(streams / none).toFixed(3)} (${((1 - streams / none) * 100).toFixed(1)}% slower); ` +
        `${delivered} events delivered for ${executionsSent} execution lines x ${STREAMS} streams`,
    );
  } finally {
    await server.stop();
  }
} finally {
  receiver.close();
  await target.cleanup();
}
