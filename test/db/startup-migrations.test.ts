/**
 * The server migrates PostgreSQL when it starts, and a migration may rewrite a large table or
 * recount every rollup (minutes at millions of executions). Those statements run on a connection
 * of their own, without the request time limit that bounds every statement of the pool: with it,
 * a `wfapi serve` of a large database could never upgrade.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { loadMigrations } from '../../src/db/migrate.js';
import { openDatabase } from '../../src/db/open.js';
import { recountRollups } from '../../src/ingest/recount.js';
import { openTestDatabase, TEST_DB, type TestDatabase } from '../harness/database.js';

const postgres =
  TEST_DB === 'postgres'
    ? {}
    : { skip: 'PostgreSQL only: the embedded database has no statement time limit' };

describe('migrations when the server starts on PostgreSQL', postgres, () => {
  let database: TestDatabase;
  before(async () => {
    database = await openTestDatabase({ migrate: false });
  });
  after(() => database?.close());

  it('apply every migration however short the request time limit, which still bounds the statements of requests', async () => {
    const config = loadConfig({ DATABASE_URL: database.url!, WFAPI_REQUEST_TIMEOUT_MS: '10' });
    const db = await openDatabase(config, { recountRollups });
    try {
      const applied = await db.query<{ version: string }>('select version from schema_migrations order by 1');
      assert.deepEqual(
        applied.map((row) => row.version),
        (await loadMigrations()).map((migration) => migration.version),
      );
      await assert.rejects(db.query('select pg_sleep(0.5)'), /statement timeout/);
    } finally {
      await db.close();
    }
  });
});
