/**
 * Ingestion throughput: records a second through `POST /ingest` over real HTTP, for execution
 * records, capability events and log lines, on the embedded database (on disk) and on PostgreSQL.
 *
 *   node --import tsx bench/ingest-throughput.ts [--executions N] [--events N] [--logs N] [--db pglite,postgres]
 *
 * PostgreSQL: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres); a
 * scratch database is created and dropped. The server runs as its own process, as deployed, so
 * that making the lines (this process) does not share its event loop. Each dataset is one
 * streamed request (bench/lib/ingest-lines.ts). To compare with an earlier version side by side,
 * use bench/ingest-compare.ts.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { type IngestFigure, measureIngestion } from './lib/ingest-lines.js';

const { values: args } = parseArgs({
  options: {
    executions: { type: 'string', default: '100000' },
    events: { type: 'string', default: '100000' },
    logs: { type: 'string', default: '200000' },
    db: { type: 'string', default: 'pglite,postgres' },
  },
});
const COUNTS = { executions: Number(args.executions), events: Number(args.events), logs: Number(args.logs) };

const results: Array<IngestFigure & { database: string }> = [];
for (const kind of args.db.split(',')) {
  for (const figure of await measureIngestion(kind, COUNTS)) results.push({ database: kind, ...figure });
}
console.log(
  `command: node --import tsx bench/ingest-throughput.ts --executions ${COUNTS.executions} --events ${COUNTS.events} --logs ${COUNTS.logs} --db ${args.db}`,
);
console.log(
  `batch size ${loadConfig({}).limits.ingestBatchSize}, one streamed request per dataset, Node ${process.version}`,
);
for (const r of results) {
  console.log(
    `${r.database.padEnd(9)} ${r.records.padEnd(11)} ${String(r.count).padStart(8)} records  ${Math.round(
      r.perSecond,
    )
      .toString()
      .padStart(7)} records/s`,
  );
}
