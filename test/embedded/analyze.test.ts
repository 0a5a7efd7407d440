import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { type EmbeddedDatabase, openEmbedded } from '../../src/db/embedded/embedded-database.js';
import { TEST_DB } from '../harness/database.js';

const MB = 1024 * 1024;

/** The planner's view of `filler`: its row estimate and how many of its columns have statistics. */
async function statisticsOf(db: EmbeddedDatabase) {
  const [row] = await db.query<{ reltuples: number; columns: number }>(
    `select c.reltuples::float8 as reltuples,
       (select count(*)::int from pg_stats s where s.schemaname = 'public' and s.tablename = 'filler') as columns
     from pg_class c where c.relname = 'filler'`,
  );
  return row!;
}

/** Some 16 MB of log: 40,000 rows of 330 characters. */
const FILL = `insert into filler select g, repeat(md5(g::text), 10) from generate_series(1, 40000) g`;

describe('the embedded database keeps the planner statistics autovacuum would', {
  skip: TEST_DB !== 'pglite',
}, () => {
  const dirs: string[] = [];
  const dirOf = () => {
    const dir = mkdtempSync(join(tmpdir(), 'wfapi-analyze-'));
    dirs.push(dir);
    return join(dir, 'data');
  };
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('analyzes once enough has been written, so a loaded table has statistics without being asked', async () => {
    const db = await openEmbedded(dirOf(), { analyzeMinBytes: 4 * MB });
    try {
      await db.query('create table filler (id int, line text)');
      assert.equal((await statisticsOf(db)).columns, 0, 'a new table has no statistics');
      await db.query(FILL);
      const stats = await statisticsOf(db);
      assert.equal(stats.reltuples, 40_000);
      assert.equal(stats.columns, 2);
    } finally {
      await db.close();
    }
  });

  it('analyzes a data directory that holds data without statistics when it is opened', async () => {
    const data = dirOf();
    const first = await openEmbedded(data, { analyzeMinBytes: 1024 * MB });
    await first.query('create table filler (id int, line text)');
    await first.query(FILL);
    await first.query(FILL);
    assert.equal((await statisticsOf(first)).columns, 0, 'under the threshold nothing was analyzed');
    await first.close();

    const again = await openEmbedded(data, { analyzeMinBytes: 4 * MB });
    try {
      const stats = await statisticsOf(again);
      assert.equal(stats.reltuples, 80_000);
      assert.equal(stats.columns, 2);
    } finally {
      await again.close();
    }
  });
});
