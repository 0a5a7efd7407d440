import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openTestDatabase, type TestDatabase } from '../harness/database.js';
import { createTenant, type Tenant } from '../harness/fixtures.js';
import { startServer, type TestServer } from '../harness/server.js';

describe('health and readiness', () => {
  let database: TestDatabase;
  let server: TestServer;
  let tenant: Tenant;
  before(async () => {
    database = await openTestDatabase();
    server = await startServer(database.db);
    tenant = await createTenant(database.db);
  });
  after(async () => {
    await server?.close();
  });

  it('answers /healthz and /readyz with 200 while the database answers', async () => {
    const health = await fetch(`${server.url}/healthz`);
    assert.equal(health.status, 200);
    const ready = await fetch(`${server.url}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), { status: 'ready' });
  });

  it('answers /readyz and GraphQL with 503 SERVICE_UNAVAILABLE once the database is gone, and /healthz still with 200', async () => {
    await database.close();

    const ready = await fetch(`${server.url}/readyz`, { signal: AbortSignal.timeout(10_000) });
    assert.equal(ready.status, 503);
    const body = await ready.json();
    assert.equal(body.status, 'unavailable');
    assert.equal(body.errors[0].extensions.code, 'SERVICE_UNAVAILABLE');

    const graphql = await server.gql(tenant.key, '{ getOrganization { displayName } }');
    assert.equal(graphql.status, 503);
    assert.equal(graphql.body.errors[0].extensions.code, 'SERVICE_UNAVAILABLE');
    assert.doesNotMatch(JSON.stringify(graphql.body), /pool|terminated|closed|select|ECONN/i);

    const health = await fetch(`${server.url}/healthz`);
    assert.equal(health.status, 200);
  });
});
