/**
 * How query cost grows with the dataset: compares two full runs of `npm run bench` kept under
 * bench/results/ (executions-<N>.json), query by query, at each concurrency level both measured.
 *
 *   node --import tsx bench/compare.ts [--small 1000000] [--large 10000000]
 *
 * The ratio is large-dataset latency over small-dataset latency (p50, and req/s the other way);
 * the aggregate target is at most 1.5. Writes bench/results/compare.md.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { BenchResult } from './report.js';

const { values: args } = parseArgs({
  options: {
    small: { type: 'string', default: '1000000' },
    large: { type: 'string', default: '10000000' },
  },
});
const read = (executions: string): BenchResult =>
  JSON.parse(readFileSync(new URL(`./results/executions-${executions}.json`, import.meta.url), 'utf8'));
const small = read(args.small!);
const large = read(args.large!);
const key = (r: { query: string; concurrency: number }) => `${r.query}|${r.concurrency}`;
const smallRows = new Map(small.rows.map((r) => [key(r), r]));
const f1 = (n: number) => n.toFixed(1);
const lines = [
  `${large.dataset.executions?.toLocaleString('en-US')} executions (\`${large.command}\`, ${large.date}) against ` +
    `${small.dataset.executions?.toLocaleString('en-US')} (\`${small.command}\`, ${small.date}).`,
  '',
  '| query | conn | p50 ms small | p50 ms large | p50 ratio | req/s small | req/s large | cost ratio (req/s) |',
  '|---|---:|---:|---:|---:|---:|---:|---:|',
];
for (const row of large.rows) {
  const before = smallRows.get(key(row));
  if (!before) continue;
  const p50Ratio = row.http.p50 / before.http.p50;
  const costRatio = before.http.rps / row.http.rps;
  lines.push(
    `| ${row.query} | ${row.concurrency} | ${f1(before.http.p50)} | ${f1(row.http.p50)} | ${p50Ratio.toFixed(2)} | ${before.http.rps.toFixed(0)} | ${row.http.rps.toFixed(0)} | ${costRatio.toFixed(2)}${costRatio > 1.5 ? ' ✗' : ''} |`,
  );
}
const markdown = `${lines.join('\n')}\n`;
writeFileSync(new URL('./results/compare.md', import.meta.url), markdown);
console.log(markdown);
