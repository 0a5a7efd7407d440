/**
 * How query cost grows with the dataset, measured side by side in one run: two datasets (each
 * loaded once, as `npm run bench` loads it, and reused), a server on each, and the query mix run
 * against the two in alternation, query by query, at each concurrency level, for `--rounds`
 * rounds (the side that goes first alternates). Each figure is the median over the rounds, so
 * the shared machine's drift falls on both datasets alike instead of on one run.
 *
 *   node --import tsx bench/growth.ts [--small 1000000] [--large 10000000] [--concurrency 1,16]
 *                                     [--seconds 3] [--rounds 3] [--warmup 1] [--port 4740]
 *                                     [--only <regexp>] [--edges 1]
 *
 * The cost ratio is the small dataset's requests a second over the large one's (above 1: the
 * large one is slower); the aggregate target is at most 1.5. Writes bench/results/growth.{json,md}
 * (growth-partial.{json,md} when `--only` picks some of the queries).
 *
 * With `--ref <commit>` it compares versions instead, the same way: that commit (built apart, see
 * lib/ref-build.ts) and this checkout, each with its own server on the `--small` dataset; the
 * ratio is then the commit's requests a second over this checkout's (below 1: this checkout is
 * faster). Writes bench/results/versions(-partial).{json,md}.
 *
 * `--edges N` (default 1) moves each request's "now" back by 0, 1/N, ... (N-1)/N of a minute in
 * turn, so that a window's partial edges fall at N evenly spaced places of their minute: with one
 * place, an edge's cost is measured at one point of its range only (the dataset's "now").
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { closedLoop } from './lib/closed-loop.js';
import { commandLine } from './lib/command-line.js';
import { type DatasetInfo, ensureDataset } from './lib/dataset.js';
import { GraphqlHttpClient } from './lib/http-client.js';
import { buildRef } from './lib/ref-build.js';
import { ServerProcess } from './lib/server-process.js';
import { medianSummary, type Summary } from './lib/stats.js';
import { benchServerEnv, warmUp } from './lib/warm-up.js';
import { FULL_MIX, requestVariables, TRIVIAL } from './queries.js';

const { values: args } = parseArgs({
  options: {
    small: { type: 'string', default: '1000000' },
    large: { type: 'string', default: '10000000' },
    concurrency: { type: 'string', default: '1,16' },
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1' },
    'pg-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    port: { type: 'string', default: '4740' },
    /** Only the queries whose name matches this regular expression (the trivial one always runs). */
    only: { type: 'string' },
    /** Compare this commit with the checkout on the small dataset instead of two datasets. */
    ref: { type: 'string' },
    /** Places in the minute where the windows' edges fall, in turn (see above). */
    edges: { type: 'string', default: '1' },
  },
});
const command = commandLine('node --import tsx bench/growth.ts');
const levels = args.concurrency!.split(',').map(Number);
const seconds = Number(args.seconds);
const rounds = Number(args.rounds);
const warmup = Number(args.warmup);
const port = Number(args.port);
const only = args.only === undefined ? undefined : new RegExp(args.only, 'i');
const edges = Number(args.edges);
if (!Number.isInteger(edges) || edges < 1 || edges > 60) throw new Error('--edges takes 1 to 60');
const mix = [TRIVIAL, ...FULL_MIX.filter((q) => !only || only.test(q.name))];
console.log(`# ${command}`);

interface Side {
  readonly name: 'small' | 'large';
  readonly dataset: DatasetInfo;
  readonly server: ServerProcess;
}
const refCli = args.ref === undefined ? undefined : buildRef(args.ref);
/** What each side is called in the table: the datasets' sizes, or the commit and this checkout. */
const label = { small: args.ref ?? 'small', large: args.ref === undefined ? 'large' : 'now' };
const sides: Side[] = [];
for (const [index, name] of (['small', 'large'] as const).entries()) {
  // Each dataset's loader (if it must be loaded) listens on the server's port plus one.
  const dataset =
    refCli !== undefined && index === 1
      ? sides[0]!.dataset
      : await ensureDataset({
          adminUrl: args['pg-url']!,
          executions: Number(args[name]),
          port: port + 2 * index + 1,
        });
  const cli = index === 0 ? refCli : undefined;
  const server = await ServerProcess.start(benchServerEnv(dataset.databaseUrl), port + 2 * index, {
    cli,
    clockStart: dataset.facts.now,
  });
  console.log(`${label[name]}: ${dataset.facts.totalExecutions} executions at ${server.url}`);
  sides.push({ name, dataset, server });
}
for (const side of sides) {
  await warmUp(side.server.url, side.dataset.key, side.dataset.facts, mix, warmup);
}

