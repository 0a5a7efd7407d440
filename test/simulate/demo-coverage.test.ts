// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addInterval, missingFrom, newestFirst, splitAt } from '../../src/cli/commands/demo/coverage.js';
import { planLoad } from '../../src/cli/commands/demo/loader.js';
import { DAY, smallWorld, UNTIL } from './world-fixture.js';

describe('demo data coverage', () => {
  it('merges loaded windows that touch or overlap, and ignores empty ones', () => {
    let set = addInterval([], [10, 20]);
    set = addInterval(set, [30, 40]);
    set = addInterval(set, [20, 25]);
    set = addInterval(set, [5, 5]);
    assert.deepEqual(set, [
      [10, 25],
      [30, 40],
    ]);
    assert.deepEqual(addInterval(set, [24, 31]), [[10, 40]]);
  });

  it('finds exactly the missing parts of a range', () => {
    const set = [
      [10, 20],
      [30, 40],
    ] as const;
    assert.deepEqual(missingFrom(set, [0, 50]), [
      [0, 10],
      [20, 30],
      [40, 50],
    ]);
    assert.deepEqual(missingFrom(set, [12, 18]), []);
    assert.deepEqual(missingFrom([], [1, 2]), [[1, 2]]);
  });

  it('cuts missing time into windows newest first', () => {
    assert.deepEqual(newestFirst([[0, 25]], 10), [
      [15, 25],
      [5, 15],
      [0, 5],
    ]);
  });

  it('plans the registrations and the last days on a first start, and only the gap later', () => {
    const world = smallWorld({ days: 3 });
    const first = planLoad(world, { loaded: [], days: 3 }, UNTIL);
    assert.equal(first.windows.length, 4, 'three days and the registrations before them');
    assert.equal(first.windows[0]![1], UNTIL);
    assert.equal(first.catalogue.filter((r) => r.type === 'workflow').length, world.workflows.length);
    const loaded = first.windows.reduce(addInterval, []);
    const later = planLoad(world, { loaded, days: 3 }, UNTIL + 3_600_000);
    assert.deepEqual(later.windows, [[UNTIL, UNTIL + 3_600_000]]);
    assert.equal(later.catalogue.filter((r) => r.type === 'workflow').length, 0);
    const longAfter = planLoad(world, { loaded, days: 3 }, UNTIL + 40 * DAY);
    assert.deepEqual(longAfter.windows.at(-1), [UNTIL + 37 * DAY, UNTIL + 38 * DAY]);
  });

  it('cuts the windows at an instant: the newer parts load before the banner, the older in the background', () => {
    const [newer, older] = splitAt(
      [
        [20, 30],
        [10, 20],
        [0, 5],
      ],
      25,
    );
    assert.deepEqual(newer, [[25, 30]]);
    assert.deepEqual(older, [
      [20, 25],
      [10, 20],
      [0, 5],
    ]);
  });
});
