// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { buildSchema } from 'graphql';
import { DocumentCache } from '../../src/graphql/document-cache.js';
import { executeGraphqlRequest } from '../../src/graphql/execute-request.js';
import { TEST_DOCUMENT_LIMITS } from './document-limits.js';
import { call, errorCode } from './http-client.js';

/**
 * The GraphQL-over-HTTP executor shared by the public and the admin endpoint, on a schema with
 * a mutation (the public schema has none), served over real HTTP.
 */
describe('the shared GraphQL-over-HTTP executor', () => {
  let app: FastifyInstance;
  let url: string;
  before(async () => {
    const schema = buildSchema('type Query { ping: Int } type Mutation { touch: Int }');
    const documents = new DocumentCache(schema, TEST_DOCUMENT_LIMITS);
    const endpoint = {
      documents,
      operations: ['query', 'mutation'] as const,
      timeoutMs: 5000,
      context: async () => ({}),
    };
    app = Fastify();
    app.post('/gql', (request, reply) => executeGraphqlRequest(request, reply, request.body, endpoint));
    app.get('/gql', (request, reply) => executeGraphqlRequest(request, reply, request.query, endpoint));
    url = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => app.close());

  it('runs a mutation sent with POST', async () => {
    const answer = await call(`${url}/gql`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation { touch }' }),
    });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { data: { touch: null } });
  });

  it('refuses a mutation sent with GET with 405 and Allow: POST, and runs a query', async () => {
    const refused = await call(`${url}/gql?query=${encodeURIComponent('mutation { touch }')}`, {
      method: 'GET',
    });
    assert.equal(refused.status, 405);
    assert.equal(refused.headers.get('allow'), 'POST');
    assert.equal(errorCode(refused), 'BAD_USER_INPUT');
    const query = await call(`${url}/gql?query=${encodeURIComponent('{ ping }')}`, { method: 'GET' });
    assert.deepEqual(query.body, { data: { ping: null } });
  });

  it('refuses a POST body that is not application/json with 415', async () => {
    const refused = await call(`${url}/gql`, {
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ query: '{ ping }' }),
    });
    assert.equal(refused.status, 415);
    assert.equal(errorCode(refused), 'BAD_USER_INPUT');
  });
});
