// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTenant, ingest, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { apikey, call, errorCode, GRAPHQL_RESPONSE, postGraphql } from './http-client.js';

const TWO_OPERATIONS = `
  query Names { workflows(input: {}) { data { name } } }
  query Count { workflows(input: {}) { count } }`;

describe('GraphQL-over-HTTP request parameters', () => {
  const ctx = useServer();

  async function tenantWithWorkflow() {
    const tenant = await createTenant(ctx.db);
    await ingest(ctx.db, [workflow(tenant.organizationId, { name: 'Alpha' })]);
    return tenant;
  }

  it('accepts Content-Type application/json with a charset parameter, in any letter case', async () => {
    const tenant = await tenantWithWorkflow();
    for (const contentType of [
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      'Application/JSON',
    ]) {
      const answer = await call(`${ctx.server.url}/graphql`, {
        headers: { 'content-type': contentType, authorization: apikey(tenant.key) },
        body: JSON.stringify({ query: '{ workflows(input: {}) { count } }' }),
      });
      assert.equal(answer.status, 200, contentType);
      assert.equal(answer.body.data.workflows.count, 1);
    }
  });

  it('runs the operation named by operationName when the document holds several', async () => {
    const tenant = await tenantWithWorkflow();
    const count = await postGraphql(ctx.server.url, apikey(tenant.key), {
      query: TWO_OPERATIONS,
      operationName: 'Count',
    });
    assert.deepEqual(count.body.data, { workflows: { count: 1 } });
    const names = await postGraphql(ctx.server.url, apikey(tenant.key), {
      query: TWO_OPERATIONS,
      operationName: 'Names',
    });
    assert.deepEqual(names.body.data, { workflows: { data: [{ name: 'Alpha' }] } });
  });

  it('refuses several operations without operationName, or with an unknown one, as a request error', async () => {
    const tenant = await createTenant(ctx.db);
    const cases: Array<[string | null | undefined, RegExp]> = [
      [undefined, /Must provide operationName/],
      [null, /Must provide operationName/],
      ['Nope', /Unknown operation named "Nope"/],
    ];
    for (const [operationName, message] of cases) {
      const answer = await postGraphql(
        ctx.server.url,
        apikey(tenant.key),
        { query: TWO_OPERATIONS, operationName },
        { accept: GRAPHQL_RESPONSE },
      );
      assert.equal(answer.status, 400);
      assert.equal(errorCode(answer), 'GRAPHQL_VALIDATION_FAILED');
      assert.match(answer.body.errors[0].message, message);
      assert.ok(!('data' in answer.body));
    }
  });

  it('refuses operationName and variables of the wrong JSON type with 400', async () => {
    const tenant = await createTenant(ctx.db);
    for (const payload of [
      { query: '{ __typename }', operationName: 5 },
      { query: '{ __typename }', variables: [1, 2] },
      { query: '{ __typename }', variables: 'text' },
      { query: { kind: 'Document' } },
      { query: '   ' },
    ]) {
      const answer = await postGraphql(ctx.server.url, apikey(tenant.key), payload);
      assert.equal(answer.status, 400, JSON.stringify(payload));
      assert.equal(errorCode(answer), 'BAD_USER_INPUT');
    }
  });

  it('accepts null variables and operationName, and ignores extensions', async () => {
    const tenant = await createTenant(ctx.db);
    const answer = await postGraphql(ctx.server.url, apikey(tenant.key), {
      query: '{ __typename }',
      variables: null,
      operationName: null,
      extensions: { persistedQuery: { version: 1 } },
    });
    // The answer's own extensions (freshness) are not the request's.
    assert.deepEqual(answer.body, { data: { __typename: 'Query' }, extensions: { dataAsOf: null } });
  });

  it('answers GET /graphql?query=... with variables and operationName from the query string', async () => {
    const tenant = await tenantWithWorkflow();
    const params = new URLSearchParams({
      query: 'query Find($search: String) { workflows(input: { search: $search }) { count } }',
      variables: JSON.stringify({ search: 'alp' }),
      operationName: 'Find',
    });
    const answer = await call(`${ctx.server.url}/graphql?${params}`, {
      method: 'GET',
      headers: { authorization: apikey(tenant.key), accept: GRAPHQL_RESPONSE },
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('content-type'), `${GRAPHQL_RESPONSE}; charset=utf-8`);
    assert.deepEqual(answer.body.data, { workflows: { count: 1 } });

    const badVariables = await call(`${ctx.server.url}/graphql?query=%7B__typename%7D&variables=%7Bnope`, {
      method: 'GET',
      headers: { authorization: apikey(tenant.key) },
    });
    assert.equal(badVariables.status, 400);
    assert.match(badVariables.body.errors[0].message, /"variables" must be a JSON object/);
  });

  it('refuses a string holding U+0000 with a clear error, in a literal or in a variable', async () => {
    const tenant = await createTenant(ctx.db);
    const literal = await postGraphql(ctx.server.url, apikey(tenant.key), {
      query: '{ workflows(input: { search: "a\\u0000b" }) { count } }',
    });
    assert.equal(literal.status, 200);
    assert.equal(errorCode(literal), 'GRAPHQL_VALIDATION_FAILED');
    assert.match(literal.body.errors[0].message, /NUL character \(U\+0000\)/);

    const variable = await postGraphql(
      ctx.server.url,
      apikey(tenant.key),
      {
        query:
          'query ($input: WorkflowExecutionEventsInput!) { workflowExecutionEvents(input: $input) { data { status } } }',
        variables: {
          input: { workflowExecutionUUID: '6f1c1a4e-0000-4000-8000-000000000000', status: '\u0000' },
        },
      },
      { accept: GRAPHQL_RESPONSE },
    );
    assert.equal(variable.status, 400);
    assert.equal(errorCode(variable), 'BAD_USER_INPUT');
    assert.match(variable.body.errors[0].message, /Variable "\$input" must not contain the NUL character/);
  });

  it('answers 405 with Allow for another method on /graphql, and 404 for another path', async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const answer = await call(`${ctx.server.url}/graphql`, { method });
      assert.equal(answer.status, 405, method);
      assert.equal(answer.headers.get('allow'), 'GET, POST');
      assert.equal(errorCode(answer), 'BAD_USER_INPUT');
    }
    const elsewhere = await call(`${ctx.server.url}/nope`, { method: 'GET' });
    assert.equal(elsewhere.status, 404);
    assert.equal(errorCode(elsewhere), 'NOT_FOUND');
  });
});
