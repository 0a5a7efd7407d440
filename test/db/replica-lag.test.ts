// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lagOf, parseLsn } from '../../src/db/replicas/replica-lag.js';

const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1) + seconds * 1000);
const samples = [
  { lsn: parseLsn('0/1000'), at: at(0) },
  { lsn: parseLsn('0/2000'), at: at(1) },
  { lsn: parseLsn('0/3000'), at: at(2) },
];

describe('a replica lag', () => {
  it('reads pg_lsn text as one number, the high half first', () => {
    assert.equal(parseLsn('1/0'), 2n ** 32n);
    assert.ok(parseLsn('1/0') > parseLsn('0/FFFFFFFF'));
  });

  it('is zero when the replica has replayed the newest primary position, however old its last transaction (an idle primary)', () => {
    const lag = lagOf(samples, { lsn: parseLsn('0/3000'), replayedAt: at(-3600), inRecovery: true });
    assert.deepEqual(lag, { ms: 0, completeUpTo: at(2) });
  });

  it('is the time since the newest primary position the replica has reached', () => {
    const lag = lagOf(samples, { lsn: parseLsn('0/1800'), replayedAt: at(-3600), inRecovery: true });
    assert.deepEqual(lag, { ms: 2000, completeUpTo: at(0) });
  });

  it('counts from the last replayed commit when that is newer than any position reached', () => {
    const lag = lagOf(samples, { lsn: parseLsn('0/2800'), replayedAt: at(1.5), inRecovery: true });
    assert.deepEqual(lag, { ms: 500, completeUpTo: at(1.5) });
  });

  it('is unknown (infinite) when nothing proves any moment', () => {
    assert.equal(lagOf(samples, { lsn: parseLsn('0/800'), replayedAt: null, inRecovery: true }).ms, Infinity);
    assert.equal(lagOf([], { lsn: parseLsn('0/800'), replayedAt: at(0), inRecovery: true }).ms, Infinity);
  });
});
