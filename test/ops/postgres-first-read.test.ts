import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TEST_DB } from '../harness/database.js';
import {
  prepareServedDatabase,
  type ServedDatabase,
  type ServeProcess,
  spawnServe,
} from './serve-process.js';

describe('serve on PostgreSQL', { skip: TEST_DB !== 'postgres' }, () => {
  let database: ServedDatabase;
  let serve: ServeProcess;

  before(async () => {
    database = await prepareServedDatabase();
    serve = spawnServe({ ...database.env, WFAPI_DB_POOL_SIZE: '4' });
  });

  after(async () => {
    await serve?.kill();
    await database?.close();
  });

  it('sets up each new connection before its first query, so no query shares a busy client (no DeprecationWarning)', async () => {
    const url = await serve.ready;
    // Concurrent first reads open several pooled connections at once.
    const reads = await Promise.all(
      Array.from({ length: 8 }, () =>
        fetch(`${url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Apikey ${database.tenant.key}` },
          body: JSON.stringify({ query: '{ getOrganization { organizationId } }' }),
        }).then((response) => response.status),
      ),
    );
    assert.deepEqual(reads, Array(8).fill(200));
    // Stopped as an operator would: once it has exited, all it wrote to stderr is in.
    const exit = await serve.kill('SIGTERM');
    assert.equal(exit.code, 0, serve.stderr());
    assert.doesNotMatch(serve.stderr(), /DeprecationWarning|already executing a query/);
  });
});
