/**
 * Where ingestion's time goes, statement by statement, in this checkout and an earlier version
 * side by side: the datasets of bench/ingest-compare.ts (bench/lib/ingest-lines.ts), written by
 * each version's own `ingestBatch` in-process (no HTTP, no NDJSON parsing) in batches of 5,000
 * as the server writes them, every statement of every batch timed. What is not in a statement is
 * the version's own JavaScript (validation aside) and the driver. Rounds alternate which version
 * goes first, each on a fresh database; figures are medians over rounds.
 *
 *   node --import tsx bench/ingest-costs.ts [--ref 7f62f32] [--rounds 3] [--executions N] [--events N] [--logs N] [--db pglite,postgres]
 *
 * Both versions run compiled (dist/): this checkout is built first, the earlier one apart
 * (bench/lib/ref-build.ts).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { eventLines, executionLines, ingestShape, logLines, scratchDatabase } from './lib/ingest-lines.js';
import { buildRef } from './lib/ref-build.js';
import { median } from './lib/stats.js';

const { values: args } = parseArgs({
  options: {
    ref: { type: 'string', default: '7f62f32' },
    rounds: { type: 'string', default: '3' },
    executions: { type: 'string', default: '20000' },
    events: { type: 'string', default: '20000' },
    logs: { type: 'string', default: '40000' },
    db: { type: 'string', default: 'pglite,postgres' },
  },
});
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const BATCH = 5000;

interface Handle {
  query(text: string, params?: readonly unknown[]): Promise<unknown[]>;
  copyIn(table: string, columns: readonly string[], rows: Iterable<unknown>): Promise<void>;
}
interface VersionDb {
  query(text: string, params?: readonly unknown[]): Promise<unknown[]>;
  transaction<T>(fn: (tx: Handle) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
/** The parts of a version this benchmark calls; every version since 7f62f32 has them. */
interface Version {
  openPglite(dir: string): Promise<VersionDb>;
  openPostgres(url: string, options: { poolSize: number; statementTimeoutMs: number }): VersionDb;
  migrate(db: VersionDb): Promise<unknown>;
  ingestBatch(
    db: VersionDb,
    records: unknown[],
    options: { durable: boolean; observers: readonly unknown[] },
  ): Promise<unknown>;
  /** What each batch runs besides storing (versions before the observers ran them inside ingestBatch). */
  INGEST_OBSERVERS?: readonly unknown[];
  makeDurable(db: VersionDb): Promise<void>;
  parseRecord(value: unknown): unknown;
  createOrganization(db: VersionDb, input: { displayName: string }): Promise<{ id: string }>;
}

async function load(dist: string): Promise<Version> {
  const from = (path: string) => import(join(dist, path));
  return {
    ...(await from('db/pglite.js')),
    ...(await from('db/postgres.js')),
    ...(await from('db/migrate.js')),
    ...(await from('ingest/ingest.store.js')),
    ...(await from('ingest/records.js')),
    ...(await from('admin/admin.service.js')),
    ...(await from('app.js')),
  } as Version;
}

/** A statement's label: its kind and the table it writes or first reads. */
function labelOf(text: string): string {
  const sql = text.replace(/\s+/g, ' ').trim().toLowerCase();
  const table = /\b(?:into|update|from|copy)\s+([a-z_]+)/.exec(sql)?.[1] ?? '';
  const verb = sql.startsWith('with')
    ? /\)\s*(select|insert|update|delete)\b/.exec(sql)?.[1]
    : sql.split(' ')[0];
  return `${verb} ${table}`.trim();
}

/** A fresh database for one version: an embedded data directory or a scratch PostgreSQL database. */
async function openScratch(
  version: Version,
  kind: string,
): Promise<{ db: VersionDb; drop(): Promise<void> }> {
  const scratch = await scratchDatabase(kind, ADMIN_URL);
  const db =
    kind === 'pglite'
      ? await version.openPglite(scratch.env.WFAPI_DATA_DIR!)
      : version.openPostgres(scratch.env.DATABASE_URL!, { poolSize: 2, statementTimeoutMs: 600_000 });
  return { db, drop: () => scratch.cleanup() };
}

type Costs = Map<string, Map<string, number>>;

