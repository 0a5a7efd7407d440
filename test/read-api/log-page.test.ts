import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTenant, execution, ingest, log, type Tenant, workflow } from '../harness/fixtures.js';
import type { TestServer } from '../harness/server.js';
import { useServer, useServerBeside } from '../harness/suite.js';
import { assertOneError } from './graphql-assertions.js';

const PAGE = `query($uuid: String!, $after: String, $size: Int) {
  workflowExecutionLogPage(input: { workflowExecutionUUID: $uuid, after: $after, size: $size }) {
    data { nodeID message timestamp } next
  }
}`;
const LOGS =
  'query($uuid: String!) { workflowExecutionLogs(input: { workflowExecutionUUID: $uuid }) { data { nodeID message timestamp } } }';
const SMALL_BUDGET = 20_000;
const BASE = Date.parse('2026-01-02T00:00:00Z');

type Line = { nodeID: string; message: string; timestamp: string };

/**
 * An execution of `lengths.length` log lines, line i of lengths[i] characters, stored through
 * ingestion five lines a batch; their timestamps repeat and go back in time as they arrive, so
 * the stored order (timestamp, then arrival) is neither arrival nor a single key.
 */
async function executionWithLines(
  db: Parameters<typeof ingest>[0],
  tenant: Tenant,
  lengths: readonly number[],
): Promise<string> {
  const wf = workflow(tenant.organizationId);
  const ex = execution(tenant.organizationId, wf.uuid as string);
  await ingest(db, [wf, ex]);
  for (let start = 0; start < lengths.length; start += 5) {
    const batch = lengths.slice(start, start + 5).map((length, j) => {
      const i = start + j;
      const prefix = `line ${i} `;
      return log(tenant.organizationId, ex.uuid as string, {
        nodeID: `node-${i % 3}`,
        message: prefix + 'x'.repeat(Math.max(0, length - prefix.length)),
        timestamp: new Date(BASE + ((i * 7) % 10) * 1000).toISOString(),
      });
    });
    await ingest(db, batch);
  }
  return ex.uuid as string;
}

/** Every page of the execution, following `next` from the first. */
async function allPages(server: TestServer, key: string, uuid: string, size?: number) {
  const pages: { data: Line[]; next: string | null }[] = [];
  let cursor: string | null = null;
  do {
    const answer = await server.gql(key, PAGE, { uuid, after: cursor, size });
    assert.equal(answer.body.errors, undefined, JSON.stringify(answer.body).slice(0, 300));
    const page = answer.body.data.workflowExecutionLogPage;
    pages.push(page);
    cursor = page.next;
    assert.ok(pages.length <= 100, 'paging ends');
  } while (cursor !== null);
  return pages;
}

