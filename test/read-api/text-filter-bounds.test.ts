import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { MAX_SEARCH_LENGTH } from '../../src/modules/shared/paging.js';
import { createTenant } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';

const QUERIES = {
  workflows: 'query($search: String) { workflows(input: { search: $search }) { count } }',
  workflowExecutions:
    'query($search: String) { workflowExecutions(input: { search: $search }) { count data { uuid } } }',
  workflowDeployments: `query($search: String) { workflowDeployments(input: { workflowUUID: "${randomUUID()}", search: $search }) { count } }`,
} as const;
const LOG_SEARCH = 'query($q: String!) { searchExecutionLogs(input: { query: $q }) { count } }';

describe('text filters have a maximum length', () => {
  const ctx = useServer();

  for (const [field, query] of Object.entries(QUERIES)) {
    it(`answers ${field} with a search of ${MAX_SEARCH_LENGTH} characters, and refuses one longer with BAD_USER_INPUT naming the field and the bound`, async () => {
      const t = await createTenant(ctx.db);
      const fits = await ctx.server.gql(t.key, query, { search: 'é'.repeat(MAX_SEARCH_LENGTH) });
      assert.equal(fits.status, 200, JSON.stringify(fits.body));
      assert.equal(fits.body.errors, undefined);
      for (const search of ['x'.repeat(MAX_SEARCH_LENGTH + 1), 'y'.repeat(90_000)]) {
        const long = await ctx.server.gql(t.key, query, { search });
        assert.equal(long.body.errors?.[0]?.extensions?.code, 'BAD_USER_INPUT', JSON.stringify(long.body));
        assert.equal(long.body.errors[0].message, `search must be at most ${MAX_SEARCH_LENGTH} characters`);
      }
    });
  }

  it(`refuses a searchExecutionLogs query longer than ${MAX_SEARCH_LENGTH} characters with BAD_USER_INPUT`, async () => {
    const t = await createTenant(ctx.db);
    const fits = await ctx.server.gql(t.key, LOG_SEARCH, { q: '🙂'.repeat(MAX_SEARCH_LENGTH) });
    assert.equal(fits.body.errors, undefined, JSON.stringify(fits.body));
    const long = await ctx.server.gql(t.key, LOG_SEARCH, { q: 'z'.repeat(90_000) });
    assert.equal(long.body.errors?.[0]?.extensions?.code, 'BAD_USER_INPUT');
    assert.equal(long.body.errors[0].message, `query must be at most ${MAX_SEARCH_LENGTH} characters`);
  });
});