/** One version on a fresh database: per dataset, ms per statement label, plus `total` and `outside statements`. */
async function measure(version: Version, kind: string): Promise<Costs> {
  const scratch = await openScratch(version, kind);
  const costs: Costs = new Map();
  try {
    const { db } = scratch;
    await version.migrate(db);
    let current = new Map<string, number>();
    const timed = async <T>(label: string, run: () => Promise<T>): Promise<T> => {
      const started = performance.now();
      try {
        return await run();
      } finally {
        current.set(label, (current.get(label) ?? 0) + performance.now() - started);
      }
    };
    const transaction = db.transaction.bind(db);
    db.transaction = (fn) =>
      transaction((tx) =>
        fn({
          ...tx,
          query: (text, params) => timed(labelOf(text), () => tx.query(text, params)),
          copyIn: (table, columns, rows) => timed(`copy ${table}`, () => tx.copyIn(table, columns, rows)),
        }),
      );
    const organization = await version.createOrganization(db, { displayName: 'Costs' });
    const shape = ingestShape(organization.id, Number(args.executions));
    const datasets = [
      ['executions', executionLines(shape, Number(args.executions))],
      ['events', eventLines(shape, Number(args.events))],
      ['log lines', logLines(shape, Number(args.logs))],
    ] as const;
    for (const [records, lines] of datasets) {
      const parsed = [...lines].map((line, i) => ({
        line: i + 1,
        record: version.parseRecord(JSON.parse(line)),
      }));
      if (parsed.length === 0) continue;
      current = new Map();
      const started = performance.now();
      for (let i = 0; i < parsed.length; i += BATCH) {
        await version.ingestBatch(db, parsed.slice(i, i + BATCH), {
          durable: false,
          observers: version.INGEST_OBSERVERS ?? [],
        });
      }
      await version.makeDurable(db);
      const total = performance.now() - started;
      const inStatements = [...current.values()].reduce((a, b) => a + b, 0);
      current.set('outside statements', total - inStatements);
      current.set('total', total);
      costs.set(records, current);
    }
    await db.close();
  } finally {
    await scratch.drop();
  }
  return costs;
}

const built = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
if (built.status !== 0) throw new Error('npm run build failed');
const versions = {
  old: await load(join(dirname(dirname(buildRef(args.ref))), 'dist')),
  current: await load(join(ROOT, 'dist')),
};

const lines = [
  `command: node --import tsx bench/ingest-costs.ts --ref ${args.ref} --rounds ${args.rounds} --executions ${args.executions} --events ${args.events} --logs ${args.logs} --db ${args.db}`,
  `Node ${process.version}; in-process ingestBatch, batches of ${BATCH}; ms, medians of ${args.rounds} alternating rounds; old = ${args.ref}`,
];
for (const kind of args.db.split(',')) {
  const rounds: Record<'old' | 'current', Costs[]> = { old: [], current: [] };
  for (let round = 0; round < Number(args.rounds); round++) {
    const order = round % 2 === 0 ? (['old', 'current'] as const) : (['current', 'old'] as const);
    for (const side of order) rounds[side].push(await measure(versions[side], kind));
    process.stderr.write(`${kind}: round ${round + 1} done\n`);
  }
  for (const records of rounds.current[0]!.keys()) {
    const ms = (side: 'old' | 'current', label: string) =>
      median(rounds[side].map((costs) => costs.get(records)?.get(label) ?? 0));
    const labels = new Set(
      [...rounds.old, ...rounds.current].flatMap((c) => [...(c.get(records)?.keys() ?? [])]),
    );
    const rows = [...labels]
      .filter((label) => label !== 'total')
      .map((label) => ({ label, old: ms('old', label), current: ms('current', label) }))
      .filter((row) => row.old >= 5 || row.current >= 5)
      .sort((a, b) => b.current - b.old - (a.current - a.old));
    lines.push(
      '',
      `${kind}, ${records}: total ${Math.round(ms('old', 'total'))} ms old, ${Math.round(ms('current', 'total'))} ms now`,
      '',
      '| statement | old ms | now ms | now - old |',
      '| --- | ---: | ---: | ---: |',
      ...rows.map(
        (r) =>
          `| ${r.label} | ${Math.round(r.old)} | ${Math.round(r.current)} | ${Math.round(r.current - r.old)} |`,
      ),
    );
  }
}
console.log(lines.join('\n'));
writeFileSync(join(ROOT, 'bench/results/ingest-costs.md'), `${lines.join('\n')}\n`);
