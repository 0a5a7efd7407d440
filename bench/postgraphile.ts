/**
 * wfapi against PostGraphile v4 (the server a user would pick instead) on the same tables of the
 * same benchmark database, side by side in one run, with the same queries in both dialects: one
 * execution; a workflow's failures over 7 days with a total; a page at offset 1,000 with a total;
 * 100 workflows with execution counts; the same lists without totals; `{ __typename }`.
 *
 *   node --import tsx bench/postgraphile.ts [--executions 1000000] [--rounds 3] [--seconds 1.5]
 *        [--concurrency 1,16] [--ref main] [--check] [--warmup 1] [--port 4760] [--only REGEXP]
 *
 * Before measuring, every query is asked once of every server and their rows compared (ids,
 * totals, counts): the run stops if they differ (`--check` stops after that). `--ref` adds a
 * wfapi built from another git ref (bench/lib/ref-build.ts) as a third server, so that "no query
 * slower than before" is measured in the same run. Each query is then run against each server in
 * turn (the one going first rotates each round), `--rounds` times at each concurrency level, and
 * one execution's own SQL (captured from wfapi) is replayed through `pg` as a fourth side. Each
 * figure is the median over the rounds. PostGraphile runs without authentication, rate limits
 * or query limits (bench/lib/postgraphile-server.ts); each of its queries names the
 * organization itself. Beside each side's throughput it reports where a request's CPU time goes:
 * the server process, PostgreSQL's backends for the dataset's database, and this process (the
 * load generator: HTTP client, or the driver of the replayed SQL), each per request, median of
 * the rounds; their sum is the machine time a request takes, which bounds the throughput of a
 * machine whose cores all three share. `--only` keeps the queries whose name it matches.
 * Writes bench/results/postgraphile.{json,md}.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { captureMix, replayer } from './lib/ceiling.js';
import { closedLoop } from './lib/closed-loop.js';
import { commandLine } from './lib/command-line.js';
import { DatabaseCpu } from './lib/cpu-time.js';
import { ensureDataset } from './lib/dataset.js';
import { GraphqlHttpClient } from './lib/http-client.js';
import { buildRef } from './lib/ref-build.js';
import { ServerProcess } from './lib/server-process.js';
import { median, medianSummary, type Summary } from './lib/stats.js';
import { benchServerEnv } from './lib/warm-up.js';
import { type DatasetFacts, EXECUTION_FIELDS, type MixQuery } from './queries.js';

const { values: args } = parseArgs({
  options: {
    executions: { type: 'string', default: '1000000' },
    concurrency: { type: 'string', default: '1,16' },
    seconds: { type: 'string', default: '1.5' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1' },
    ref: { type: 'string' },
    check: { type: 'boolean', default: false },
    'pg-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    port: { type: 'string', default: '4760' },
    only: { type: 'string' },
  },
});
const command = commandLine('node --import tsx bench/postgraphile.ts');
const levels = args.concurrency!.split(',').map(Number);
const seconds = Number(args.seconds);
const rounds = Number(args.rounds);
const warmup = Number(args.warmup);
const port = Number(args.port);
console.log(`# ${command}`);

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** What both servers answer, reduced to compare: ids in order, totals, counts. */
type Rows = unknown;
interface Dialect {
  readonly query: string;
  variables(facts: DatasetFacts, organizationId: string): Record<string, unknown>;
  rows(data: Record<string, never>): Rows;
}
interface Pair {
  readonly name: string;
  readonly wfapi: Dialect;
  readonly postgraphile: Dialect;
}

// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely, then compared as JSON.
type Any = any;
const PG_EXECUTION_FIELDS = `uuid id workflowUuid workflowByWorkflowUuid { name workflowId } status classifiedStatus
  startedAt finishedAt creditUsed executedInTee errors`;
const ids = (list: Any[]) => list.map((row) => row.uuid);
const failures = (f: DatasetFacts) => ({
  workflowUuid: f.workflowUuid,
  status: ['FAILURE'],
  from: iso(f.now.getTime() - 7 * DAY),
  to: iso(f.now.getTime()),
  page: { number: 0, size: 20 },
});
const pgFailures = (f: DatasetFacts, org: string) => ({
  org,
  workflow: f.workflowUuid,
  from: iso(f.now.getTime() - 7 * DAY),
  to: iso(f.now.getTime()),
});
const PG_FAILURES_ARGS = `condition: {organizationId: $org, workflowUuid: $workflow, status: "FAILURE"},
  filter: {startedAt: {greaterThanOrEqualTo: $from, lessThanOrEqualTo: $to}}, orderBy: [STARTED_AT_DESC, UUID_DESC], first: 20`;
