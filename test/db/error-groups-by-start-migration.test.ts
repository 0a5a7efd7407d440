import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { migrate } from '../../src/db/migrate.js';
import { errorGroupOf } from '../../src/rollups/fingerprint.js';
import { openTestDatabase, type TestDatabase } from '../harness/database.js';
import { createTenant, event, execution, ingest, workflow } from '../harness/fixtures.js';
import { startServer } from '../harness/server.js';
import { dataOf } from '../read-api/graphql-assertions.js';

const EXECUTIONS = `query ($input: WorkflowExecutionsInput!) { workflowExecutions(input: $input) { count data { uuid } } }`;
const T0 = Date.parse('2026-05-04T10:00:00Z');
const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('the error rows dated by their execution (0008)', () => {
  let database: TestDatabase;
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database?.close());

  it("dates every stored error row by its execution's start, so a group's executions list as before", async () => {
    const { db } = database;
    const t = await createTenant(db);
    const wf = workflow(t.organizationId);
    const runs = [0, 1, 2, 3].map((i) =>
      execution(t.organizationId, wf.uuid as string, {
        uuid: randomUUID(),
        status: 'FAILURE',
        startedAt: iso(T0 + i * 7 * MINUTE),
        errors: i % 2 === 0 ? [{ error: `nonce ${i} too low`, count: 1 }] : [],
      }),
    );
    // The second run's error is its call's only.
    const call = event(t.organizationId, runs[1]!.uuid as string, {
      capabilityID: 'chain@1',
      status: 'FAILURE',
      startedAt: iso(T0 + 7 * MINUTE + 1000),
      errors: [{ error: 'nonce 12 too low', count: 2 }],
    });
    await ingest(db, [wf, ...runs, call]);
    const input = { errorFingerprint: errorGroupOf('nonce 1 too low').fingerprint, from: iso(T0 - MINUTE) };
    const listed = async () => {
      const server = await startServer(db);
      try {
        const answer = dataOf(await server.gql(t.key, EXECUTIONS, { input })).workflowExecutions;
        return { count: answer.count, uuids: answer.data.map((row: { uuid: string }) => row.uuid) };
      } finally {
        await server.close();
      }
    };
    const expected = { count: 3, uuids: [runs[2]!.uuid, runs[1]!.uuid, runs[0]!.uuid] };
    assert.deepEqual(await listed(), expected);

    // The database as version 7 left it: error rows without a start, indexed by execution.
    await db.transaction(async (tx) => {
      await tx.query('drop index execution_error_groups_by_start');
      await tx.query('alter table execution_error_groups drop column started_at');
      await tx.query(
        'create index execution_error_groups_fingerprint on execution_error_groups (organization_id, fingerprint, execution_uuid)',
      );
      await tx.query(`delete from schema_migrations where version = '0008_error_groups_by_start'`);
    });
    assert.deepEqual(await migrate(db), ['0008_error_groups_by_start']);

    const undated = await db.query<{ n: number }>(
      'select count(*)::int as n from execution_error_groups where started_at is null',
    );
    assert.equal(undated[0]!.n, 0);
    assert.deepEqual(await listed(), expected);
  });
});
