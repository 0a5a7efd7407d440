// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { retryDelay } from '../../src/alerts/delivery-worker.js';

/**
 * The webhook retry schedule itself, with the jitter's random factor given: exact, whatever the
 * machine's load (delivery-gives-up.test.ts shows a real worker following it).
 */
describe('the delay before a webhook retry', () => {
  it('is the base for the first retry, doubled per attempt made since', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5].map((attempt) => retryDelay(100, attempt, 0.5)),
      [100, 200, 400, 800, 1600],
    );
  });

  it('is scaled by a jitter factor from half to one and a half times the nominal delay', () => {
    assert.equal(retryDelay(100, 3, 0), 200);
    assert.equal(retryDelay(100, 3, 0.999), 600);
    assert.equal(retryDelay(100, 1, 0.25), 75);
  });

  it('is at most an hour before the jitter, however many attempts were made', () => {
    assert.equal(retryDelay(100, 40, 0.5), 3_600_000);
    assert.equal(retryDelay(60_000, 10, 0), 1_800_000);
  });
});