const PG_FAILURES_VARS = '$org: UUID!, $workflow: UUID!, $from: Datetime!, $to: Datetime!';
const PG_PAGE_ARGS =
  'condition: {organizationId: $org}, orderBy: [STARTED_AT_DESC, UUID_DESC], first: 100, offset: 1000';
const PG_WORKFLOWS_ARGS =
  'condition: {organizationId: $org}, orderBy: [REGISTERED_AT_DESC, UUID_DESC], first: 100';

const PAIRS: readonly Pair[] = [
  {
    name: '{ __typename }',
    wfapi: { query: '{ __typename }', variables: () => ({}), rows: (d) => d.__typename },
    postgraphile: { query: '{ __typename }', variables: () => ({}), rows: () => 'Query' },
  },
  {
    name: 'one execution',
    wfapi: {
      query: `query One($input: WorkflowExecutionInput!) { workflowExecution(input: $input) { data { ${EXECUTION_FIELDS} } } }`,
      variables: (f) => ({ input: { uuid: f.executionUuid } }),
      rows: (d: Any) => {
        const e = d.workflowExecution.data;
        return [e.uuid, e.status, e.workflowName, Number(e.creditUsed), Date.parse(e.startedAt)];
      },
    },
    postgraphile: {
      query: `query One($org: UUID!, $uuid: UUID!) {
        allExecutions(condition: {organizationId: $org, uuid: $uuid}) { nodes { ${PG_EXECUTION_FIELDS} } } }`,
      variables: (f, org) => ({ org, uuid: f.executionUuid }),
      rows: (d: Any) => {
        const e = d.allExecutions.nodes[0];
        return [
          e.uuid,
          e.status,
          e.workflowByWorkflowUuid.name,
          Number(e.creditUsed),
          Date.parse(e.startedAt),
        ];
      },
    },
  },
  {
    name: "a workflow's failures over 7 days, with a total",
    wfapi: {
      query: `query Failures($input: WorkflowExecutionsInput!) { workflowExecutions(input: $input) { count data { ${EXECUTION_FIELDS} } } }`,
      variables: (f) => ({ input: failures(f) }),
      rows: (d: Any) => [d.workflowExecutions.count, ids(d.workflowExecutions.data)],
    },
    postgraphile: {
      query: `query Failures(${PG_FAILURES_VARS}) { allExecutions(${PG_FAILURES_ARGS}) { totalCount nodes { ${PG_EXECUTION_FIELDS} } } }`,
      variables: pgFailures,
      rows: (d: Any) => [d.allExecutions.totalCount, ids(d.allExecutions.nodes)],
    },
  },
  {
    name: 'a page at offset 1,000, with a total',
    wfapi: {
      query: `query Page($input: WorkflowExecutionsInput!) { workflowExecutions(input: $input) { count data { uuid startedAt status } } }`,
      variables: () => ({ input: { page: { number: 10, size: 100 } } }),
      rows: (d: Any) => [d.workflowExecutions.count, ids(d.workflowExecutions.data)],
    },
    postgraphile: {
      query: `query Page($org: UUID!) { allExecutions(${PG_PAGE_ARGS}) { totalCount nodes { uuid startedAt status } } }`,
      variables: (_f, org) => ({ org }),
      rows: (d: Any) => [d.allExecutions.totalCount, ids(d.allExecutions.nodes)],
    },
  },
  {
    name: '100 workflows with execution counts, with a total',
    wfapi: {
      query:
        'query Inventory { workflows(input: {page: {size: 100}}) { count data { uuid name executionCount } } }',
      variables: () => ({}),
      rows: (d: Any) => [d.workflows.count, d.workflows.data.map((w: Any) => [w.uuid, w.executionCount])],
    },
    postgraphile: {
      query: `query Inventory($org: UUID!) { allWorkflows(${PG_WORKFLOWS_ARGS}) {
        totalCount nodes { uuid name executionsByWorkflowUuid { totalCount } } } }`,
      variables: (_f, org) => ({ org }),
      rows: (d: Any) => [
        d.allWorkflows.totalCount,
        d.allWorkflows.nodes.map((w: Any) => [w.uuid, w.executionsByWorkflowUuid.totalCount]),
      ],
    },
  },
  {
    name: "a workflow's failures over 7 days, no total",
    wfapi: {
      query: `query Failures($input: WorkflowExecutionsInput!) { workflowExecutions(input: $input) { data { ${EXECUTION_FIELDS} } } }`,
      variables: (f) => ({ input: failures(f) }),
      rows: (d: Any) => ids(d.workflowExecutions.data),
    },
    postgraphile: {
      query: `query Failures(${PG_FAILURES_VARS}) { allExecutions(${PG_FAILURES_ARGS}) { nodes { ${PG_EXECUTION_FIELDS} } } }`,
      variables: pgFailures,
      rows: (d: Any) => ids(d.allExecutions.nodes),
    },
  },
  {
    name: 'a page at offset 1,000, no total',
    wfapi: {
      query: `query Page($input: WorkflowExecutionsInput!) { workflowExecutions(input: $input) { data { uuid startedAt status } } }`,
      variables: () => ({ input: { page: { number: 10, size: 100 } } }),
      rows: (d: Any) => ids(d.workflowExecutions.data),
    },
    postgraphile: {
      query: `query Page($org: UUID!) { allExecutions(${PG_PAGE_ARGS}) { nodes { uuid startedAt status } } }`,
      variables: (_f, org) => ({ org }),
      rows: (d: Any) => ids(d.allExecutions.nodes),
    },
  },
  {
    name: '100 workflows, no counts',
    wfapi: {
      query: 'query Inventory { workflows(input: {page: {size: 100}}) { data { uuid name } } }',
      variables: () => ({}),
      rows: (d: Any) => ids(d.workflows.data),
    },
    postgraphile: {
      query: `query Inventory($org: UUID!) { allWorkflows(${PG_WORKFLOWS_ARGS}) { nodes { uuid name } } }`,
      variables: (_f, org) => ({ org }),
      rows: (d: Any) => ids(d.allWorkflows.nodes),
    },
  },
];

