import { type Config, ConfigError } from '../config.js';
import type { Database } from './database.js';
import { openEmbedded } from './embedded/embedded-database.js';
import { type MigrationSteps, migrate } from './migrate.js';
import { openPostgres } from './postgres.js';
import { addressOf, ReadRouter, type ReplicaOptions } from './replicas/read-router.js';

/** The pool settings of every PostgreSQL connection, the primary's and the replicas'. */
const postgresOptions = (config: Config) => ({
  poolSize: config.dbPoolSize,
  statementTimeoutMs: config.limits.requestTimeoutMs,
  preparedStatements: config.dbPreparedStatements,
});

/**
 * Opens the configured database (PostgreSQL when DATABASE_URL is set, else the embedded one in
 * a worker thread) and applies migrations.
 */
export async function openDatabase(config: Config, steps: MigrationSteps): Promise<Database> {
  if (!config.databaseUrl) return migrated(await openEmbedded(config.dataDir), steps);
  // Migrations run on a connection of their own, without the request time limit that bounds
  // every statement of the pool: rewriting a large table (migration 0014 took 34 s at a million
  // executions) or recounting the rollups outlasts any sensible request.
  await (await migrated(openUnlimited(config.databaseUrl, 'wfapi-migrate'), steps)).close();
  return openPostgres(config.databaseUrl, postgresOptions(config));
}

/**
 * One PostgreSQL connection without the request time limit of the pool's statements, for
 * maintenance that outlasts any request: migrations, rollup index rebuilds.
 */
export const openUnlimited = (url: string, applicationName: string): Database =>
  openPostgres(url, { poolSize: 1, statementTimeoutMs: 0, preparedStatements: false, applicationName });

/**
 * The router of `/graphql` reads over `primary` and the configured replicas (none: every read
 * goes to the primary), its first health check done. Replicas are read-only streaming copies of
 * a PostgreSQL primary: the embedded database cannot have any.
 */
export async function openReadRouter(
  config: Config,
  primary: Database,
  options: Omit<ReplicaOptions, 'maxLagMs'> = {},
): Promise<ReadRouter> {
  if (config.databaseReplicaUrls.length > 0 && primary.kind !== 'postgres') {
    throw new ConfigError(
      'DATABASE_REPLICA_URLS needs a PostgreSQL primary (DATABASE_URL), not the embedded database',
    );
  }
  const replicas = config.databaseReplicaUrls;
  const probe = (url: string) =>
    openPostgres(url, { poolSize: 1, statementTimeoutMs: 2_000, applicationName: 'wfapi-replica-check' });
  const router = new ReadRouter(
    primary,
    replicas.length > 0 && config.databaseUrl ? probe(config.databaseUrl) : undefined,
    config.databaseUrl ? addressOf(config.databaseUrl) : 'embedded',
    replicas.map((url) => ({
      db: openPostgres(url, { ...postgresOptions(config), applicationName: 'wfapi-replica-read' }),
      probe: probe(url),
      address: addressOf(url),
    })),
    { ...options, maxLagMs: config.replicaMaxLagMs },
  );
  await router.start();
  return router;
}

/** `db` with migrations applied (and the steps they ask for); closed if they fail. */
export async function migrated<D extends Database>(db: D, steps: MigrationSteps): Promise<D> {
  try {
    await migrate(db, undefined, steps);
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
  return db;
}
