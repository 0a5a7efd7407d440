// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WriteSlots } from '../../src/ingest/write-slots.js';

describe('WriteSlots', () => {
  it('runs at most its number of writes at once, in arrival order, and frees a slot when a write fails', async () => {
    const slots = new WriteSlots(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const write = (i: number) =>
      slots.run(async () => {
        started.push(i);
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 10));
        running--;
        if (i === 1) throw new Error('boom');
        return i;
      });
    const results = await Promise.allSettled([0, 1, 2, 3, 4, 5].map(write));
    assert.equal(most, 2);
    assert.deepEqual(started, [0, 1, 2, 3, 4, 5]);
    assert.equal(results[1]!.status, 'rejected');
    assert.deepEqual(
      results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<number>).value),
      [0, 2, 3, 4, 5],
    );
  });

  it('always allows one write, whatever it is given', async () => {
    assert.equal(await new WriteSlots(0).run(async () => 'ok'), 'ok');
  });
});
