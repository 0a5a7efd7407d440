/**
 * What push costs ingestion (issue 13: within 10%): records a second through `POST /ingest` into
 * an organization with N alert rules and M streams attached to `GET /events` (each reading every
 * change), against an organization with neither, side by side in one run on one server, medians
 * over rounds, and their ratio.
 *
 *   node --import tsx bench/push-overhead.ts [--streams 1] [--rules 100] [--rule-mix spread|all-failures] [--rounds 5] [--executions 2000] [--db postgres|pglite]
 *
 * The records are the simulator's (20 workflows with events and log lines; the same history for
 * both organizations, under uuids of their own), a fresh window of it per round so that every
 * round inserts new executions, the same window for both arms; rounds
 * alternate between the plain and the pushed organization (ABBA), so that the database growing
 * during the run weighs on both alike. The history is the last hour's (rules ignore executions
 * that started over an hour before they were made), so failures fire the rules: the pushed arm
 * writes its deliveries in the ingest transaction, and the server's worker sends them to a local
 * receiver meanwhile (see ruleInputs for the two rule sets).
 * Beside records a second, it reports each arm's CPU time per 1,000 records by process (the
 * server, the database's backends, this benchmark with its stream readers and receiver), read
 * from /proc around each round: on a shared machine the throughput of every round moves with
 * other work, the CPU an arm costs much less.
 * PostgreSQL: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { startWorker } from '../src/lib/worker-thread.js';
import { createWorld, recordsBetween, toNdjsonLine } from '../src/simulate/index.js';
import { DatabaseCpu, processCpuMs } from './lib/cpu-time.js';
import { createOrganizationOver, scratchDatabase, streamIngest } from './lib/ingest-lines.js';
import { ServerProcess } from './lib/server-process.js';
import { median } from './lib/stats.js';

const { values: args } = parseArgs({
  options: {
    streams: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '5' },
    executions: { type: 'string', default: '2000' },
    db: { type: 'string', default: 'postgres' },
    rules: { type: 'string', default: '100' },
    'rule-mix': { type: 'string', default: 'spread' },
    port: { type: 'string', default: '4707' },
  },
});
const STREAMS = Number(args.streams);
const ROUNDS = Number(args.rounds);
const PER_ROUND = Number(args.executions);
const RULES = Number(args.rules);
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TOKEN = randomBytes(16).toString('hex');
/** Each round's window of history: all of them fit in the last hour. */
const WINDOW_MS = 4 * 60_000;

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

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/**
 * A record of organization `from` as one of organization `to`: its organization id replaced and
 * every other uuid (its own, its parent's, those inside messages) changed in its first digit, the
 * same way everywhere, so the copy is the same history under uuids of its own.
 */
function otherOrganization(line: string, from: string, to: string): string {
  return line.replace(UUID, (uuid) =>
    uuid === from ? to : ((Number.parseInt(uuid[0]!, 16) + 8) % 16).toString(16) + uuid.slice(1),
  );
}

const CONDITIONS = ['EXECUTION_FAILED', 'NEW_ERROR_GROUP', 'FAILURE_RATE', 'NO_EXECUTIONS'] as const;

/**
 * The rule set a team would keep: with `--rule-mix spread` (the default) the four conditions in
 * turn, each rule watching one workflow (so a failure fires the EXECUTION_FAILED rules of its
 * workflow, not all of them); with `--rule-mix all-failures` every rule is an EXECUTION_FAILED
 * rule of the whole organization, so each failure writes and sends one delivery per rule (the
 * worst case).
 */
function ruleInputs(count: number, workflowUUIDs: readonly string[], receiver: string) {
  return Array.from({ length: count }, (_, i) => {
    const base = { name: `bench rule ${i}`, target: 'WEBHOOK', url: receiver };
    if (args['rule-mix'] === 'all-failures') return { ...base, condition: 'EXECUTION_FAILED' };
    const condition = CONDITIONS[i % CONDITIONS.length];
    const workflowUUID = workflowUUIDs[i % workflowUUIDs.length];
    if (condition === 'FAILURE_RATE')
      return { ...base, condition, workflowUUID, threshold: 0.5, window: '15m', minExecutions: 10 };
    if (condition === 'NO_EXECUTIONS') return { ...base, condition, workflowUUID, for: '1h' };
    return { ...base, condition, workflowUUID };
  });
}

