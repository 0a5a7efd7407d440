/**
 * Profiles the server on one cheap query: starts the compiled server with `--cpu-prof`, drives
 * it with one query at `--concurrency` for `--seconds`, stops it, and prints self time by function.
 *
 *   node --import tsx bench/profile-cheap.ts --executions 100000 --query trivial|one [--concurrency 16] [--seconds 8]
 *
 * `--query` may also name any query of the mix (bench/queries.ts) by a regular expression over its
 * name, e.g. `--query "capability stats"`.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { closedLoop } from './lib/closed-loop.js';
import { ensureDataset } from './lib/dataset.js';
import { GraphqlHttpClient } from './lib/http-client.js';
import { ServerProcess } from './lib/server-process.js';
import { benchServerEnv } from './lib/warm-up.js';
import { EXECUTION_FIELDS, FULL_MIX } from './queries.js';

const { values: args } = parseArgs({
  options: {
    executions: { type: 'string', default: '100000' },
    query: { type: 'string', default: 'trivial' },
    concurrency: { type: 'string', default: '16' },
    seconds: { type: 'string', default: '8' },
    top: { type: 'string', default: '45' },
    'pg-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    port: { type: 'string', default: '4790' },
  },
});
const dataset = await ensureDataset({
  adminUrl: args['pg-url']!,
  executions: Number(args.executions),
  port: Number(args.port) + 9,
});
const dir = mkdtempSync(join(tmpdir(), 'wfapi-prof-'));
process.env.BENCH_SERVER_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${dir}`;
const server = await ServerProcess.start(benchServerEnv(dataset.databaseUrl), Number(args.port), {
  clockStart: dataset.facts.now,
});
function chosenQuery(name: string): [string, Record<string, unknown>] {
  if (name === 'trivial') return ['{ __typename }', {}];
  if (name === 'one') {
    return [
      `query One($input: WorkflowExecutionInput!) { workflowExecution(input: $input) { data { ${EXECUTION_FIELDS} } } }`,
      { input: { uuid: dataset.facts.executionUuid } },
    ];
  }
  const pattern = new RegExp(name);
  const found = FULL_MIX.find((q) => pattern.test(q.name));
  if (!found) throw new Error(`no query of the mix matches ${name}`);
  return [found.query, found.variables(dataset.facts)];
}
const [query, variables] = chosenQuery(args.query!);
const concurrency = Number(args.concurrency);
const client = new GraphqlHttpClient(server.url, dataset.key, concurrency);
await closedLoop(() => client.post(query, variables), { concurrency, seconds: 2 });
const cpuBefore = server.cpuMs;
const summary = await closedLoop(() => client.post(query, variables), {
  concurrency,
  seconds: Number(args.seconds),
});
const cpuUsed = server.cpuMs - cpuBefore;
client.close();
await server.stop();
console.log(
  `${args.query} c=${concurrency}: ${summary.rps.toFixed(0)} req/s, ${summary.errors} errors, ` +
    `${((1000 * cpuUsed) / summary.requests).toFixed(0)} µs CPU/req`,
);

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
}
const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
if (!file) throw new Error(`no profile in ${dir}`);
const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { nodes: Node[] };
const self = new Map<string, number>();
let total = 0;
for (const node of profile.nodes) {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url.replace(/^.*node_modules\//, '').replace(/^.*wt-fast\//, '');
  const key = `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + node.hitCount);
  total += node.hitCount;
}
console.log(`profile: ${join(dir, file)} (${total} samples)`);
for (const [key, hits] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(args.top))) {
  console.log(`${((100 * hits) / total).toFixed(1).padStart(5)}%  ${key}`);
}
