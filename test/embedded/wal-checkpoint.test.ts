import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type EmbeddedDatabase, openEmbedded } from '../../src/db/embedded/embedded-database.js';
import { TEST_DB } from '../harness/database.js';

const MB = 1024 * 1024;

/** Bytes of the write-ahead log segments in a data directory. */
function walBytes(dataDir: string): number {
  const wal = join(dataDir, 'pg_wal');
  return readdirSync(wal)
    .filter((name) => /^[0-9A-F]{24}$/.test(name))
    .reduce((sum, name) => sum + statSync(join(wal, name)).size, 0);
}

describe('the embedded database keeps its write-ahead log small', { skip: TEST_DB !== 'pglite' }, () => {
  let dir: string;
  let db: EmbeddedDatabase;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wfapi-wal-'));
    db = await openEmbedded(join(dir, 'data'), { walCheckpointBytes: 16 * MB });
    await db.query('create table filler (id int, line text)');
  });
  after(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('checkpoints as it writes, so 200 MB of log leave less than 130 MB in pg_wal', async () => {
    let written = 0;
    let batch = 0;
    while (written < 200 * MB) {
      const [before] = await db.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn');
      // Some 16 MB of log per statement: 40,000 rows of 330 characters.
      await db.query(
        `insert into filler select g, repeat(md5(g::text), 10) from generate_series($1::int, $1::int + 39999) g`,
        [batch * 40_000],
      );
      const [grown] = await db.query<{ bytes: string }>(
        'select (pg_current_wal_lsn() - $1::pg_lsn)::text as bytes',
        [before!.lsn],
      );
      written += Number(grown!.bytes);
      batch++;
    }
    const left = walBytes(join(dir, 'data'));
    assert.ok(
      left < 130 * MB,
      `pg_wal holds ${(left / MB).toFixed(0)} MB after ${(written / MB).toFixed(0)} MB of log`,
    );
  });
});