/**
 * Creates the alert rules when the server has createAlertRule; returns what was done, in words.
 * A refusal is reported, not hidden.
 */
async function createRules(
  url: string,
  organizationId: string,
  inputs: ReadonlyArray<Record<string, unknown>>,
): Promise<string> {
  if (inputs.length === 0) return 'no rules (--rules 0)';
  const { __schema } = await admin<{
    __schema: { mutationType: { fields: Array<{ name: string }> } | null };
  }>(url, '{ __schema { mutationType { fields { name } } } }');
  if (!__schema.mutationType?.fields.some((field) => field.name === 'createAlertRule')) {
    return `rules skipped: this server has no createAlertRule mutation (--rules ${inputs.length} asked)`;
  }
  try {
    for (const input of inputs) {
      await admin(
        url,
        'mutation ($input: CreateAlertRuleInput!) { createAlertRule(input: $input) { __typename } }',
        { input: { organizationId, ...input } },
      );
    }
    return `${inputs.length} webhook rules (--rule-mix ${args['rule-mix']})`;
  } catch (error) {
    return `rules skipped: createAlertRule refused the input (${(error as Error).message})`;
  }
}

/** N streams reading every change, on a thread of their own; resolves their event count when stopped. */
function attachStreams(url: string, apiKey: string, count: number): { stop(): Promise<number> } {
  const worker = startWorker(new URL('./lib/stream-reader-worker.js', import.meta.url), {
    workerData: { url, apiKey, count },
  });
  return {
    async stop() {
      // Let the streams take the round's last changes before they close.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const events = await new Promise<number>((resolve) => {
        worker.once('message', resolve);
        worker.postMessage('stop');
      });
      await worker.terminate();
      return events;
    },
  };
}