const dataset = await ensureDataset({
  adminUrl: args['pg-url']!,
  executions: Number(args.executions),
  port: port + 9,
});
const facts = dataset.facts;
const organizationId = await (async () => {
  const client = new pg.Client({ connectionString: dataset.databaseUrl });
  await client.connect();
  const { rows } = await client.query<{ id: string }>(
    'select organization_id as id from bench_dataset where id = 1',
  );
  await client.end();
  return rows[0]!.id;
})();
console.log(`dataset: ${dataset.databaseUrl} (${facts.totalExecutions} executions)`);

const POSTGRAPHILE_DIR = fileURLToPath(new URL('./postgraphile/', import.meta.url));
if (!existsSync(`${POSTGRAPHILE_DIR}node_modules/postgraphile`)) {
  // PostGraphile has its own install (bench/postgraphile/package.json says why).
  const installed = spawnSync('npm', ['install', '--no-audit', '--no-fund'], {
    cwd: POSTGRAPHILE_DIR,
    stdio: 'inherit',
  });
  if (installed.status !== 0) throw new Error('npm install in bench/postgraphile failed');
}

// Built before any server starts, so that a failed build leaves no server behind.
const refCli = args.ref ? buildRef(args.ref) : undefined;

interface Side {
  readonly name: string;
  readonly dialect: 'wfapi' | 'postgraphile';
  readonly server: ServerProcess;
  readonly key: string;
}
const sides: Side[] = [
  {
    name: 'wfapi',
    dialect: 'wfapi',
    server: await ServerProcess.start(benchServerEnv(dataset.databaseUrl), port),
    key: dataset.key,
  },
];
if (refCli) {
  sides.push({
    name: `wfapi ${args.ref}`,
    dialect: 'wfapi',
    server: await ServerProcess.start(benchServerEnv(dataset.databaseUrl), port + 1, { cli: refCli }),
    key: dataset.key,
  });
}
sides.push({
  name: 'PostGraphile',
  dialect: 'postgraphile',
  server: await ServerProcess.start({ DATABASE_URL: dataset.databaseUrl, NODE_ENV: 'production' }, port + 2, {
    script: {
      path: fileURLToPath(new URL('./lib/postgraphile-server.ts', import.meta.url)),
      args: ['--port', String(port + 2)],
    },
  }),
  key: '',
});
const stopAll = () => Promise.all(sides.map((side) => side.server.stop()));

