import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type EmbeddedDatabase, openEmbedded } from '../../src/db/embedded/embedded-database.js';
import { TEST_DB } from '../harness/database.js';
import { ManualClock } from '../harness/manual-clock.js';

/** The hand-over's clock moves only with the test: a busy machine changes nothing below. */
describe("background work on the embedded database's one connection", { skip: TEST_DB !== 'pglite' }, () => {
  let db: EmbeddedDatabase;
  const clock = new ManualClock();
  before(async () => {
    db = await openEmbedded('memory://', {}, clock);
  });
  after(() => db?.close());

  it("leaves the connection to the server's statements while they follow one another", async () => {
    await db.query('select 1');
    let grantedAt: number | undefined;
    // Released at once, so that a statement queued behind it never waits for this test.
    const background = db.lease(undefined, true).then((lease) => {
      grantedAt = clock.now();
      lease.release();
    });
    // A request's statements, a few milliseconds of JavaScript apart, run first.
    for (let i = 0; i < 5; i++) {
      clock.advance(5);
      await db.query('select 1');
      assert.equal(grantedAt, undefined, `background work took the connection between statements (${i})`);
    }
    const lastOwn = clock.now();
    // It waits for the statements to pause for the grace (20 ms), and takes the connection then.
    clock.advance(19);
    await new Promise(setImmediate);
    assert.equal(grantedAt, undefined, 'granted 19 ms after the last statement');
    clock.advance(1);
    await background;
    assert.equal(grantedAt! - lastOwn, 20);
  });

  it('is never starved by a steady stream of statements: it takes the first free moment after a second', async () => {
    await db.query('select 1');
    let grantedAt: number | undefined;
    const started = clock.now();
    const background = db.lease(undefined, true).then((lease) => {
      grantedAt = clock.now();
      lease.release();
    });
    // A statement every 10 ms, within the grace each time: only the bound lets background work in.
    while (grantedAt === undefined && clock.now() - started < 5000) {
      clock.advance(10);
      await db.query('select 1');
    }
    await background;
    assert.equal(grantedAt! - started, 1000, `background work waited ${grantedAt! - started} ms`);
  });
});
