import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertSchemaEquals, EXTENDED, servedSchema } from '../harness/contract-schema.js';
import { createTenant } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { dataOf } from './graphql-assertions.js';

describe('schema of the public API', () => {
  const ctx = useServer();

  it('serves section 1 of the contract plus exactly the types, root fields and input field section 5 adds, by default', async () => {
    const tenant = await createTenant(ctx.db);
    assertSchemaEquals(await servedSchema(ctx.server, tenant.key), EXTENDED);
  });

  it('defaults a page to number 0 and size 10', async () => {
    const tenant = await createTenant(ctx.db);
    const data = dataOf(
      await ctx.server.gql(tenant.key, '{ __type(name: "Page") { inputFields { name defaultValue } } }'),
    );
    assert.deepEqual(data.__type.inputFields, [
      { name: 'number', defaultValue: '0' },
      { name: 'size', defaultValue: '10' },
    ]);
  });
});
