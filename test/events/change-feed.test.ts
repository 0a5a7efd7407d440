import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { latestChangeId, pruneChanges, readChanges } from '../../src/events/change-feed.store.js';
import { openTestDatabase, type TestDatabase } from '../harness/database.js';
import { createTenant, execution, ingest, workflow } from '../harness/fixtures.js';

describe('the execution change feed', () => {
  let database: TestDatabase;
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database?.close());

  it('records inserted and changed executions only, and prunes what is older than the cut-off', async () => {
    const { db } = database;
    const tenant = await createTenant(db);
    const org = tenant.organizationId;
    const flow = workflow(org);
    const run = execution(org, flow.uuid as string, { status: 'IN_PROGRESS' });
    await ingest(db, [flow, run]);
    await ingest(db, [run]);
    await ingest(db, [{ ...run, status: 'SUCCESS' }]);
    const rows = await readChanges(db, [{ organizationId: org, after: 0 }], 100);
    assert.equal(rows.length, 2, 'the insert and the change, not the identical re-send');
    assert.equal(await latestChangeId(db, org), rows[1]!.changeId);
    assert.equal(rows[1]!.execution?.status, 'SUCCESS');

    await db.query(`update execution_changes set changed_at = now() - interval '49 hours' where id = $1`, [
      rows[0]!.changeId,
    ]);
    await pruneChanges(db, new Date(Date.now() - 48 * 3600 * 1000));
    const left = await readChanges(db, [{ organizationId: org, after: 0 }], 100);
    assert.deepEqual(
      left.map((row) => row.changeId),
      [rows[1]!.changeId],
    );
    // Nothing old left: pruning again keeps the recent row.
    await pruneChanges(db, new Date(Date.now() - 48 * 3600 * 1000));
    assert.equal((await readChanges(db, [{ organizationId: org, after: 0 }], 100)).length, 1);
    // All of it old: all of it goes.
    await db.query(`update execution_changes set changed_at = now() - interval '49 hours'`);
    await pruneChanges(db, new Date(Date.now() - 48 * 3600 * 1000));
    assert.equal((await readChanges(db, [{ organizationId: org, after: 0 }], 100)).length, 0);
  });
});
