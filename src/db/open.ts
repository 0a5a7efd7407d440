import type { Config } from '../config.js';
import type { Database } from './database.js';
import { openEmbedded } from './embedded/embedded-database.js';
import { migrate } from './migrate.js';
import { openPostgres } from './postgres.js';

/**
 * Opens the configured database (PostgreSQL when DATABASE_URL is set, else the embedded one in
 * a worker thread) and applies migrations.
 */
export async function openDatabase(config: Config): Promise<Database> {
  return migrated(
    config.databaseUrl
      ? openPostgres(config.databaseUrl, {
          poolSize: config.dbPoolSize,
          statementTimeoutMs: config.limits.requestTimeoutMs,
          preparedStatements: config.dbPreparedStatements,
        })
      : await openEmbedded(config.dataDir),
  );
}

/** `db` with migrations applied; closed if they fail. */
export async function migrated<D extends Database>(db: D): Promise<D> {
  try {
    await migrate(db);
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
  return db;
}