// The same rows from every server, before anything is measured.
const mismatches: string[] = [];
for (const pair of PAIRS) {
  const answers = await Promise.all(
    sides.map(async (side) => {
      const dialect = pair[side.dialect];
      const response = await fetch(`${side.server.url}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(side.key && { authorization: `Apikey ${side.key}` }),
        },
        body: JSON.stringify({ query: dialect.query, variables: dialect.variables(facts, organizationId) }),
      });
      const body = (await response.json()) as { data?: Record<string, never>; errors?: unknown };
      if (body.errors || !body.data) return `errors: ${JSON.stringify(body.errors).slice(0, 300)}`;
      return JSON.stringify(dialect.rows(body.data));
    }),
  );
  const same = answers.every((answer) => answer === answers[0]);
  console.log(`check ${same ? 'ok' : 'DIFFERENT'}: ${pair.name}`);
  if (!same) {
    mismatches.push(pair.name);
    for (const [i, answer] of answers.entries()) console.log(`  ${sides[i]!.name}: ${answer.slice(0, 400)}`);
  }
}
if (mismatches.length > 0 || args.check) {
  await stopAll();
  if (mismatches.length > 0) throw new Error(`the servers answer differently: ${mismatches.join('; ')}`);
  process.exit(0);
}

// One execution's own SQL, as wfapi issues it, replayed through pg: the ceiling of that query.
const ONE = PAIRS.find((pair) => pair.name === 'one execution')!;
const oneAsMix: MixQuery = {
  name: ONE.name,
  p99TargetMs: 5,
  query: ONE.wfapi.query,
  variables: ONE.wfapi.variables as MixQuery['variables'],
};
const oneStatements = (await captureMix(dataset.databaseUrl, dataset.key, facts, [oneAsMix])).get(ONE.name)!;

interface Row {
  query: string;
  concurrency: number;
  /** Median summary per side (by name), and `pg (SQL replay)` for one execution. */
  sides: Record<string, Summary>;
  /** Median over the rounds of each server's CPU time per request, in µs (ServerProcess.cpuMs). */
  cpuMicrosPerRequest: Record<string, number>;
  /** Median over the rounds of each side's CPU time per request in PostgreSQL and in the load generator, in µs. */
  databaseMicrosPerRequest: Record<string, number>;
  clientMicrosPerRequest: Record<string, number>;
}
const databaseCpu = DatabaseCpu.of(dataset.databaseUrl);
const clientCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const only = args.only === undefined ? undefined : new RegExp(args.only, 'i');
const SQL = 'pg (its SQL replayed)';
const rows: Row[] = [];
for (const concurrency of levels) {
  const clients = sides.map((side) => new GraphqlHttpClient(side.server.url, side.key, concurrency));
  const pool = new pg.Pool({
    connectionString: dataset.databaseUrl,
    max: concurrency,
    options: '-c jit=off',
  });
  for (const pair of PAIRS.filter((p) => !only || only.test(p.name))) {
    const runners: { name: string; server?: ServerProcess; run: () => Promise<boolean> }[] = sides.map(
      (side, i) => {
        const dialect = pair[side.dialect];
        const variables = dialect.variables(facts, organizationId);
        return {
          name: side.name,
          server: side.server,
          run: () => clients[i]!.post(dialect.query, variables),
        };
      },
    );
    if (pair === ONE) runners.push({ name: SQL, run: replayer(pool, oneStatements) });
    const runs: Record<string, Summary[]> = Object.fromEntries(runners.map((r) => [r.name, []]));
    const cpu: Record<string, number[]> = Object.fromEntries(runners.map((r) => [r.name, []]));
    const database: Record<string, number[]> = Object.fromEntries(runners.map((r) => [r.name, []]));
    const client: Record<string, number[]> = Object.fromEntries(runners.map((r) => [r.name, []]));
    for (const runner of runners) await closedLoop(runner.run, { concurrency, seconds: warmup });
    for (let round = 0; round < rounds; round++) {
      const first = round % runners.length;
      for (const runner of [...runners.slice(first), ...runners.slice(0, first)]) {
        const before = runner.server?.cpuMs ?? Number.NaN;
        const [databaseBefore, clientBefore] = [databaseCpu.read(), clientCpuMs()];
        const summary = await closedLoop(runner.run, { concurrency, seconds });
        const [databaseUsed, clientUsed] = [
          databaseCpu.read() - databaseBefore,
          clientCpuMs() - clientBefore,
        ];
        runs[runner.name]!.push(summary);
        const used = (runner.server?.cpuMs ?? Number.NaN) - before;
        if (summary.requests > 0) {
          if (Number.isFinite(used)) cpu[runner.name]!.push((1000 * used) / summary.requests);
          database[runner.name]!.push((1000 * databaseUsed) / summary.requests);
          client[runner.name]!.push((1000 * clientUsed) / summary.requests);
        }
      }
    }
    const medians = (lists: Record<string, number[]>) =>
      Object.fromEntries(
        Object.entries(lists)
          .filter(([, list]) => list.length > 0)
          .map(([name, list]) => [name, median(list)]),
      );
    const row: Row = {
      query: pair.name,
      concurrency,
      sides: Object.fromEntries(Object.entries(runs).map(([name, list]) => [name, medianSummary(list)])),
      cpuMicrosPerRequest: medians(cpu),
      databaseMicrosPerRequest: medians(database),
      clientMicrosPerRequest: medians(client),
    };
    rows.push(row);
    console.log(
      `c=${concurrency} ${pair.name}: ${Object.entries(row.sides)
        .map(
          ([name, s]) => `${name} ${s.rps.toFixed(0)} req/s p99 ${s.p99.toFixed(1)} ms (${s.errors} errors)`,
        )
        .join(' | ')}`,
    );
  }
  for (const client of clients) client.close();
  await pool.end();
}
await stopAll();

const names = sides.map((side) => side.name);
const ref = args.ref ? `wfapi ${args.ref}` : undefined;
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '-');
const ratio = (a: Summary | undefined, b: Summary | undefined) =>
  a && b && b.rps > 0 ? `${(a.rps / b.rps).toFixed(2)}x` : '-';
const cores = (await import('node:os')).cpus().length;
const markdown = [
  `Measured ${new Date().toISOString()} on ${cores} cores, Node ${process.version}; ` +
    `dataset ${facts.totalExecutions.toLocaleString('en-US')} executions; median of ${rounds} rounds of ${seconds} s, ` +
    `the side going first rotating each round. Command: \`${command}\`.`,
  '',
  `| query | conn | ${names.map((n) => `${n} req/s | ${n} p99 ms`).join(' | ')} | wfapi / PostGraphile |${ref ? ` wfapi / ${ref} |` : ''} wfapi / its SQL through pg | ${names.map((n) => `${n} CPU µs/req`).join(' | ')} | errors |`,
  `|---|---:|${names.map(() => '---:|---:').join('|')}|---:|${ref ? '---:|' : ''}---:|${names.map(() => '---:').join('|')}|---:|`,
  ...rows.map((r) => {
    const own = r.sides.wfapi!;
    const sql = r.sides[SQL];
    const errors = Object.values(r.sides).reduce((sum, s) => sum + s.errors, 0);
    return (
      `| ${r.query} | ${r.concurrency} | ${names.map((n) => `${r.sides[n]!.rps.toFixed(0)} | ${f1(r.sides[n]!.p99)}`).join(' | ')}` +
      ` | ${ratio(own, r.sides.PostGraphile)} |${ref ? ` ${ratio(own, r.sides[ref])} |` : ''}` +
      ` ${sql ? `${((100 * own.rps) / sql.rps).toFixed(0)}% of ${sql.rps.toFixed(0)}` : '-'} |` +
      ` ${names.map((n) => (r.cpuMicrosPerRequest[n] === undefined ? '-' : r.cpuMicrosPerRequest[n]!.toFixed(0))).join(' | ')} | ${errors} |`
    );
  }),
  '',
  `Where a request's CPU time goes, in µs a request (median of the rounds): the server, PostgreSQL's backends, the load generator (this process), their sum, and the requests a second that sum allows on ${cores} cores.`,
  '',
  '| query | conn | side | server | PostgreSQL | load generator | sum | cores / sum |',
  '|---|---:|---|---:|---:|---:|---:|---:|',
  ...rows.flatMap((r) =>
    Object.keys(r.sides).map((name) => {
      // The replayed SQL has no server: its parts are PostgreSQL and the load generator alone.
      const server = r.cpuMicrosPerRequest[name];
      const database = r.databaseMicrosPerRequest[name] ?? Number.NaN;
      const client = r.clientMicrosPerRequest[name] ?? Number.NaN;
      const sum = (server ?? 0) + database + client;
      const cell = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? '-' : n.toFixed(0));
      return `| ${r.query} | ${r.concurrency} | ${name} | ${cell(server)} | ${cell(database)} | ${cell(client)} | ${cell(sum)} | ${cell((cores * 1e6) / sum)} |`;
    }),
  ),
  '',
].join('\n');
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
const result = {
  command,
  date: new Date().toISOString(),
  executions: facts.totalExecutions,
  rounds,
  seconds,
  rows,
};
writeFileSync(
  new URL('./results/postgraphile.json', import.meta.url),
  `${JSON.stringify(result, null, 2)}\n`,
);
writeFileSync(new URL('./results/postgraphile.md', import.meta.url), markdown);
console.log(`\n${markdown}`);
