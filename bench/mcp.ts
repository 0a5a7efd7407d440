/**
 * The MCP endpoint's cost: the common tools called through `POST /mcp` (JSON-RPC `tools/call`,
 * stateless, as the SDK's client sends it) at `--concurrency` sessions, each beside the
 * equivalent `/graphql` requests, that is the very documents the tool ran (recorded by running the
 * tool once through a recording executor) posted one after the other. Reports requests a second,
 * p50 and p99 per call, and the server's CPU per call.
 *
 *   node --import tsx bench/mcp.ts [--executions 100000] [--concurrency 16] [--seconds 5] [--only <regexp>]
 */
import http from 'node:http';
import { parseArgs } from 'node:util';
import { callTool } from '../src/mcp/call-tool.js';
import { type GraphqlExecutor, GraphqlProblem } from '../src/mcp/executor.js';
import { TOOLS } from '../src/mcp/tools/all-tools.js';
import { closedLoop } from './lib/closed-loop.js';
import { commandLine } from './lib/command-line.js';
import { ensureDataset } from './lib/dataset.js';
import { GraphqlHttpClient } from './lib/http-client.js';
import { ServerProcess } from './lib/server-process.js';
import { benchServerEnv } from './lib/warm-up.js';

const { values: args } = parseArgs({
  options: {
    executions: { type: 'string', default: '100000' },
    concurrency: { type: 'string', default: '16' },
    seconds: { type: 'string', default: '5' },
    only: { type: 'string' },
    'pg-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    port: { type: 'string', default: '4795' },
  },
});
const concurrency = Number(args.concurrency);
const seconds = Number(args.seconds);
const dataset = await ensureDataset({
  adminUrl: args['pg-url']!,
  executions: Number(args.executions),
  port: Number(args.port) + 9,
});
const server = await ServerProcess.start(benchServerEnv(dataset.databaseUrl), Number(args.port));
const graphqlClient = new GraphqlHttpClient(server.url, dataset.key, concurrency);

/** A keep-alive JSON-RPC client of `/mcp`: one socket per session. */
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
function mcpCall(name: string, toolArgs: Record<string, unknown>): Promise<boolean> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, arguments: toolArgs },
  });
  return new Promise((resolve, reject) => {
    const request = http.request(
      new URL('/mcp', server.url),
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(body),
          authorization: `Apikey ${dataset.key}`,
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk) => {
          text += chunk;
        });
        response.on('end', () => {
          if (response.statusCode !== 200) return resolve(false);
          const answer = JSON.parse(text) as { result?: { isError?: boolean } };
          resolve(answer.result !== undefined && !answer.result.isError);
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** The documents a tool runs for these arguments, recorded by running it once through /graphql. */
async function documentsOf(name: string, toolArgs: Record<string, unknown>) {
  const recorded: Array<{ document: string; variables: Record<string, unknown> }> = [];
  const fields = await fetch(new URL('/graphql', server.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Apikey ${dataset.key}` },
    body: JSON.stringify({ query: '{ __schema { queryType { fields { name } } } }' }),
  }).then(
    (r) => r.json() as Promise<{ data: { __schema: { queryType: { fields: Array<{ name: string }> } } } }>,
  );
  const recorder: GraphqlExecutor = {
    queryFields: new Set(fields.data.__schema.queryType.fields.map((f) => f.name)),
    async run<Data>(document: string, variables: Record<string, unknown> = {}) {
      recorded.push({ document, variables });
      const answer = (await fetch(new URL('/graphql', server.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Apikey ${dataset.key}` },
        body: JSON.stringify({ query: document, variables }),
      }).then((r) => r.json())) as {
        data: Data;
        errors?: Array<{ message: string; extensions: { code: string } }>;
      };
      if (answer.errors?.length)
        throw new GraphqlProblem(answer.errors[0]!.extensions.code, answer.errors[0]!.message);
      return answer.data;
    },
  };
  const tool = TOOLS.find((t) => t.name === name)!;
  const result = await callTool(tool, toolArgs, recorder);
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return { recorded, chars: JSON.stringify(result).length };
}

const facts = dataset.facts;
const window = {
  from: new Date(facts.now.getTime() - 86_400_000).toISOString(),
  to: facts.now.toISOString(),
};
const CASES: Array<[string, Record<string, unknown>]> = [
  ['list_workflows', { pageSize: 20 }],
  ['workflow_health', { workflow: facts.workflowUuid, since: window.from }],
  ['find_executions', { workflow: facts.workflowUuid, status: ['FAILURE'], ...window }],
  ['get_execution', { uuid: facts.executionUuid }],
  ['error_groups', { ...window }],
  ['search_logs', { query: facts.insight?.logTerm ?? 'reverted', ...window }],
  ['capability_stats', { workflow: facts.workflowUuid, ...window }],
  ['duration_stats', { workflow: facts.workflowUuid, ...window }],
];
const only = args.only ? new RegExp(args.only) : undefined;
const rows: string[] = [];
for (const [name, toolArgs] of CASES) {
  if (only && !only.test(name)) continue;
  const { recorded, chars } = await documentsOf(name, toolArgs);
  const viaGraphql = async () => {
    for (const { document, variables } of recorded)
      if (!(await graphqlClient.post(document, variables))) return false;
    return true;
  };
  const viaMcp = () => mcpCall(name, toolArgs);
  const measure = async (request: () => Promise<boolean>) => {
    await closedLoop(request, { concurrency: 4, seconds: 1 });
    const before = server.cpuMs;
    const summary = await closedLoop(request, { concurrency, seconds });
    return { summary, cpuUsPerCall: (1000 * (server.cpuMs - before)) / Math.max(1, summary.requests) };
  };
  const mcp = await measure(viaMcp);
  const graphql = await measure(viaGraphql);
  const row = `| ${name} | ${recorded.length} | ${chars} | ${mcp.summary.rps.toFixed(0)} | ${mcp.summary.p50.toFixed(1)} | ${mcp.summary.p99.toFixed(1)} | ${mcp.cpuUsPerCall.toFixed(0)} | ${graphql.summary.rps.toFixed(0)} | ${graphql.summary.p99.toFixed(1)} | ${graphql.cpuUsPerCall.toFixed(0)} | ${mcp.summary.errors + graphql.summary.errors} |`;
  rows.push(row);
  console.error(row);
}
graphqlClient.close();
agent.destroy();
await server.stop();
console.log(`\n${commandLine('node --import tsx bench/mcp.ts')}\n`);
console.log(
  `${Number(args.executions).toLocaleString('en')} executions, concurrency ${concurrency}, ${seconds} s per side\n`,
);
console.log(
  '| tool | documents | answer chars | /mcp calls/s | /mcp p50 ms | /mcp p99 ms | /mcp server CPU µs/call | /graphql calls/s | /graphql p99 ms | /graphql server CPU µs/call | errors |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
