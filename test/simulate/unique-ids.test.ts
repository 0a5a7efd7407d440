// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createWorld, organizationProfile, recordsBetween } from '../../src/simulate/index.js';

describe('simulated identities', () => {
  it('gives every execution of a large history its own uuid', () => {
    // With 32 bits of generator state, 300k executions would share about ten uuids (birthday bound).
    const end = Date.parse('2026-06-01T00:00:00Z');
    const world = createWorld({
      seed: 'unique-ids',
      organizationId: organizationProfile('unique-ids').defaultId,
      workflows: 12,
      start: end - 10 * 86_400_000,
      days: 10,
      executions: 300_000,
    });
    const seen = new Set<string>();
    let executions = 0;
    for (const record of recordsBetween(world, Number.NEGATIVE_INFINITY, end, { detail: () => 'none' })) {
      if (record.type !== 'execution') continue;
      executions += 1;
      assert.ok(!seen.has(record.uuid), `execution uuid ${record.uuid} repeated`);
      seen.add(record.uuid);
    }
    assert.ok(executions > 250_000, `${executions} executions generated`);
  });
});
