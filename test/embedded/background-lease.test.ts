import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type EmbeddedDatabase, openEmbedded } from '../../src/db/embedded/embedded-database.js';
import { TEST_DB } from '../harness/database.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("background work on the embedded database's one connection", { skip: TEST_DB !== 'pglite' }, () => {
  let db: EmbeddedDatabase;
  before(async () => {
    db = await openEmbedded('memory://');
  });
  after(() => db?.close());

  it("leaves the connection to the server's statements while they follow one another", async () => {
    await db.query('select 1');
    let granted: number | undefined;
    // Released at once, so that a statement queued behind it never waits for this test.
    const background = db.lease(undefined, true).then((lease) => {
      granted = performance.now();
      lease.release();
    });
    // A request's statements, a few milliseconds of JavaScript apart, run first.
    let lastOwn = 0;
    for (let i = 0; i < 5; i++) {
      await sleep(5);
      await db.query('select 1');
      lastOwn = performance.now();
      assert.equal(granted, undefined, `background work took the connection between statements (${i})`);
    }
    await background;
    // It waited for the statements to pause for the grace (20 ms), timers' resolution aside.
    assert.ok(
      granted! - lastOwn >= 18,
      `granted ${(granted! - lastOwn).toFixed(1)} ms after the last statement`,
    );
  });

  it('is never starved by a steady stream of statements: it takes a free moment within about a second', async () => {
    await db.query('select 1');
    let granted = false;
    const started = performance.now();
    const background = db.lease(undefined, true).then((lease) => {
      granted = true;
      lease.release();
    });
    while (!granted && performance.now() - started < 5000) {
      await db.query('select 1');
      await sleep(2);
    }
    const waited = performance.now() - started;
    await background;
    assert.ok(granted, 'background work waited 5 s');
    assert.ok(waited >= 900 && waited < 2500, `background work waited ${waited.toFixed(0)} ms`);
  });
});
