import { readFileSync } from 'node:fs';
import type { Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { openPglite } from '../../src/db/pglite.js';
import { openPostgres } from '../../src/db/postgres.js';
import { ADMIN_URL, adminQuery, dropDatabase, scratchName, withDatabase } from './template.js';

/** Which database the suite runs on: WFAPI_TEST_DB=pglite (default) or postgres (TEST_DATABASE_URL). */
export const TEST_DB = process.env.WFAPI_TEST_DB === 'postgres' ? 'postgres' : 'pglite';
/** The run's migrated template (test/harness/template.ts), when scripts/test.mjs made one. */
const TEMPLATE = process.env.WFAPI_TEST_TEMPLATE || undefined;
const DEADLOCK_DETECTED = '40P01';
const OBJECT_IN_USE = '55006';

export interface TestDatabase {
  readonly db: Database;
  /** A connection string for a server process on the same data (PostgreSQL only). */
  readonly url: string | undefined;
  /** Empties every table, keeping the schema. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/**
 * An embedded database at `dataDir` (a directory, or `memory://`), migrated: started from the
 * run's template image when there is one, else migrated here.
 */
export async function openMigratedPglite(dataDir: string): Promise<Database> {
  if (TEMPLATE !== undefined && TEST_DB === 'pglite') {
    return openPglite(dataDir, new Blob([readFileSync(TEMPLATE)]));
  }
  const db = await openPglite(dataDir);
  await migrate(db);
  return db;
}

/** Creates database `name` as a copy of the template, retrying while another copy holds it. */
async function createFromTemplate(name: string, template: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await adminQuery(`create database ${name} template ${template}`);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== OBJECT_IN_USE || attempt === 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

/**
 * A fresh database of its own for one test file, migrated unless `migrate` is false: a copy of the
 * run's template when there is one, else migrated here.
 */
export async function openTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const migrated = options.migrate !== false;
  let db: Database;
  let url: string | undefined;
  let drop = async () => {};
  if (TEST_DB === 'postgres') {
    const name = scratchName('wfapi_test');
    if (migrated && TEMPLATE !== undefined) await createFromTemplate(name, TEMPLATE);
    else await adminQuery(`create database ${name}`);
    url = withDatabase(ADMIN_URL, name);
    db = openPostgres(url, { poolSize: 5, statementTimeoutMs: 30_000 });
    drop = () => dropDatabase(name);
    if (migrated && TEMPLATE === undefined) await migrate(db);
  } else {
    db = migrated ? await openMigratedPglite('memory://') : await openPglite('memory://');
  }
  return {
    db,
    url,
    async reset() {
      const tables = await db.query<{ tablename: string }>(
        `select tablename from pg_tables where schemaname = 'public' and tablename <> 'schema_migrations'`,
      );
      const truncate = `truncate ${tables.map((t) => `"${t.tablename}"`).join(', ')} restart identity cascade`;
      // The server's background work (alert evaluation, deliveries, rollup refresh) may still hold a
      // table this statement locks and then want one it has locked already. PostgreSQL then aborts
      // one side with a deadlock; when it picks the truncate, take the locks again.
      for (let attempt = 1; ; attempt++) {
        try {
          await db.query(truncate);
          return;
        } catch (error) {
          if ((error as { code?: string }).code !== DEADLOCK_DETECTED || attempt === 5) throw error;
        }
      }
    },
    async close() {
      // The scratch database is dropped even when closing the pool fails.
      try {
        await db.close();
      } finally {
        await drop();
      }
    },
  };
}
