import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConcurrencyShares } from '../../src/db/concurrency-shares.js';
import type { Database } from '../../src/db/database.js';
import { openTestDatabase, type TestDatabase } from '../harness/database.js';

describe("an organization's share of the database", () => {
  let database: TestDatabase;
  before(async () => {
    database = await openTestDatabase({ migrate: false });
  });
  after(async () => {
    await database.close();
  });

  it("runs one tenant's statements past its share in turn, while another tenant's go straight to the database", async () => {
    const shares = new ConcurrencyShares(1);
    const never = new AbortController().signal;
    const finished: string[] = [];
    let running = 0;
    let mostAtOnce = 0;
    // The busy tenant's database counts its statements in flight.
    const counted: Database = {
      ...database.db,
      query: async <Row>(text: string, params?: readonly unknown[]) => {
        running++;
        mostAtOnce = Math.max(mostAtOnce, running);
        try {
          return await database.db.query<Row>(text, params);
        } finally {
          running--;
        }
      },
    };
    const busy = shares.forTenant(counted, 'busy', never);
    const other = shares.forTenant(database.db, 'other', never);
    const busyWork = [1, 2, 3].map(async (i) => {
      await busy.query('select pg_sleep(0.1)');
      finished.push(`busy ${i}`);
    });
    const otherWork = other.query('select 1').then(() => finished.push('other'));
    await Promise.all([...busyWork, otherWork]);
    assert.equal(mostAtOnce, 1, 'the busy tenant ran more than its share at once');
    assert.ok(
      finished.indexOf('other') < finished.indexOf('busy 2'),
      `the other tenant waited for the busy one's queue: ${finished}`,
    );
  });

  it('drops a statement waiting for its turn once its request is aborted, before the turn comes', async () => {
    const shares = new ConcurrencyShares(1);
    const first = shares.forTenant(database.db, 'busy', new AbortController().signal);
    const hurried = new AbortController();
    const second = shares.forTenant(database.db, 'busy', hurried.signal);
    let firstDone = false;
    const running = first.query('select pg_sleep(0.5)').then(() => {
      firstDone = true;
    });
    const waiting = second.query('select 1');
    hurried.abort();
    await assert.rejects(waiting, { code: '57014' });
    assert.equal(firstDone, false, 'the waiting statement was refused only after the turn came');
    await running;
    // The turn was handed back: the tenant's next statement runs.
    const next = shares.forTenant(database.db, 'busy', new AbortController().signal);
    assert.deepEqual(await next.query('select 1 as one'), [{ one: 1 }]);
  });
});
