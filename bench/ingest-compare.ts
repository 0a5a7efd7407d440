/**
 * Ingestion throughput of this checkout against an earlier version, side by side in one run:
 * rounds alternate which version goes first, each on a fresh database, the same datasets
 * (bench/lib/ingest-lines.ts); the figure is the median of the per-round ratios new / old, so a
 * noisy machine slows both sides alike.
 *
 *   node --import tsx bench/ingest-compare.ts [--ref 7f62f32] [--rounds 3] [--executions N] [--events N] [--logs N] [--db pglite,postgres]
 *
 * The earlier version is built apart (bench/lib/ref-build.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type IngestFigure, measureIngestion } from './lib/ingest-lines.js';
import { buildRef } from './lib/ref-build.js';
import { median } from './lib/stats.js';

const { values: args } = parseArgs({
  options: {
    ref: { type: 'string', default: '7f62f32' },
    rounds: { type: 'string', default: '3' },
    executions: { type: 'string', default: '30000' },
    events: { type: 'string', default: '30000' },
    logs: { type: 'string', default: '60000' },
    db: { type: 'string', default: 'pglite,postgres' },
    // Another port when 4703 is taken (another benchmark on the same machine).
    port: { type: 'string', default: '4703' },
  },
});
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const COUNTS = { executions: Number(args.executions), events: Number(args.events), logs: Number(args.logs) };

const oldCli = buildRef(args.ref);
const rows: Array<{ database: string; records: string; old: number[]; current: number[]; ratios: number[] }> =
  [];
for (const kind of args.db.split(',')) {
  for (let round = 0; round < Number(args.rounds); round++) {
    const order = round % 2 === 0 ? (['old', 'current'] as const) : (['current', 'old'] as const);
    const figures: Record<string, IngestFigure[]> = {};
    for (const side of order) {
      figures[side] = await measureIngestion(kind, COUNTS, {
        port: Number(args.port),
        ...(side === 'old' ? { cli: oldCli } : {}),
      });
    }
    for (const [i, current] of figures.current!.entries()) {
      const old = figures.old![i]!;
      let row = rows.find((r) => r.database === kind && r.records === current.records);
      if (!row) {
        row = { database: kind, records: current.records, old: [], current: [], ratios: [] };
        rows.push(row);
      }
      row.old.push(old.perSecond);
      row.current.push(current.perSecond);
      row.ratios.push(current.perSecond / old.perSecond);
    }
    process.stderr.write(`${kind}: round ${round + 1} done\n`);
  }
}

const command = `node --import tsx bench/ingest-compare.ts --ref ${args.ref} --rounds ${args.rounds} --executions ${COUNTS.executions} --events ${COUNTS.events} --logs ${COUNTS.logs} --db ${args.db}`;
const lines = [
  `command: ${command}`,
  `Node ${process.version}; medians of ${args.rounds} alternating rounds; ratio = this checkout / ${args.ref}`,
  '',
  '| database | records | count | old records/s | new records/s | new / old |',
  '| --- | --- | ---: | ---: | ---: | ---: |',
  ...rows.map(
    (r) =>
      `| ${r.database} | ${r.records} | ${COUNTS[r.records === 'log lines' ? 'logs' : (r.records as 'executions' | 'events')]} | ${Math.round(median(r.old))} | ${Math.round(median(r.current))} | ${median(r.ratios).toFixed(2)} |`,
  ),
];
console.log(lines.join('\n'));
writeFileSync(join(ROOT, 'bench/results/ingest-compare.md'), `${lines.join('\n')}\n`);
