import type { Config } from '../config.js';
import type { Database } from './database.js';
import { migrate } from './migrate.js';
import { openPglite } from './pglite.js';
import { openPostgres } from './postgres.js';

/** Opens the configured database (PostgreSQL when DATABASE_URL is set) and applies migrations. */
export async function openDatabase(config: Config): Promise<Database> {
  const db = config.databaseUrl
    ? openPostgres(config.databaseUrl, {
        poolSize: config.dbPoolSize,
        statementTimeoutMs: config.limits.requestTimeoutMs,
        preparedStatements: config.dbPreparedStatements,
      })
    : await openPglite(config.dataDir);
  try {
    await migrate(db);
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
  return db;
}