describe('workflowExecutionLogPage pages one execution’s log lines within the byte budget', () => {
  const ctx = useServer();
  const beside = useServerBeside(ctx, { limits: { maxAnswerBytes: SMALL_BUDGET } });

  it('returns every line exactly once across pages, in workflowExecutionLogs’ order (timestamp, then arrival)', async () => {
    const t = await createTenant(ctx.db);
    const uuid = await executionWithLines(ctx.db, t, Array(25).fill(40));
    const whole = (await ctx.server.gql(t.key, LOGS, { uuid })).body.data.workflowExecutionLogs
      .data as Line[];
    assert.equal(whole.length, 25);
    const pages = await allPages(ctx.server, t.key, uuid, 7);
    assert.deepEqual(
      pages.map((page) => page.data.length),
      [7, 7, 7, 4],
    );
    assert.deepEqual(
      pages.flatMap((page) => page.data),
      whole,
    );
    // Ties on the timestamp keep their arrival order: lines 0 and 10 share one, 0 arrived first.
    const order = whole.map((line) => Number(line.message.split(' ')[1]));
    assert.ok(order.indexOf(0) < order.indexOf(10) && order.indexOf(10) < order.indexOf(20));
    // The default size (1,000) answers them in one page, the last.
    const one = await allPages(ctx.server, t.key, uuid);
    assert.equal(one.length, 1);
    assert.deepEqual(one[0]!.data, whole);
  });

  it('ends a page early, with its cursor, when its next line would pass the budget, and reads on to the last line', async () => {
    const t = await createTenant(ctx.db);
    const uuid = await executionWithLines(ctx.db, t, Array(30).fill(1_000));
    const refused = await beside.server.gql(t.key, LOGS, { uuid });
    assertOneError(refused, 'BAD_USER_INPUT', /workflowExecutionLogPage/);
    const pages = await allPages(beside.server, t.key, uuid);
    // A line costs its 1,000 characters, its node ID and 64 bytes of JSON: 18 fit in 20,000.
    assert.deepEqual(
      pages.map((page) => page.data.length),
      [18, 12],
    );
    const whole = (await ctx.server.gql(t.key, LOGS, { uuid })).body.data.workflowExecutionLogs.data;
    assert.deepEqual(
      pages.flatMap((page) => page.data),
      whole,
    );
  });

  it('shares the budget with the other fields of the request, refusing a page whose first line no longer fits', async () => {
    const t = await createTenant(ctx.db);
    const uuid = await executionWithLines(ctx.db, t, Array(30).fill(1_000));
    const twice = await beside.server.gql(
      t.key,
      `query($uuid: String!) {
        a: workflowExecutionLogPage(input: { workflowExecutionUUID: $uuid }) { next }
        b: workflowExecutionLogPage(input: { workflowExecutionUUID: $uuid }) { next }
      }`,
      { uuid },
    );
    assert.equal(twice.body.errors?.[0]?.extensions.code, 'BAD_USER_INPUT', JSON.stringify(twice.body));
    assert.match(twice.body.errors[0].message, /ask for this page in a request of its own/);
    // Alone, each page is answered.
    const alone = await beside.server.gql(t.key, PAGE, { uuid });
    assert.equal(alone.body.data.workflowExecutionLogPage.data.length, 18);
  });

  it('answers a line larger than the whole budget alone on its page, and the lines after it on the next', async () => {
    const t = await createTenant(ctx.db);
    const uuid = await executionWithLines(ctx.db, t, [30_000, 500, 500]);
    const pages = await allPages(beside.server, t.key, uuid);
    const whole = (await ctx.server.gql(t.key, LOGS, { uuid })).body.data.workflowExecutionLogs
      .data as Line[];
    const big = whole.findIndex((line) => line.message.length === 30_000);
    assert.deepEqual(
      pages.map((page) => page.data.length),
      big === 0 ? [1, 2] : big === 2 ? [2, 1] : [1, 1, 1],
    );
    assert.deepEqual(
      pages.flatMap((page) => page.data),
      whole,
    );
  });

  it('at the default budget reads an execution of 200 lines of 100,000 characters, which workflowExecutionLogs refuses, in two pages', async () => {
    const t = await createTenant(ctx.db);
    const uuid = await executionWithLines(ctx.db, t, Array(200).fill(100_000));
    const refused = await ctx.server.gql(t.key, LOGS, { uuid });
    assert.equal(refused.body.errors?.[0]?.extensions.code, 'BAD_USER_INPUT');
    const pages = await allPages(ctx.server, t.key, uuid);
    // A line costs 100,000 + 6 + 64 bytes: 167 of them fit in 16 MiB.
    assert.deepEqual(
      pages.map((page) => page.data.length),
      [167, 33],
    );
    const seen = pages.flatMap((page) => page.data.map((line) => Number(line.message.split(' ')[1])));
    assert.deepEqual(
      [...seen].sort((a, b) => a - b),
      Array.from({ length: 200 }, (_, i) => i),
    );
  });

  it('answers null for an unknown, malformed or another organization’s execution, as workflowExecutionLogs', async () => {
    const t = await createTenant(ctx.db);
    const other = await createTenant(ctx.db);
    const foreign = await executionWithLines(ctx.db, other, [10, 10]);
    for (const uuid of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', foreign]) {
      const answer = await ctx.server.gql(t.key, PAGE, { uuid });
      assert.equal(answer.body.errors, undefined, JSON.stringify(answer.body));
      assert.deepEqual(answer.body.data.workflowExecutionLogPage, { data: null, next: null }, uuid);
    }
    const own = await ctx.server.gql(other.key, PAGE, { uuid: foreign });
    assert.equal(own.body.data.workflowExecutionLogPage.data.length, 2);
  });

  it('refuses a size out of 1..1,000 and a cursor it did not give with BAD_USER_INPUT', async () => {
    const t = await createTenant(ctx.db);
    const uuid = await executionWithLines(ctx.db, t, [10, 10, 10]);
    assertOneError(
      await ctx.server.gql(t.key, PAGE, { uuid, size: 0 }),
      'BAD_USER_INPUT',
      'size must be at least 1',
    );
    assertOneError(
      await ctx.server.gql(t.key, PAGE, { uuid, size: 1_001 }),
      'BAD_USER_INPUT',
      'size must be at most 1000',
    );
    const first = await ctx.server.gql(t.key, PAGE, { uuid, size: 1 });
    const next = first.body.data.workflowExecutionLogPage.next as string;
    const bad = 'after must be the next of an earlier workflowExecutionLogPage answer';
    for (const after of [
      'garbage',
      '',
      `${next}x`,
      Buffer.from('1.2.3').toString('base64url'),
      Buffer.from(`${'9'.repeat(19)}.1`).toString('base64url'),
    ]) {
      assertOneError(await ctx.server.gql(t.key, PAGE, { uuid, after }), 'BAD_USER_INPUT', bad);
    }
    const second = await ctx.server.gql(t.key, PAGE, { uuid, after: next, size: 5 });
    assert.equal(second.body.data.workflowExecutionLogPage.data.length, 2);
    assert.equal(second.body.data.workflowExecutionLogPage.next, null);
  });
});
