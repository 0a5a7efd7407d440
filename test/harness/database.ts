import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { openPglite } from '../../src/db/pglite.js';
import { openPostgres } from '../../src/db/postgres.js';

/** Which database the suite runs on: WFAPI_TEST_DB=pglite (default) or postgres (TEST_DATABASE_URL). */
export const TEST_DB = process.env.WFAPI_TEST_DB === 'postgres' ? 'postgres' : 'pglite';
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DEADLOCK_DETECTED = '40P01';

export interface TestDatabase {
  readonly db: Database;
  /** A connection string for a server process on the same data (PostgreSQL only). */
  readonly url: string | undefined;
  /** Empties every table, keeping the schema. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** A fresh database of its own for one test file, migrated unless `migrate` is false. */
export async function openTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  let db: Database;
  let url: string | undefined;
  let drop = async () => {};
  if (TEST_DB === 'postgres') {
    const name = `wfapi_test_${process.pid}_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    url = withDatabase(ADMIN_URL, name);
    db = openPostgres(url, { poolSize: 5, statementTimeoutMs: 30_000 });
    drop = async () => {
      const client = new pg.Client({ connectionString: ADMIN_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    };
  } else {
    db = await openPglite('memory://');
  }
  if (options.migrate !== false) await migrate(db);
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
