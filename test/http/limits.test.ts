import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTenant, execution, ingest, workflow } from '../harness/fixtures.js';
import { startServer } from '../harness/server.js';
import { useServer } from '../harness/suite.js';
import { apikey, assertNoInternals, call, errorCode, GRAPHQL_RESPONSE, postGraphql } from './http-client.js';

const LIMITS = { maxDepth: 3, maxAliases: 3, maxTokens: 200, maxBodyBytes: 4000 };

describe('request limits', () => {
  const ctx = useServer({ limits: LIMITS });

  async function ask(query: string) {
    const tenant = await createTenant(ctx.db);
    return postGraphql(ctx.server.url, apikey(tenant.key), { query }, { accept: GRAPHQL_RESPONSE });
  }

  it('answers a query at the depth limit and refuses one level deeper', async () => {
    const atLimit = await ask('{ workflows(input: {}) { data { name } } }');
    assert.equal(atLimit.status, 200, atLimit.text);
    const over = await ask('{ workflows(input: {}) { data { executionCountByStatus { success } } } }');
    assert.equal(over.status, 400);
    assert.equal(errorCode(over), 'GRAPHQL_VALIDATION_FAILED');
    assert.equal(over.body.errors[0].message, 'Query depth 4 exceeds the maximum of 3');
  });

  it('counts depth through fragments and inline fragments', async () => {
    const over = await ask(`
      fragment Counts on Workflow { executionCountByStatus { ... on WorkflowExecutionCountByStatus { success } } }
      { workflows(input: {}) { data { ...Counts } } }`);
    assert.equal(over.status, 400);
    assert.match(over.body.errors[0].message, /Query depth 4 exceeds the maximum of 3/);
  });

  it('refuses more aliases than the limit', async () => {
    const atLimit = await ask('{ a: __typename b: __typename c: __typename }');
    assert.equal(atLimit.status, 200);
    const over = await ask('{ a: __typename b: __typename c: __typename d: __typename }');
    assert.equal(over.status, 400);
    assert.equal(errorCode(over), 'GRAPHQL_VALIDATION_FAILED');
    assert.equal(over.body.errors[0].message, 'The document uses more than 3 aliases');
  });

  it('refuses a document with more tokens than the limit before validating it', async () => {
    const over = await ask(`{ ${Array.from({ length: 250 }, () => '__typename').join(' ')} }`);
    assert.equal(over.status, 400);
    assert.equal(errorCode(over), 'GRAPHQL_PARSE_FAILED');
    assert.match(over.body.errors[0].message, /more th\w+ 200 tokens/);
  });

  it('refuses a body over the size limit with 413', async () => {
    const tenant = await createTenant(ctx.db);
    const query = `{ workflows(input: { search: "${'x'.repeat(5000)}" }) { count } }`;
    const answer = await postGraphql(ctx.server.url, apikey(tenant.key), { query });
    assert.equal(answer.status, 413);
    assert.equal(errorCode(answer), 'BAD_USER_INPUT');
    assert.equal(answer.body.errors[0].message, 'The request body is too large');
    const fits = await postGraphql(ctx.server.url, apikey(tenant.key), {
      query: `{ workflows(input: { search: "${'x'.repeat(3000)}" }) { count } }`,
    });
    assert.equal(fits.status, 200);
    // The limit counts bytes, not characters: fewer, two-byte characters are refused.
    const multibyte = await postGraphql(ctx.server.url, apikey(tenant.key), {
      query: `{ workflows(input: { search: "${'é'.repeat(2500)}" }) { count } }`,
    });
    assert.equal(multibyte.status, 413);
  });

  it('answers 503 SERVICE_UNAVAILABLE past the request time limit, and stays healthy afterwards', async () => {
    const tenant = await createTenant(ctx.db);
    const wf = workflow(tenant.organizationId);
    await ingest(ctx.db, [
      wf,
      ...Array.from({ length: 300 }, (_, i) =>
        execution(tenant.organizationId, wf.uuid as string, {
          startedAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
        }),
      ),
    ]);
    // A search cannot use rollups: every alias scans and counts the executions.
    const heavy = `{ ${Array.from(
      { length: 20 },
      (_, i) =>
        `a${i}: workflowExecutions(input: { search: "${i}", page: { size: 100 } }) { count data { uuid workflowName } }`,
    ).join(' ')} }`;
    const hurried = await startServer(ctx.db, { limits: { requestTimeoutMs: 1 } });
    try {
      const answer = await postGraphql(hurried.url, apikey(tenant.key), { query: heavy });
      assert.equal(answer.status, 503, answer.text.slice(0, 300));
      assert.equal(errorCode(answer), 'SERVICE_UNAVAILABLE');
      assert.equal(answer.body.errors[0].message, 'The request exceeded its time limit of 1 ms');
      assertNoInternals(answer);
      // The process stays healthy.
      assert.equal((await call(`${hurried.url}/healthz`, { method: 'GET' })).status, 200);
    } finally {
      await hurried.close();
    }
    // Authentication counts toward the limit too: a key read held up (here by a lock) answers 503
    // in time. Without the credential cache, so that the request must read its key.
    const waiting = await startServer(ctx.db, { limits: { requestTimeoutMs: 300 }, authCacheMs: 0 });
    try {
      await ctx.db.transaction(async (tx) => {
        await tx.query('lock table api_keys in access exclusive mode');
        const started = performance.now();
        const light = await postGraphql(waiting.url, apikey(tenant.key), { query: '{ __typename }' });
        assert.equal(light.status, 503, light.text);
        assert.equal(errorCode(light), 'SERVICE_UNAVAILABLE');
        assert.ok(performance.now() - started < 3_000, 'answered at the time limit, not when the lock went');
      });
      // Once the read can go ahead, the same request succeeds.
      assert.equal(
        (await postGraphql(waiting.url, apikey(tenant.key), { query: '{ __typename }' })).status,
        200,
      );
    } finally {
      await waiting.close();
    }
    // The database was left in a usable state: the same query completes under the normal limit.
    const normal = await postGraphql(ctx.server.url, apikey(tenant.key), {
      query: '{ workflowExecutions(input: { search: "0" }) { count } }',
    });
    assert.equal(normal.status, 200, normal.text);
    assert.ok(normal.body.data.workflowExecutions.count > 0);
  });
});
