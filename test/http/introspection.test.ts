// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildClientSchema, getIntrospectionQuery, type IntrospectionQuery } from 'graphql';
import { EXTENDED } from '../harness/contract-schema.js';
import { createTenant } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { apikey, errorCode, postGraphql } from './http-client.js';

describe('introspection', () => {
  const ctx = useServer();

  it('answers the standard introspection query (as GraphiQL and codegen send it) to an authenticated caller', async () => {
    const tenant = await createTenant(ctx.db);
    const answer = await postGraphql(ctx.server.url, apikey(tenant.key), {
      query: getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, inputValueDeprecation: true }),
    });
    assert.equal(answer.status, 200, answer.text.slice(0, 300));
    assert.equal(answer.body.errors, undefined);
    const schema = buildClientSchema(answer.body.data as IntrospectionQuery);
    assert.deepEqual(
      Object.keys(schema.getQueryType()!.getFields()).sort(),
      Object.keys(EXTENDED.queries).sort(),
    );
    assert.equal(schema.getMutationType() ?? null, null, '/graphql is read-only');
    assert.equal(schema.getSubscriptionType() ?? null, null);
  });

  it('answers __type for a named type', async () => {
    const tenant = await createTenant(ctx.db);
    const answer = await postGraphql(ctx.server.url, apikey(tenant.key), {
      query: '{ __type(name: "Page") { inputFields { name defaultValue } } }',
    });
    assert.deepEqual(answer.body.data.__type.inputFields, [
      { name: 'number', defaultValue: '0' },
      { name: 'size', defaultValue: '10' },
    ]);
  });

  it('refuses introspection without a valid key', async () => {
    for (const authorization of [undefined, 'Apikey wfk_nope']) {
      const answer = await postGraphql(ctx.server.url, authorization, { query: getIntrospectionQuery() });
      assert.equal(answer.status, 401);
      assert.equal(errorCode(answer), 'UNAUTHENTICATED');
      assert.ok(!('data' in answer.body));
    }
  });

  it('refuses introspection that nests list fields to fan out, although the depth limit skips introspection', async () => {
    const tenant = await createTenant(ctx.db);
    const answer = await postGraphql(ctx.server.url, apikey(tenant.key), {
      query: '{ __schema { types { fields { type { fields { type { fields { type { name } } } } } } } } }',
    });
    assert.equal(errorCode(answer), 'GRAPHQL_VALIDATION_FAILED');
    assert.match(answer.body.errors[0].message, /Maximum introspection depth exceeded/);
  });
});
