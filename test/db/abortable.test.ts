import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Database, eitherAborted } from '../../src/db/database.js';
import { openEmbedded } from '../../src/db/embedded/embedded-database.js';
import { openTestDatabase, TEST_DB } from '../harness/database.js';

describe('a database made abortable by two watches (a request within a request)', () => {
  // The embedded database as the server runs it (in its worker thread, where statements can be
  // cancelled), not the tests' in-process PGlite, which cannot interrupt a statement.
  let database: { db: Database; close(): Promise<void> };
  before(async () => {
    if (TEST_DB === 'postgres') {
      database = await openTestDatabase({ migrate: false });
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), 'wfapi-abortable-'));
    const db = await openEmbedded(join(dir, 'data'));
    database = {
      db,
      async close() {
        await db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
  after(async () => {
    await database.close();
  });

  it('answers while neither watch has aborted', async () => {
    const db = database.db.abortable(new AbortController().signal).abortable(new AbortController().signal);
    assert.deepEqual(await db.query<{ one: number }>('select 1 as one'), [{ one: 1 }]);
  });

  for (const which of ['outer', 'inner'] as const) {
    it(`refuses statements and transactions with 57014 once the ${which} watch aborts`, async () => {
      const outer = new AbortController();
      const inner = new AbortController();
      const db = database.db.abortable(outer.signal).abortable(inner.signal);
      (which === 'outer' ? outer : inner).abort();
      await assert.rejects(db.query('select 1'), { code: '57014' });
      await assert.rejects(
        db.transaction(async () => undefined),
        { code: '57014' },
      );
    });
  }
});

describe('eitherAborted', () => {
  it('is aborted once either watch is, and calls a listener once even when both abort', () => {
    const a = new AbortController();
    const b = new AbortController();
    const watch = eitherAborted(a.signal, b.signal);
    let calls = 0;
    watch.addEventListener('abort', () => calls++, { once: true });
    assert.equal(watch.aborted, false);
    b.abort();
    assert.equal(watch.aborted, true);
    a.abort();
    assert.equal(calls, 1);
  });

  it('never calls a listener removed before the abort', () => {
    const a = new AbortController();
    const watch = eitherAborted(a.signal, new AbortController().signal);
    let calls = 0;
    const listener = () => calls++;
    watch.addEventListener('abort', listener, { once: true });
    watch.removeEventListener('abort', listener);
    a.abort();
    assert.equal(calls, 0);
  });
});
