import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { createTenant } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { apikey, assertNoInternals, call, errorCode, GRAPHQL_RESPONSE, postGraphql } from './http-client.js';

describe('error answers never show internals', () => {
  const ctx = useServer();

  it('shows no stack, SQL, source location or driver detail for any malformed request', async () => {
    const tenant = await createTenant(ctx.db);
    const key = apikey(tenant.key);
    const url = ctx.server.url;
    const deepList = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const answers = await Promise.all([
      postGraphql(url, key, '{"query": '),
      postGraphql(url, key, '{"query":"{ __typename }","__proto__":{"polluted":true}}'),
      postGraphql(
        url,
        key,
        `{"query":"query ($s: [WorkflowDeploymentStatus!]) { workflows(input: { status: $s }) { count } }","variables":{"s":${deepList}}}`,
      ),
      postGraphql(url, key, { query: '{ workflows(input: { page: { size: -1, number: -5 } }) { count } }' }),
      postGraphql(url, key, {
        query: '{ workflows(input: { orderBy: { field: DROP, order: ASC } }) { count } }',
      }),
      postGraphql(url, key, {
        query: '{ workflowActivity(input: { from: "2026-13-45T99:99:99Z" }) { data { from } } }',
      }),
      postGraphql(url, key, {
        query:
          '{ workflow(input: { uuid: "\'; drop table workflows; --", from: "2026-01-01T00:00:00Z" }) { data { uuid } } }',
      }),
      postGraphql(url, key, {
        query:
          '{ workflowExecutionLogs(input: { workflowExecutionUUID: "not-a-uuid" }) { data { message } } }',
      }),
      postGraphql(url, key, {
        query:
          '{ workflowDeployments(input: { workflowUUID: "x", from: "2026-02-01T00:00:00Z", to: "2026-01-01T00:00:00Z" }) { count } }',
      }),
      postGraphql(url, key, {
        query: `{ workflows(input: { search: "${'%_\\\\'.repeat(50)}" }) { count } }`,
      }),
      postGraphql(url, key, { query: 'subscription { workflows }' }, { accept: GRAPHQL_RESPONSE }),
      postGraphql(url, 'Apikey wfk_', { query: '{ __typename }' }),
      call(`${url}/graphql`, {
        headers: { authorization: key, 'content-type': 'application/xml' },
        body: '<q/>',
      }),
      call(`${url}/graphql?query=%7B&variables=%5B`, { method: 'GET', headers: { authorization: key } }),
      call(`${url}/graphql`, {
        headers: { authorization: key, 'content-type': 'application/json' },
        body: 'x'.repeat(200_000),
      }),
      call(`${url}/does/not/exist`, { method: 'GET' }),
    ]);
    for (const answer of answers) {
      assert.ok(answer.status < 500, `${answer.status}: ${answer.text.slice(0, 200)}`);
      // An unknown execution's logs are `data: null` by contract; everything else is an error.
      if (answer.body?.data === undefined) assert.ok(errorCode(answer), answer.text);
      assertNoInternals(answer);
    }
  });

  it('answers requests that are not valid HTTP, or whose headers are too large, in the error shape', async () => {
    const { port } = new URL(ctx.server.url);
    const exchange = (request: string) =>
      new Promise<string>((resolve, reject) => {
        let received = '';
        const socket = connect(Number(port), '127.0.0.1', () => socket.write(request));
        socket.on('data', (chunk) => {
          received += chunk;
        });
        socket.on('close', () => resolve(received));
        socket.on('error', reject);
      });
    for (const request of [
      'NOT HTTP AT ALL\r\n\r\n',
      'POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
    ]) {
      const answer = await exchange(request);
      assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/);
      assert.ok(
        answer.endsWith(
          JSON.stringify({
            errors: [{ message: 'The request is not valid HTTP', extensions: { code: 'BAD_USER_INPUT' } }],
          }),
        ),
        answer,
      );
    }
    const oversized = await call(`${ctx.server.url}/graphql`, {
      headers: { 'content-type': 'application/json', authorization: `Apikey ${'x'.repeat(20_000)}` },
      body: '{}',
    });
    assert.equal(oversized.status, 431);
    assert.equal(errorCode(oversized), 'BAD_USER_INPUT');
    assert.equal(oversized.body.errors[0].message, 'The request headers are too large');
  });

  it('masks a failing database query as INTERNAL_SERVER_ERROR without SQL or driver detail', async () => {
    const tenant = await createTenant(ctx.db);
    await ctx.db.query('alter table workflows rename to workflows_moved_away');
    try {
      const answer = await postGraphql(ctx.server.url, apikey(tenant.key), {
        query: '{ workflows(input: {}) { count data { uuid } } }',
      });
      assert.equal(answer.status, 200);
      assert.equal(errorCode(answer), 'INTERNAL_SERVER_ERROR');
      assert.equal(answer.body.errors[0].message, 'Unexpected error');
      assert.doesNotMatch(answer.text, /workflows_moved_away|does not exist|42P01/);
      assertNoInternals(answer);
    } finally {
      await ctx.db.query('alter table workflows_moved_away rename to workflows');
    }
  });
});
