import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTenant, execution, ingest, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';

describe('smoke', () => {
  const ctx = useServer();
  it('answers workflows with aggregates', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId, { name: 'Alpha' });
    await ingest(ctx.db, [
      wf,
      execution(t.organizationId, wf.uuid as string, { creditUsed: '1.25', executedInTee: true }),
      execution(t.organizationId, wf.uuid as string, { status: 'FAILURE', creditUsed: 2 }),
    ]);
    const r = await ctx.server.gql(
      t.key,
      `{ workflows(input: {}) { count data { uuid name status executionCount executionCountByStatus { success failure } creditUsed executedAt hasTeeExecutions hasNonTeeExecutions registeredAt } }
      getAccountDetails { memberId emailAddress memberStatus createdAt } getOrganization { organizationId tenantId displayName }
      workflowExecutions(input: {}) { count data { uuid workflowName status creditUsed startedAt } }
      workflowActivity(input: { from: "2026-01-01T00:00:00Z", to: "2026-01-03T00:00:00Z" }) { data { from to successCount failureCount } } }`,
    );
    console.log(JSON.stringify(r.body, null, 1));
    assert.equal(r.status, 200);
    assert.equal(r.body.data.workflows.data[0].executionCount, 2);
  });
});
