import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Database, Transaction } from './database.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
/** Any constant: serialises concurrent migrators (several instances starting at once). */
const MIGRATION_LOCK = 727_001;

export interface Migration {
  readonly version: string;
  /** SQL statements, or (for a data migration written in TypeScript) a function run in the transaction. */
  readonly sql?: string;
  readonly up?: (tx: Transaction) => Promise<void>;
}

const NAME = /^(\d{4}_[a-z0-9_]+)\.(sql|js|ts)$/;

/**
 * Versioned migrations, applied in order, each exactly once: `NNNN_name.sql` (statements) or
 * `NNNN_name.ts` (compiled to .js; exports `up(tx)`, for data migrations that reuse the code).
 */
export async function loadMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = readdirSync(dir)
    .filter((name) => NAME.test(name) && !name.endsWith('.d.ts'))
    .sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const [, version, kind] = NAME.exec(file)!;
    if (kind === 'sql') migrations.push({ version: version!, sql: readFileSync(dir + file, 'utf8') });
    else {
      const module = (await import(pathToFileURL(dir + file).href)) as { up: Migration['up'] };
      migrations.push({ version: version!, up: module.up });
    }
  }
  return migrations;
}

/**
 * Work a migration asks for but cannot freeze, because it is today's code and not the schema of
 * its version: recounting every rollup from the raw rows (migration 0003). The composition root
 * passes it (src/app.ts and the commands that open a database); a database that needs it cannot
 * be migrated without it.
 */
export interface MigrationSteps {
  readonly recountRollups?: (tx: Transaction) => Promise<void>;
}

/**
 * Applies the migrations not yet applied, then the recount any of them asked for, in one
 * transaction; returns the versions applied.
 */
export async function migrate(
  db: Database,
  list?: readonly Migration[],
  steps: MigrationSteps = {},
): Promise<string[]> {
  const migrations = list ?? (await loadMigrations());
  return db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.query(
      'create table if not exists schema_migrations (version text primary key, applied_at timestamptz not null default now())',
    );
    const done = new Set(
      (await tx.query<{ version: string }>('select version from schema_migrations')).map((r) => r.version),
    );
    const applied: string[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      for (const statement of splitStatements(migration.sql ?? '')) await tx.query(statement);
      await migration.up?.(tx);
      await tx.query('insert into schema_migrations (version) values ($1)', [migration.version]);
      applied.push(migration.version);
    }
    await recountIfAsked(tx, steps);
    return applied;
  });
}

/** Runs the rollup recount a migration asked for (a row in rollup_recounts), once. */
async function recountIfAsked(tx: Transaction, steps: MigrationSteps): Promise<void> {
  const [table] = await tx.query<{ exists: boolean }>(
    "select to_regclass('rollup_recounts') is not null as exists",
  );
  if (!table?.exists) return;
  const asked = await tx.query<{ requested_by: string }>('select requested_by from rollup_recounts');
  if (asked.length === 0) return;
  if (!steps.recountRollups) {
    throw new Error(
      `migration ${asked.map((row) => row.requested_by).join(', ')} needs the rollups recounted, which this caller of migrate() cannot do: open the database with \`wfapi serve\``,
    );
  }
  await steps.recountRollups(tx);
  await tx.query('delete from rollup_recounts');
}

/**
 * Splits a migration on `;` at line ends, outside dollar-quoted bodies (functions), and drops
 * comment lines.
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let current: string[] = [];
  let quoted = false;
  for (const line of sql.split('\n')) {
    if (!quoted && /^\s*--/.test(line)) continue;
    current.push(line);
    if ((line.match(/\$\$/g) ?? []).length % 2 === 1) quoted = !quoted;
    if (!quoted && /;\s*$/.test(line)) {
      statements.push(current.join('\n').replace(/;\s*$/, '').trim());
      current = [];
    }
  }
  statements.push(current.join('\n').trim());
  return statements.filter((statement) => statement.length > 0);
}
