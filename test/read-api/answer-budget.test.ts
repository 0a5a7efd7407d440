import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTenant, execution, ingest, log, type Tenant, workflow } from '../harness/fixtures.js';
import { useServer, useServerBeside } from '../harness/suite.js';

const LOGS =
  'query($uuid: String!) { workflowExecutionLogs(input: { workflowExecutionUUID: $uuid }) { data { nodeID message timestamp } } }';
const SMALL_BUDGET = 20_000;

/** An execution of `lines` log lines of `length` characters each, stored through ingestion. */
async function executionWithLines(
  db: Parameters<typeof ingest>[0],
  tenant: Tenant,
  lines: number,
  length: number,
): Promise<string> {
  const wf = workflow(tenant.organizationId);
  const ex = execution(tenant.organizationId, wf.uuid as string);
  await ingest(db, [wf, ex]);
  // In batches, so that a large execution never sits whole in one ingestion call.
  for (let start = 0; start < lines; start += 20) {
    const batch = Array.from({ length: Math.min(20, lines - start) }, (_, i) => {
      const prefix = `line ${start + i} `;
      return log(tenant.organizationId, ex.uuid as string, {
        message: prefix + 'x'.repeat(length - prefix.length),
      });
    });
    await ingest(db, batch);
  }
  return ex.uuid as string;
}

describe("a log answer stays within the answer's byte budget", () => {
  const ctx = useServer();
  const beside = useServerBeside(ctx, { limits: { maxAnswerBytes: SMALL_BUDGET } });

  it('answers the lines of an execution within the budget, and refuses one past it with BAD_USER_INPUT naming the budget and the paged way to read them', async () => {
    const t = await createTenant(ctx.db);
    const fits = await executionWithLines(ctx.db, t, 5, 1_000);
    const large = await executionWithLines(ctx.db, t, 30, 1_000);
    const answered = await beside.server.gql(t.key, LOGS, { uuid: fits });
    assert.equal(answered.body.errors, undefined, JSON.stringify(answered.body).slice(0, 300));
    assert.equal(answered.body.data.workflowExecutionLogs.data.length, 5);
    const refused = await beside.server.gql(t.key, LOGS, { uuid: large });
    assert.equal(refused.status, 200);
    assert.equal(refused.body.data, null);
    assert.equal(refused.body.errors[0].extensions.code, 'BAD_USER_INPUT');
    assert.match(
      refused.body.errors[0].message,
      /^workflowExecutionLogs: the execution's 30 lines hold 0\.0 MB of text/,
    );
    assert.match(refused.body.errors[0].message, /its budget is 0\.0 MB/);
    assert.match(refused.body.errors[0].message, /workflowExecutionLogPage .*`wfapi export logs`/);
    // An unknown execution is still data: null without an error.
    const unknown = await beside.server.gql(t.key, LOGS, { uuid: '00000000-0000-4000-8000-000000000000' });
    assert.deepEqual(unknown.body.data, { workflowExecutionLogs: { data: null } });
    assert.equal(unknown.body.errors, undefined);
  });

  it('shares the budget between the fields of one request: aliases cannot add up past it', async () => {
    const t = await createTenant(ctx.db);
    const uuid = await executionWithLines(ctx.db, t, 5, 1_000);
    const aliased = (n: number) =>
      `query($uuid: String!) { ${Array.from(
        { length: n },
        (_, i) =>
          `a${i}: workflowExecutionLogs(input: { workflowExecutionUUID: $uuid }) { data { message } }`,
      ).join(' ')} }`;
    const two = await beside.server.gql(t.key, aliased(2), { uuid });
    assert.equal(two.body.errors, undefined);
    const four = await beside.server.gql(t.key, aliased(4), { uuid });
    assert.equal(
      four.body.errors?.[0]?.extensions.code,
      'BAD_USER_INPUT',
      JSON.stringify(four.body).slice(0, 300),
    );
  });

  it('refuses several requests for a large execution arriving at once, each cleanly, and keeps serving', async () => {
    const t = await createTenant(ctx.db);
    const large = await executionWithLines(ctx.db, t, 40, 1_000);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => beside.server.gql(t.key, LOGS, { uuid: large })),
    );
    for (const answer of answers) assert.equal(answer.body.errors?.[0]?.extensions.code, 'BAD_USER_INPUT');
    const after = await beside.server.gql(t.key, '{ getOrganization { organizationId } }');
    assert.equal(after.status, 200);
  });

  it('refuses a searchExecutionLogs page past the budget with BAD_USER_INPUT asking for a smaller page', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const ex = execution(t.organizationId, wf.uuid as string);
    const now = Date.now();
    await ingest(ctx.db, [
      wf,
      ex,
      ...Array.from({ length: 30 }, (_, i) =>
        log(t.organizationId, ex.uuid as string, {
          message: `needle ${i} ${'y'.repeat(1_000)}`,
          timestamp: new Date(now - 60_000 + i).toISOString(),
        }),
      ),
    ]);
    const search = (size: number) =>
      beside.server.gql(
        t.key,
        `{ searchExecutionLogs(input: { query: "needle", page: { size: ${size} } }) { data { message } } }`,
      );
    assert.equal((await search(10)).body.errors, undefined);
    const refused = await search(30);
    assert.equal(
      refused.body.errors?.[0]?.extensions.code,
      'BAD_USER_INPUT',
      JSON.stringify(refused.body).slice(0, 300),
    );
    assert.match(refused.body.errors[0].message, /ask for a smaller page/);
  });

  it('at the default budget answers an execution of 100 lines of 100,000 characters and refuses one of 200 such lines cleanly', async () => {
    const t = await createTenant(ctx.db);
    const tenMegabytes = await executionWithLines(ctx.db, t, 100, 100_000);
    const twentyMegabytes = await executionWithLines(ctx.db, t, 200, 100_000);
    const answered = await ctx.server.gql(t.key, LOGS, { uuid: tenMegabytes });
    assert.equal(answered.status, 200);
    assert.equal(answered.body.data.workflowExecutionLogs.data.length, 100);
    const refused = await ctx.server.gql(t.key, LOGS, { uuid: twentyMegabytes });
    assert.equal(refused.status, 200);
    assert.equal(refused.body.errors?.[0]?.extensions.code, 'BAD_USER_INPUT');
    assert.match(refused.body.errors[0].message, /200 lines hold 19\.1 MB of text.*its budget is 16\.0 MB/);
  });
});
