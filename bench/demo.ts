/**
 * The demo on the embedded database: `npm start`'s server (PGlite, a month of about 100,000
 * simulated executions, live traffic on) driven with the query mix at 4 connections.
 *
 *   node --import tsx bench/demo.ts [--concurrency 4] [--seconds 5]
 *
 * Starts `wfapi demo` on an empty data directory (rate limit lifted), waits for the whole month to be loaded, reads
 * the facts the mix needs through the API itself, and prints p50/p99 per query beside the target
 * (100 ms p99); writes bench/results/demo.{json,md}.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { closedLoop } from './lib/closed-loop.js';
import { GraphqlHttpClient } from './lib/http-client.js';
import { ServerProcess } from './lib/server-process.js';
import type { Summary } from './lib/stats.js';
import { type DatasetFacts, MIX, TRIVIAL } from './queries.js';

const { values: args } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '4' },
    seconds: { type: 'string', default: '5' },
    port: { type: 'string', default: '4702' },
  },
});
const concurrency = Number(args.concurrency);
const seconds = Number(args.seconds);
const TARGET_P99_MS = 100;
const command = `node --import tsx bench/demo.ts --concurrency ${concurrency} --seconds ${seconds}`;

const dataDir = mkdtempSync(join(tmpdir(), 'wfapi-demo-bench-'));
let output = '';
let loaded: () => void;
const complete = new Promise<void>((resolve) => {
  loaded = resolve;
});
let bannered: (key: string) => void;
const banner = new Promise<string>((resolve) => {
  bannered = resolve;
});
console.log(`# ${command}`);
const started = performance.now();
// The per-key rate limit (100 a second by default) would cap the load generator, not the server.
const server = await ServerProcess.start(
  { WFAPI_DATA_DIR: dataDir, WFAPI_RATE_LIMIT_BURST: '1000000', WFAPI_RATE_LIMIT_PER_SECOND: '1000000' },
  Number(args.port),
  {
    command: 'demo',
    timeoutMs: 120_000,
    onOutput: (text) => {
      output += text;
      const key = /API key\s+(wfk_\S+)/.exec(output)?.[1];
      if (key) bannered(key);
      if (output.includes('demo history complete')) loaded();
    },
  },
);
const key = await banner;
await complete;
console.log(`demo month loaded after ${((performance.now() - started) / 1000).toFixed(1)} s`);

const client = new GraphqlHttpClient(server.url, key, concurrency);
async function ask<T>(query: string): Promise<T> {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Apikey ${key}` },
    body: JSON.stringify({ query }),
  });
  const body = (await response.json()) as { data: T; errors?: unknown };
  if (body.errors) throw new Error(`${query}: ${JSON.stringify(body.errors)}`);
  return body.data;
}
// The facts the mix needs, read as any client would: the busiest workflow, its latest execution with logs.
const { workflows } = await ask<{ workflows: { data: Array<{ uuid: string; executionCount: number }> } }>(
  '{ workflows(input: { page: { size: 100 } }) { data { uuid executionCount } } }',
);
const busiest = [...workflows.data].sort((a, b) => b.executionCount - a.executionCount)[0]!;
const { workflowExecutions } = await ask<{
  workflowExecutions: { count: number; data: Array<{ uuid: string; startedAt: string }> };
}>(
  `{ workflowExecutions(input: { workflowUuid: "${busiest.uuid}", status: [SUCCESS], page: { size: 50 } }) { count data { uuid startedAt } } }`,
);
let executionUuid = workflowExecutions.data[0]!.uuid;
for (const candidate of workflowExecutions.data) {
  const { workflowExecutionLogs } = await ask<{ workflowExecutionLogs: { data: unknown[] | null } }>(
    `{ workflowExecutionLogs(input: { workflowExecutionUUID: "${candidate.uuid}" }) { data { message } } }`,
  );
  if ((workflowExecutionLogs.data?.length ?? 0) > 0) {
    executionUuid = candidate.uuid;
    break;
  }
}
const { all } = await ask<{ all: { count: number } }>('{ all: workflowExecutions(input: {}) { count } }');
const facts: DatasetFacts = {
  now: new Date(),
  workflowUuid: busiest.uuid,
  executionUuid,
  totalExecutions: all.count,
};
console.log(`${all.count} executions; measuring each query for ${seconds} s at ${concurrency} connections`);

const rows: Array<{ query: string; http: Summary }> = [];
for (const q of [TRIVIAL, ...MIX]) {
  const variables = q.variables(facts);
  const request = () => client.post(q.query, variables);
  await closedLoop(request, { concurrency, seconds: 1 });
  const http = await closedLoop(request, { concurrency, seconds });
  rows.push({ query: q.name, http });
  console.log(
    `${q.name}: ${http.rps.toFixed(0)} req/s p50 ${http.p50.toFixed(1)} ms p99 ${http.p99.toFixed(1)} ms errors ${http.errors}`,
  );
}
client.close();
const peakRssMb = server.peakRssMb;
await server.stop();
rmSync(dataDir, { recursive: true, force: true });

const f1 = (n: number) => n.toFixed(1);
const markdown = [
  `Measured ${new Date().toISOString()}: \`npm start\`'s demo on the embedded database (PGlite), ${all.count.toLocaleString('en-US')} executions, live traffic on, ${concurrency} connections. Command: \`${command}\`.`,
  '',
  `| query | req/s | p50 ms | p99 ms (target ${TARGET_P99_MS}) | errors |`,
  '|---|---:|---:|---:|---:|',
  ...rows.map(
    (r) =>
      `| ${r.query} | ${r.http.rps.toFixed(0)} | ${f1(r.http.p50)} | ${f1(r.http.p99)}${r.http.p99 <= TARGET_P99_MS ? '' : ' ✗'} | ${r.http.errors} |`,
  ),
  '',
  `Peak server resident memory: ${peakRssMb.toFixed(0)} MB.`,
  '',
].join('\n');
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(
  new URL('./results/demo.json', import.meta.url),
  `${JSON.stringify({ command, date: new Date().toISOString(), executions: all.count, concurrency, peakRssMb, rows }, null, 2)}\n`,
);
writeFileSync(new URL('./results/demo.md', import.meta.url), markdown);
console.log(`\n${markdown}`);
