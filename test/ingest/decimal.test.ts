// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fromUnits, toUnits } from '../../src/lib/decimal.js';

describe('exact decimal sums of credits', () => {
  it('adds decimals without binary rounding', () => {
    assert.equal(fromUnits(toUnits('0.1') + toUnits('0.2')), '0.3');
    assert.equal(
      fromUnits(toUnits('1234567890123456789012345678901.000000000000000001') + toUnits('1')),
      '1234567890123456789012345678902.000000000000000001',
    );
  });

  it('keeps signs for deltas that take a replaced state away', () => {
    assert.equal(fromUnits(toUnits('2.5') - toUnits('3.75')), '-1.25');
    assert.equal(fromUnits(-toUnits('0.000000000000000001')), '-0.000000000000000001');
    assert.equal(fromUnits(toUnits(null)), '0');
  });
});
