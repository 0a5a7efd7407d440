/**
 * The rollups' storage beside the executions table's, on a dataset database: `node --import tsx
 * bench/rollup-storage.ts [--executions 1000000] [--rebuild]`. Prints each rollup table's heap and
 * index bytes, the executions' (every partition, indexes included), their ratio, and each rollup
 * index's size against the compact size upkeep estimates for it (src/rollups/rollup-compaction.store.ts).
 * `--rebuild` then runs upkeep's rebuild round (compactRollupIndexes, with its 16 MiB minimum and
 * 1.4 ratio) and prints the same again with its time. Writes results/rollup-storage-<N>.md.
 * The dataset must exist (`npm run bench -- --executions N --load-only`); whether autovacuum ran
 * during its load decides the heap's free space (bench/README.md, "Autovacuum").
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { openUnlimited } from '../src/db/open.js';
import { compactRollupIndexes, indexFill, ROLLUP_TABLES } from '../src/rollups/rollup-compaction.store.js';
import { commandLine } from './lib/command-line.js';
import { withDatabase } from './lib/dataset.js';

const { values: args } = parseArgs({
  options: {
    executions: { type: 'string', default: '1000000' },
    'pg-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    rebuild: { type: 'boolean', default: false },
  },
});

const url = withDatabase(args['pg-url']!, `wfapi_bench_${Number(args.executions)}`);
// One connection without a statement time limit, as the server's upkeep uses for its rebuilds.
const db = openUnlimited(url, 'wfapi-bench-storage');
const mb = (bytes: number) => (bytes / 1e6).toLocaleString('en-US', { maximumFractionDigits: 1 });
const lines: string[] = [`# ${commandLine('node --import tsx bench/rollup-storage.ts')}`, ''];
const say = (line = '') => {
  console.log(line);
  lines.push(line);
};

const settings = await db.query<{ autovacuum: string }>("select current_setting('autovacuum') as autovacuum");
say(`${new Date().toISOString()}, ${url.replace(/\/\/[^@]*@/, '//')}, autovacuum ${settings[0]!.autovacuum}`);

async function report(title: string): Promise<void> {
  const rows = await db.query<{ name: string; heap: number; indexes: number }>(
    `select relname as name, pg_table_size(oid) as heap, pg_indexes_size(oid) as indexes
     from pg_class where relname = any($1::text[]) and relkind = 'r' order by relname`,
    [ROLLUP_TABLES],
  );
  const raw = await db.query<{ bytes: number }>(
    `select sum(pg_total_relation_size(i.inhrelid)) as bytes from pg_inherits i
     where i.inhparent = 'executions'::regclass`,
  );
  const executions = Number(raw[0]!.bytes);
  say('');
  say(`## ${title}`);
  say('');
  say('| table | heap MB | indexes MB | total MB |');
  say('|---|---:|---:|---:|');
  let total = 0;
  for (const row of rows) {
    const [heap, indexes] = [Number(row.heap), Number(row.indexes)];
    total += heap + indexes;
    say(`| ${row.name} | ${mb(heap)} | ${mb(indexes)} | ${mb(heap + indexes)} |`);
  }
  say(`| **all rollups** | | | **${mb(total)}** |`);
  say(`| executions (partitions) | | | ${mb(executions)} |`);
  say('');
  say(`Rollups over executions: **${(total / executions).toFixed(3)}**.`);
  say('');
  say('| index | MB | compact MB (estimated) | ratio |');
  say('|---|---:|---:|---:|');
  for (const fill of await indexFill(db)) {
    say(
      `| ${fill.index} | ${mb(fill.bytes)} | ${mb(fill.compactBytes)} | ${(fill.bytes / fill.compactBytes).toFixed(2)} |`,
    );
  }
}

await report('Now');
if (args.rebuild) {
  const started = performance.now();
  const round = await compactRollupIndexes(db);
  const ms = performance.now() - started;
  say('');
  say(
    `Upkeep's rebuild round: ${ms.toFixed(0)} ms, ${round.rebuilt.map((r) => `${r.index} ${mb(r.bytesBefore)} to ${mb(r.bytesAfter)} MB`).join('; ') || 'nothing rebuilt'}.`,
  );
  await report('After the rebuild round');
}
await db.close();
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(
  new URL(`./results/rollup-storage-${Number(args.executions)}.md`, import.meta.url),
  `${lines.join('\n')}\n`,
);
