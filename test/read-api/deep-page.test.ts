import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SEEK_MIN_OFFSET, seekStartedAt } from '../../src/modules/executions/deep-page.js';
import { openTestDatabase, type TestDatabase } from '../harness/database.js';
import { createTenant, execution, ingest, type Tenant, workflow } from '../harness/fixtures.js';
import { startServer, type TestServer } from '../harness/server.js';

interface Row {
  uuid: string;
  workflowUUID: string;
  status: string;
  startedAt: number;
}

const TOTAL = SEEK_MIN_OFFSET + 1_537;
const START = Date.parse('2026-03-01T22:00:00Z');

/** Deterministic pseudo-random numbers, so a failure can be replayed. */
function lcg(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('deep pages of executions', () => {
  let database: TestDatabase;
  let server: TestServer;
  let tenant: Tenant;
  const rows: Row[] = [];

  before(async () => {
    database = await openTestDatabase();
    server = await startServer(database.db);
    tenant = await createTenant(database.db);
    const workflows = [workflow(tenant.organizationId), workflow(tenant.organizationId)];
    const random = lcg(7);
    const records: Record<string, unknown>[] = [...workflows];
    for (let i = 0; i < TOTAL; i++) {
      // Three days, with many executions sharing one start instant so ties must break by uuid.
      const startedAt = START + Math.floor(random() * 3 * 86_400_000) - (i % 5 === 0 ? START % 60_000 : 0);
      const row: Row = {
        uuid: randomUUID(),
        workflowUUID: workflows[i % 2]!.uuid as string,
        status: random() < 0.2 ? 'FAILURE' : 'SUCCESS',
        startedAt: i % 7 === 0 ? START + 86_400_000 : startedAt,
      };
      rows.push(row);
      records.push(
        execution(tenant.organizationId, row.workflowUUID, {
          uuid: row.uuid,
          status: row.status,
          startedAt: new Date(row.startedAt).toISOString(),
        }),
      );
    }
    for (let i = 0; i < records.length; i += 2_000) await ingest(database.db, records.slice(i, i + 2_000));
  });

  after(async () => {
    await server.close();
    await database.close();
  });

  const reference = (filter: (row: Row) => boolean, newestFirst: boolean) =>
    rows
      .filter(filter)
      .sort((a, b) => {
        const byTime = a.startedAt - b.startedAt || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0);
        return newestFirst ? -byTime : byTime;
      })
      .map((row) => row.uuid);

  const page = async (input: Record<string, unknown>) => {
    const response = await server.gql(
      tenant.key,
      'query($input: WorkflowExecutionsInput!) { workflowExecutions(input: $input) { data { uuid } } }',
      { input },
    );
    assert.equal(response.status, 200, JSON.stringify(response.body));
    return response.body.data.workflowExecutions.data.map((e: { uuid: string }) => e.uuid);
  };

  it('answers a page past the seek threshold with exactly the rows an offset scan gives, newest first', async () => {
    const expected = reference(() => true, true);
    for (const number of [Math.floor(SEEK_MIN_OFFSET / 100), Math.floor(SEEK_MIN_OFFSET / 100) + 7]) {
      assert.deepEqual(
        await page({ page: { number, size: 100 } }),
        expected.slice(number * 100, number * 100 + 100),
      );
    }
  });

  it('answers the same rows as an offset scan oldest first, with the last page short', async () => {
    const expected = reference(() => true, false);
    const last = Math.floor((TOTAL - 1) / 100);
    assert.deepEqual(
      await page({ page: { number: 52, size: 100 }, orderBy: { field: 'STARTED_AT', order: 'ASC' } }),
      expected.slice(5200, 5300),
    );
    const tail = await page({
      page: { number: last, size: 100 },
      orderBy: { field: 'STARTED_AT', order: 'ASC' },
    });
    assert.deepEqual(tail, expected.slice(last * 100));
    assert.ok(tail.length < 100);
  });

  it('keeps filters on workflow, status and unaligned time bounds while seeking', async () => {
    const from = START + 3 * 3_600_000 + 17_123;
    const to = START + 2 * 86_400_000 + 11 * 60_000 + 1;
    const filter = (row: Row) => row.status === 'SUCCESS' && row.startedAt >= from && row.startedAt <= to;
    const expected = reference(filter, true);
    assert.ok(expected.length > SEEK_MIN_OFFSET - 2_000, 'the filter leaves enough rows to page deep');
    const size = 50;
    const number = Math.floor((expected.length - 60) / size);
    assert.deepEqual(
      await page({
        status: ['SUCCESS'],
        from: new Date(from).toISOString(),
        to: new Date(to).toISOString(),
        page: { number, size },
      }),
      expected.slice(number * size, number * size + size),
    );
  });

  it('keeps time bounds that fall on day boundaries, where the rollups alone count what is skipped', async () => {
    const from = Date.parse('2026-03-02T00:00:00Z');
    const to = Date.parse('2026-03-05T00:00:00Z') - 1;
    const filter = (row: Row) => row.startedAt >= from && row.startedAt <= to;
    const expected = reference(filter, true);
    assert.ok(expected.length > SEEK_MIN_OFFSET + 100, `only ${expected.length} rows in the window`);
    const number = Math.floor(SEEK_MIN_OFFSET / 100) + 3;
    const window = { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
    assert.deepEqual(
      await page({ ...window, page: { number, size: 100 } }),
      expected.slice(number * 100, number * 100 + 100),
    );
  });

  it('seeks to within one five-minute bucket of the offset instead of scanning', async () => {
    const seek = await seekStartedAt(database.db, tenant.organizationId, {}, 6_000, true);
    assert.ok(seek, 'a seek is found');
    const skipped = rows.filter((row) => row.startedAt >= seek.boundary).length;
    assert.equal(skipped + seek.offset, 6_000);
    assert.ok(seek.offset < 600, `remaining offset ${seek.offset} stays within a bucket or two`);
  });

  it('answers an empty page past the end', async () => {
    assert.deepEqual(await page({ page: { number: 1_000, size: 100 } }), []);
  });
});