const target = await scratchDatabase(args.db, ADMIN_URL);
// A receiver for the rules' webhooks, answering 204 to everything.
let webhooks = 0;
const receiver = createServer((_request, response) => {
  webhooks++;
  response.writeHead(204).end();
});
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
      // The alert rules' settings (ignored by a server without them): receivers on loopback, a signing key.
      WFAPI_ALERTS_ALLOW_PRIVATE: 'true',
      WFAPI_ALERTS_SECRET_KEY: randomBytes(32).toString('hex'),
    },
    Number(args.port),
  );
  try {
    const plain = await createOrganizationOver(server.url, TOKEN);
    const pushed = await createOrganizationOver(server.url, TOKEN);
    const apiKey = await apiKeyFor(server.url, pushed);
    // One simulated history per organization, cut into one window per round (and a first,
    // untimed, with the registrations), ending a minute ago.
    const windows = ROUNDS + 1;
    const end = Date.now() - 60_000;
    const start = end - windows * WINDOW_MS;
    const historyOf = (organizationId: string, seed: string) => {
      const world = createWorld({
        seed,
        organizationId,
        workflows: 20,
        start,
        days: (windows * WINDOW_MS) / 86_400_000,
        executions: PER_ROUND * windows,
      });
      const lines = (index: number) => {
        const after = index === 0 ? Number.NEGATIVE_INFINITY : start + index * WINDOW_MS;
        return [...recordsBetween(world, after, start + (index + 1) * WINDOW_MS)].map(toNdjsonLine);
      };
      return { lines };
    };
    // Both arms ingest the same records (the pushed one's with its own organization and uuids):
    // with a history of their own each, their mixes of executions, events and log lines differed,
    // and so did their cost per record (with neither rules nor streams, one arm measured 1.151 of the other).
    const history = historyOf(plain, 'push-overhead');
    const histories = {
      plain: history,
      pushed: {
        lines: (index: number) => history.lines(index).map((line) => otherOrganization(line, plain, pushed)),
      },
    };
    const registered: string[] = [];
    for (const [arm, history] of Object.entries(histories)) {
      const warm = history.lines(0);
      await streamIngest(server.url, TOKEN, warm.values(), warm.length);
      if (arm === 'pushed') {
        for (const line of warm) {
          const record = JSON.parse(line) as { type: string; uuid?: string };
          if (record.type === 'workflow' && record.uuid) registered.push(record.uuid);
        }
      }
    }
    // After the registrations, so that every rule's workflow exists.
    const rules = await createRules(server.url, pushed, ruleInputs(RULES, registered, receiverUrl));

    const figures = { none: [] as number[], streams: [] as number[] };
    // CPU ms per arm and process, and the records they were spent on.
    const databaseCpu = target.name ? new DatabaseCpu(target.name) : undefined;
    const cpuNow = () => ({
      server: processCpuMs(server.pid ?? -1) ?? 0,
      database: databaseCpu?.read() ?? 0,
      bench: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
    });
    type Cpu = ReturnType<typeof cpuNow>;
    const cpu = {
      none: { server: 0, database: 0, bench: 0, records: 0 },
      streams: { server: 0, database: 0, bench: 0, records: 0 },
    };
    const sent = { plain: 0, pushed: 0 };
    let delivered = 0;
    let executionsSent = 0;
    let failures = 0;
    for (let round = 0; round < ROUNDS * 2; round++) {
      const withPush = [1, 2].includes(round % 4);
      const arm = withPush ? 'pushed' : 'plain';
      sent[arm]++;
      const lines = histories[arm].lines(sent[arm]);
      const attached = withPush ? attachStreams(server.url, apiKey, STREAMS) : undefined;
      if (attached) await new Promise((resolve) => setTimeout(resolve, 500));
      const before: Cpu = cpuNow();
      const perSecond = await streamIngest(server.url, TOKEN, lines.values(), lines.length);
      const after: Cpu = cpuNow();
      const spent = cpu[withPush ? 'streams' : 'none'];
      for (const key of ['server', 'database', 'bench'] as const) spent[key] += after[key] - before[key];
      spent.records += lines.length;
      if (attached) {
        delivered += await attached.stop();
        const executions = lines.filter((line) => line.includes('"type":"execution"'));
        executionsSent += executions.length;
        failures += executions.filter((line) => line.includes('"status":"FAILURE"')).length;
      }
      (withPush ? figures.streams : figures.none).push(perSecond);
      console.log(
        `round ${round + 1}: ${lines.length} records, ${withPush ? `${RULES} rules and ${STREAMS} streams` : 'no rules, no streams'}: ${Math.round(perSecond)} records/s`,
      );
    }
    const none = median(figures.none);
    const streams = median(figures.streams);
    console.log(
      `command: node --import tsx bench/push-overhead.ts --streams ${STREAMS} --rules ${RULES} --rule-mix ${args['rule-mix']} --rounds ${ROUNDS} --executions ${PER_ROUND} --db ${args.db}`,
    );
    console.log(`Node ${process.version}, ${args.db}, ${rules}`);
    console.log(`without push   median ${Math.round(none)} records/s over ${figures.none.length} rounds`);
    console.log(
      `with ${RULES} rules and ${STREAMS} streams   median ${Math.round(streams)} records/s over ${figures.streams.length} rounds`,
    );
    console.log(
      `ratio with/without ${(streams / none).toFixed(3)} (${((1 - streams / none) * 100).toFixed(1)}% slower); ` +
        `${delivered} events streamed for ${executionsSent} execution lines x ${STREAMS} streams; ` +
        `${failures} failure lines, ${webhooks} webhooks received by the end of the rounds`,
    );
    // During the timed ingestion only (work left after a round, e.g. sends, is not counted).
    const perThousand = (arm: keyof typeof cpu) => {
      const { records, ...by } = cpu[arm];
      const parts = Object.entries(by).map(([name, ms]) => `${name} ${((ms / records) * 1000).toFixed(1)}`);
      const total = ((by.server + by.database + by.bench) / records) * 1000;
      return `${parts.join(', ')}, total ${total.toFixed(1)}`;
    };
    console.log(`CPU ms per 1000 records without push: ${perThousand('none')}`);
    console.log(`CPU ms per 1000 records with push:    ${perThousand('streams')}`);
    console.log(
      `load average at the end: ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await server.stop();
  }
} finally {
  receiver.close();
  await target.cleanup();
}
