/**
 * Read throughput with one streaming replica against the primary alone, side by side in one run:
 * `npx tsx bench/replicas.ts [--executions 20000] [--concurrency 16] [--seconds 5] [--rounds 3]`.
 *
 * Loads (or finds) the bench dataset on the PostgreSQL at --pg-url, makes a real streaming replica
 * of that cluster (pg_basebackup -R, run as the postgres user on a free port: see
 * test/harness/replica.ts), and starts two servers as deployed: one on the primary alone, one with
 * DATABASE_REPLICA_URLS naming the replica. Each round drives each server in turn with the read
 * mix (every request the next query of bench/queries.ts's FULL_MIX) from `concurrency` keep-alive
 * connections for `seconds`; the figures are the medians of the rounds. Writes
 * bench/results/replicas.{json,md}.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { startReplica } from '../test/harness/replica.js';
import { closedLoop } from './lib/closed-loop.js';
import { commandLine } from './lib/command-line.js';
import { ensureDataset } from './lib/dataset.js';
import { GraphqlHttpClient } from './lib/http-client.js';
import { ServerProcess } from './lib/server-process.js';
import { medianSummary, type Summary } from './lib/stats.js';
import { benchServerEnv, warmUp } from './lib/warm-up.js';
import { FULL_MIX } from './queries.js';

const { values: args } = parseArgs({
  options: {
    executions: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '16' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    'pg-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    port: { type: 'string', default: '4760' },
  },
});

const command = commandLine('npx tsx bench/replicas.ts');
const concurrency = Number(args.concurrency);
const seconds = Number(args.seconds);
const rounds = Number(args.rounds);
const port = Number(args.port);
console.log(`# ${command}`);

const dataset = await ensureDataset({
  adminUrl: args['pg-url']!,
  executions: Number(args.executions),
  port: port + 1,
});
const databaseName = new URL(dataset.databaseUrl).pathname.slice(1);
console.log(`dataset: ${dataset.databaseUrl} (${dataset.facts.totalExecutions} executions)`);

const replica = await startReplica();
const servers: ServerProcess[] = [];
try {
  const alone = await ServerProcess.start(benchServerEnv(dataset.databaseUrl), port + 2);
  servers.push(alone);
  const withReplica = await ServerProcess.start(
    { ...benchServerEnv(dataset.databaseUrl), DATABASE_REPLICA_URLS: replica.url(databaseName) },
    port + 3,
  );
  servers.push(withReplica);
  const setups = [
    { name: 'primary alone', server: alone },
    { name: 'primary + 1 replica', server: withReplica },
  ];
  const replicaState = async () => {
    const body = (await (await fetch(`${withReplica.url}/readyz`)).json()) as {
      databases: Array<{ inUse: boolean; lagMs: number | null }>;
    };
    return body.databases[1]!;
  };
  for (let i = 0; !(await replicaState()).inUse; i++) {
    if (i > 300) throw new Error('the replica never came into use');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  for (const { server } of setups) await warmUp(server.url, dataset.key, dataset.facts, FULL_MIX, 1);

  const replicaReads = async () => {
    const [row] = await replica.query<{ xacts: number }>(
      databaseName,
      `select (xact_commit + xact_rollback)::int as xacts from pg_stat_database where datname = current_database()`,
    );
    return row!.xacts;
  };
  const readsBefore = await replicaReads();

  const runs = new Map<string, Summary[]>(setups.map(({ name }) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const { name, server } of round % 2 === 0 ? setups : [...setups].reverse()) {
      const client = new GraphqlHttpClient(server.url, dataset.key, concurrency);
      const requests = FULL_MIX.map((q) => ({ query: q.query, variables: q.variables(dataset.facts) }));
      let next = 0;
      const summary = await closedLoop(
        () => {
          const request = requests[next++ % requests.length]!;
          return client.post(request.query, request.variables);
        },
        { concurrency, seconds },
      );
      client.close();
      runs.get(name)!.push(summary);
      console.log(
        `round ${round + 1} ${name}: ${summary.rps.toFixed(0)} req/s, p50 ${summary.p50.toFixed(1)} ms, p99 ${summary.p99.toFixed(1)} ms, ${summary.errors} errors`,
      );
    }
  }
  // Statistics reach pg_stat_database within a second of a transaction, or after ten idle seconds.
  await new Promise((resolve) => setTimeout(resolve, 11_000));
  const answeredByReplica = (await replicaReads()) - readsBefore;
  const state = await replicaState();

  const medians = setups.map(({ name }) => ({ name, ...medianSummary(runs.get(name)!) }));
  const ratio = medians[1]!.rps / medians[0]!.rps;
  const cores = cpus().length;
  const lines = [
    `# Read throughput: primary alone vs primary + one streaming replica`,
    '',
    `\`${command}\` — ${dataset.facts.totalExecutions} executions, the read mix (${FULL_MIX.length} queries in turn), ` +
      `${concurrency} connections, ${rounds} rounds of ${seconds} s each, medians; ${cores} cores.`,
    '',
    '| setup | req/s | p50 ms | p99 ms | errors |',
    '|---|---:|---:|---:|---:|',
    ...medians.map(
      (m) => `| ${m.name} | ${m.rps.toFixed(0)} | ${m.p50.toFixed(1)} | ${m.p99.toFixed(1)} | ${m.errors} |`,
    ),
    '',
    `Ratio (with replica / alone): **${ratio.toFixed(2)}x**. The replica committed ${answeredByReplica} transactions ` +
      `in the bench database during the runs (its pg_stat_database), and reported lag ${state.lagMs} ms at the end.`,
    '',
    `On this machine the primary, the replica, the server and this load generator share ${cores} cores: a replica adds ` +
      'no CPU, it only splits the same CPU between two PostgreSQL processes (and adds WAL replay), so the ratio ' +
      'measures the routing overhead here, not the capacity a replica on its own machine adds.',
  ];
  const markdown = `${lines.join('\n')}\n`;
  console.log(`\n${markdown}`);
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('./results/replicas.md', import.meta.url), markdown);
  writeFileSync(
    new URL('./results/replicas.json', import.meta.url),
    `${JSON.stringify({ command, cores, concurrency, seconds, rounds, medians, runs: Object.fromEntries(runs), ratio, answeredByReplica }, null, 2)}\n`,
  );
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  await replica.close();
}
