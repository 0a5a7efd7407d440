import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTenant } from '../harness/fixtures.js';
import { startServer } from '../harness/server.js';
import { useServer } from '../harness/suite.js';
import { ADMIN_TOKEN, adminGql, CREATE_ORGANIZATION } from './admin-request.js';

describe('POST /admin/graphql: access', () => {
  const ctx = useServer({ adminToken: ADMIN_TOKEN });

  it('answers 404 with the body of any unknown route when no admin token is configured', async () => {
    const server = await startServer(ctx.db, {});
    try {
      const admin = await adminGql(server.url, '{ __typename }');
      const unknown = await fetch(`${server.url}/no/such/route`, { method: 'POST' });
      assert.equal(admin.status, 404);
      assert.equal(unknown.status, 404);
      assert.equal(admin.body.errors[0].extensions.code, 'NOT_FOUND');
      assert.equal(admin.body.errors[0].message, 'No route POST /admin/graphql');
      assert.deepEqual(Object.keys(admin.body), Object.keys(await unknown.json()));
    } finally {
      await server.close();
    }
  });

  it('answers 401 UNAUTHENTICATED with WWW-Authenticate: Bearer and one body for any bad credential', async () => {
    const attempts = [
      null,
      'Bearer wrong-token',
      `Bearer ${ADMIN_TOKEN}x`,
      `Bearer ${ADMIN_TOKEN.slice(0, -1)}`,
      `Basic ${ADMIN_TOKEN}`,
      ADMIN_TOKEN,
      'Bearer',
    ];
    const answers = await Promise.all(
      attempts.map((authorization) => adminGql(ctx.server.url, '{ __typename }', undefined, authorization)),
    );
    for (const answer of answers) {
      assert.equal(answer.status, 401);
      assert.equal(answer.headers.get('www-authenticate'), 'Bearer');
      assert.deepEqual(answer.body, {
        errors: [{ message: 'Invalid or missing admin token', extensions: { code: 'UNAUTHENTICATED' } }],
      });
    }
  });

  it('refuses a wrong token before looking at the body, so nothing is created', async () => {
    const answer = await adminGql(
      ctx.server.url,
      CREATE_ORGANIZATION,
      { input: { displayName: 'Intruder' } },
      'Bearer nope',
    );
    assert.equal(answer.status, 401);
    assert.deepEqual(await ctx.db.query('select id from organizations'), []);
  });

  it('answers 429 to token guessing once the failure budget is spent, yet still admits the right token', async () => {
    const server = await startServer(ctx.db, {
      adminToken: ADMIN_TOKEN,
      authFailureLimit: { burst: 2, perSecond: 1 },
    });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        statuses.push((await adminGql(server.url, '{ __typename }', undefined, 'Bearer guess')).status);
      }
      assert.deepEqual(statuses, [401, 401, 429]);
      const limited = await adminGql(server.url, '{ __typename }', undefined, 'Bearer guess');
      assert.equal(limited.body.errors[0].extensions.code, 'RATE_LIMITED');
      assert.match(limited.headers.get('retry-after') ?? '', /^\d+$/);
      assert.equal((await adminGql(server.url, '{ __typename }')).status, 200);
    } finally {
      await server.close();
    }
  });

  it('accepts the token with any case of the Bearer scheme', async () => {
    const answer = await adminGql(ctx.server.url, '{ __typename }', undefined, `bEaReR ${ADMIN_TOKEN}`);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { data: { __typename: 'Query' } });
  });

  it('is not reachable with an API key, and /graphql is not reachable with the admin token', async () => {
    const admin = await adminGql(ctx.server.url, '{ __typename }', undefined, `Apikey ${ADMIN_TOKEN}`);
    assert.equal(admin.status, 401);
    const publicAnswer = await ctx.server.gql(undefined, '{ __typename }', undefined, {
      authorization: `Bearer ${ADMIN_TOKEN}`,
    });
    assert.equal(publicAnswer.status, 401);
    assert.equal(publicAnswer.headers.get('www-authenticate'), 'Apikey');
  });

  it('marks every answer as not cacheable, since one can carry a new API key', async () => {
    const answer = await adminGql(ctx.server.url, '{ __typename }');
    assert.equal(answer.headers.get('cache-control'), 'no-store');
  });

  it('follows GraphQL over HTTP: 400 for a parse error with application/graphql-response+json', async () => {
    const answer = await adminGql(ctx.server.url, 'mutation {', undefined, `Bearer ${ADMIN_TOKEN}`, {
      accept: 'application/graphql-response+json',
    });
    assert.equal(answer.status, 400);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/graphql-response\+json/);
    assert.equal(answer.body.errors[0].extensions.code, 'GRAPHQL_PARSE_FAILED');
  });

  it('refuses a subscription (the schema has none) and a body that is not JSON', async () => {
    const subscription = await adminGql(ctx.server.url, 'subscription { __typename }');
    assert.equal(subscription.body.errors[0].extensions.code, 'GRAPHQL_VALIDATION_FAILED');
    const notJson = await fetch(`${ctx.server.url}/admin/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
      body: '{"query": ',
    });
    assert.equal(notJson.status, 400);
    assert.equal((await notJson.json()).errors[0].extensions.code, 'BAD_USER_INPUT');
  });

  it('offers the mutations on /admin/graphql only: the public schema stays read-only', async () => {
    const tenant = await createTenant(ctx.db);
    const query = '{ __schema { mutationType { name } } }';
    const publicAnswer = await ctx.server.gql(tenant.key, query);
    assert.deepEqual(publicAnswer.body.data, { __schema: { mutationType: null } });
    const admin = await adminGql(ctx.server.url, query);
    assert.deepEqual(admin.body, { data: { __schema: { mutationType: { name: 'Mutation' } } } });
  });
});
