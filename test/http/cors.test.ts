// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTenant } from '../harness/fixtures.js';
import { startServer } from '../harness/server.js';
import { useServer } from '../harness/suite.js';

describe('CORS on /graphql', () => {
  const ctx = useServer();

  it('answers a browser preflight without a key, allowing the Authorization header', async () => {
    const response = await fetch(`${ctx.server.url}/graphql`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://dashboard.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    assert.equal(response.status, 204);
    assert.equal(response.headers.get('access-control-allow-origin'), '*');
    assert.match(response.headers.get('access-control-allow-headers') ?? '', /authorization/);
    assert.match(response.headers.get('access-control-allow-methods') ?? '', /POST/);
    assert.equal(response.headers.get('access-control-allow-credentials'), null);
  });

  it('exposes Retry-After, RateLimit and the request id to browser code on answers', async () => {
    const tenant = await createTenant(ctx.db);
    const answer = await ctx.server.gql(tenant.key, '{ __typename }', undefined, {
      origin: 'https://dashboard.example',
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('access-control-allow-origin'), '*');
    assert.match(
      answer.headers.get('access-control-expose-headers') ?? '',
      /retry-after.*ratelimit.*x-request-id/,
    );
  });

  it('allows only the configured origins when a list is given', async () => {
    const tenant = await createTenant(ctx.db);
    const narrow = await startServer(ctx.db, { corsOrigins: ['https://ok.example'] });
    try {
      const allowed = await narrow.gql(tenant.key, '{ __typename }', undefined, {
        origin: 'https://ok.example',
      });
      assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://ok.example');
      assert.equal(allowed.headers.get('vary'), 'origin');
      const other = await narrow.gql(tenant.key, '{ __typename }', undefined, {
        origin: 'https://evil.example',
      });
      assert.equal(other.headers.get('access-control-allow-origin'), null);
    } finally {
      await narrow.close();
    }
  });
});