interface Row {
  query: string;
  concurrency: number;
  p99TargetMs: number;
  small: Summary;
  large: Summary;
  costRatio: number;
}

const rows: Row[] = [];
for (const concurrency of levels) {
  const clients = sides.map((side) => new GraphqlHttpClient(side.server.url, side.dataset.key, concurrency));
  for (const q of mix) {
    const runs: Record<Side['name'], Summary[]> = { small: [], large: [] };
    const once = async (i: number, length: number) => {
      const facts = sides[i]!.dataset.facts;
      const variables = Array.from({ length: edges }, (_, k) =>
        requestVariables(q, {
          ...facts,
          now: new Date(facts.now.getTime() - Math.round((k * 60_000) / edges)),
        }),
      );
      let next = 0;
      return closedLoop(() => clients[i]!.post(q.query, variables[next++ % edges]!()), {
        concurrency,
        seconds: length,
      });
    };
    for (let i = 0; i < sides.length; i++) await once(i, warmup);
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const i of order) runs[sides[i]!.name].push(await once(i, seconds));
    }
    const small = medianSummary(runs.small);
    const large = medianSummary(runs.large);
    const row = {
      query: q.name,
      concurrency,
      p99TargetMs: q.p99TargetMs,
      small,
      large,
      costRatio: small.rps / large.rps,
    };
    rows.push(row);
    console.log(
      `c=${concurrency} ${q.name}: ${small.rps.toFixed(0)} vs ${large.rps.toFixed(0)} req/s (cost ratio ${row.costRatio.toFixed(2)}),` +
        ` p99 ${small.p99.toFixed(1)} vs ${large.p99.toFixed(1)} ms`,
    );
  }
  for (const client of clients) client.close();
}
const peakRssMb = Object.fromEntries(sides.map((side) => [side.name, Math.round(side.server.peakRssMb)]));
for (const side of sides) await side.server.stop();

const f1 = (n: number) => n.toFixed(1);
const sizes = sides.map((side) => side.dataset.facts.totalExecutions.toLocaleString('en-US'));
const compared =
  refCli === undefined
    ? `${sizes[1]} executions against ${sizes[0]}`
    : `this checkout against ${args.ref} on ${sizes[0]} executions`;
const ratioName = refCli === undefined ? 'cost ratio' : `ratio ${args.ref} / now`;
const { small: s, large: l } = label;
const markdown = [
  `Measured ${new Date().toISOString()}: ${compared}, side by side, ` +
    `median of ${rounds} alternating rounds of ${seconds} s` +
    `${edges > 1 ? `, the windows' edges at ${edges} places of their minute in turn` : ''}. Command: \`${command}\`.`,
  '',
  `| query | conn | req/s ${s} | req/s ${l} | ${ratioName} | p50 ms ${s} | p50 ms ${l} | p99 ms ${s} | p99 ms ${l} | p99 target | errors |`,
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map(
    (r) =>
      `| ${r.query} | ${r.concurrency} | ${r.small.rps.toFixed(0)} | ${r.large.rps.toFixed(0)} | ${r.costRatio.toFixed(2)}${r.costRatio > 1.5 ? ' ✗' : ''}` +
      ` | ${f1(r.small.p50)} | ${f1(r.large.p50)} | ${f1(r.small.p99)} | ${f1(r.large.p99)}${r.large.p99 > r.p99TargetMs ? ' ✗' : ''}` +
      ` | ${r.p99TargetMs} | ${r.small.errors + r.large.errors} |`,
  ),
  '',
  `Peak server resident memory: ${peakRssMb.small} MB (${s}), ${peakRssMb.large} MB (${l}).`,
  '',
].join('\n');
const result = {
  command,
  date: new Date().toISOString(),
  ...(args.ref === undefined ? {} : { ref: args.ref }),
  datasets: Object.fromEntries(sides.map((side) => [side.name, side.dataset.facts.totalExecutions])),
  rounds,
  seconds,
  peakRssMb,
  rows,
};
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
const name = `${refCli === undefined ? 'growth' : 'versions'}${only ? '-partial' : ''}`;
writeFileSync(new URL(`./results/${name}.json`, import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
writeFileSync(new URL(`./results/${name}.md`, import.meta.url), markdown);
console.log(`\n${markdown}`);
