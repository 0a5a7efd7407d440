// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setDeployAccess } from '../../src/admin/admin.service.js';
import {
  AuthenticationError,
  Client,
  NotFoundError,
  PermissionError,
  ValidationError,
  WfapiError,
} from '../../src/client/index.js';
import { seedDataset } from '../harness/dataset.js';
import { createTenant, execution, ingest, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';

describe('the SDK against a real server', () => {
  const ctx = useServer();
  const clientFor = (apiKey: string) => new Client({ url: ctx.server.url, apiKey, retries: 0 });

  it('sends any document with request(): aliases and several root fields in one answer', async () => {
    const t = await createTenant(ctx.db);
    const data = await seedDataset(ctx.db, t.organizationId, { executions: 6 });
    const [a, b] = data.workflows.map((w) => w.uuid as string);
    const answer = await clientFor(t.key).request<{
      first: { data: { uuid: string } };
      second: { data: { uuid: string } };
      getOrganization: { organizationId: string };
    }>(
      `query($a: String!, $b: String!, $from: Time!) {
        first: workflow(input: {uuid: $a, from: $from}) { data { uuid } }
        second: workflow(input: {uuid: $b, from: $from}) { data { uuid } }
        getOrganization { organizationId }
      }`,
      { a, b, from: '2026-01-01T00:00:00Z' },
    );
    assert.deepEqual(answer, {
      first: { data: { uuid: a } },
      second: { data: { uuid: b } },
      getOrganization: { organizationId: t.organizationId },
    });
    await assert.rejects(clientFor(t.key).request('{ nope }'), ValidationError);
  });

  it('answers each query with the whole result, typed and exactly as sent', async () => {
    const t = await createTenant(ctx.db);
    const data = await seedDataset(ctx.db, t.organizationId, { executions: 12, detailed: 4 });
    const client = clientFor(t.key);
    const account = await client.getAccountDetails();
    assert.equal(account?.memberId, t.memberId);
    assert.equal((await client.getOrganization())?.organizationId, t.organizationId);

    const page = await client.workflows({ page: { size: 2 } });
    assert.equal(page.count, 3);
    assert.equal(page.data.length, 2);
    assert.deepEqual(Object.keys(page.data[0]!.executionCountByStatus), ['success', 'failure']);

    const wfUuid = data.workflows[0]!.uuid as string;
    const one = await client.workflow({ uuid: wfUuid, from: new Date('2026-01-01T00:00:00Z') });
    assert.equal(one.data.uuid, wfUuid);
    assert.equal(one.data.executionCount, 4);

    const deployments = await client.workflowDeployments({ workflowUUID: wfUuid });
    assert.deepEqual(
      deployments.data.map((d) => d.status),
      ['ACTIVE', 'FAILED'],
    );
    assert.equal(
      (await client.workflowDeployment({ uuid: deployments.data[0]!.uuid })).data.uuid,
      deployments.data[0]!.uuid,
    );

    const execUuid = data.executions[3]!.uuid as string;
    const exec = await client.workflowExecution({ uuid: execUuid });
    assert.equal(exec.data?.status, 'FAILURE');
    assert.deepEqual(exec.data?.errors, [{ error: 'http fetch returned 502', count: 2 }]);
    const logs = await client.workflowExecutionLogs({ workflowExecutionUUID: execUuid });
    assert.deepEqual(
      logs.data?.map((l) => l.nodeID),
      ['node-a', 'node-b', 'node-c'],
    );
    const events = await client.workflowExecutionEvents({
      workflowExecutionUUID: execUuid,
      capabilityID: 'http-fetch@2.1.0',
    });
    assert.deepEqual(events.data?.[0]?.errors, [{ error: 'upstream 502', count: 2 }]);

    const activity = await client.workflowActivity({
      from: '2026-03-01T00:00:00Z',
      to: new Date('2026-03-01T01:59:59Z'),
    });
    const rows = activity.data ?? [];
    assert.equal(
      rows.reduce((n, r) => n + r.successCount + r.failureCount, 0),
      data.executions.filter((e) => e.status !== 'IN_PROGRESS').length,
    );
  });

  it('keeps CreditAmount an exact decimal string', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const exact = '12345678901234567890.123456789012345678';
    const rec = execution(t.organizationId, wf.uuid as string, { creditUsed: exact });
    await ingest(ctx.db, [wf, rec]);
    const client = clientFor(t.key);
    const { data } = await client.workflowExecution({ uuid: rec.uuid as string });
    assert.equal(data?.creditUsed, exact);
    const all = await client.workflows();
    assert.equal(all.data[0]?.creditUsed, exact);
  });

  it('iterates every execution across many pages, in order and without repeats', async () => {
    const t = await createTenant(ctx.db);
    const data = await seedDataset(ctx.db, t.organizationId, { executions: 230, detailed: 0 });
    const client = clientFor(t.key);
    const seen: string[] = [];
    for await (const e of client.paginate.workflowExecutions({
      orderBy: { field: 'STARTED_AT', order: 'ASC' },
      page: { size: 7 },
    })) {
      seen.push(e.uuid);
    }
    assert.deepEqual(
      seen,
      data.executions.map((e) => e.uuid),
    );
    const pages: number[] = [];
    for await (const page of client.paginate.workflowExecutions({ status: ['FAILURE'] }).pages()) {
      pages.push(page.data.length);
      assert.equal(page.count, 46);
    }
    assert.deepEqual(pages, [46]);
    const defaultSize = await client.paginate.workflowExecutions().toArray();
    assert.equal(defaultSize.length, 230);
    assert.equal(new Set(defaultSize.map((e) => e.uuid)).size, 230);
  });

  it('iterates workflows and deployments from the page the caller names', async () => {
    const t = await createTenant(ctx.db);
    const data = await seedDataset(ctx.db, t.organizationId, { workflows: 5, executions: 0 });
    const client = clientFor(t.key);
    const names = [];
    for await (const w of client.paginate.workflows({
      orderBy: { field: 'NAME', order: 'ASC' },
      page: { number: 1, size: 2 },
    })) {
      names.push(w.name);
    }
    assert.deepEqual(names, ['delta-oracle', 'epsilon-bridge', 'gamma-report']);
    const deployments = await client.paginate
      .workflowDeployments({ workflowUUID: data.workflows[2]!.uuid as string, page: { size: 1 } })
      .toArray();
    assert.deepEqual(
      deployments.map((d) => d.status),
      ['ACTIVE', 'FAILED'],
    );
  });

  it('throws AuthenticationError for an unknown key, from the 401 and its code', async () => {
    const client = clientFor('wfk_not-a-real-key');
    const error = await client.getOrganization().catch((e: unknown) => e);
    assert.ok(error instanceof AuthenticationError, String(error));
    assert.equal(error.status, 401);
    assert.equal(error.code, 'UNAUTHENTICATED');
    assert.equal(error.retryable, false);
    assert.ok(error.requestId);
  });

  it('throws PermissionError for a key whose member lost deploy access', async () => {
    const t = await createTenant(ctx.db);
    await setDeployAccess(ctx.db, { memberId: t.memberId, approved: false });
    const error = await clientFor(t.key)
      .workflows()
      .catch((e: unknown) => e);
    assert.ok(error instanceof PermissionError, String(error));
    assert.equal(error.status, 403);
    assert.match(error.message, /deploy access/);
  });

  it('throws ValidationError with the server message for an argument out of bounds', async () => {
    const t = await createTenant(ctx.db);
    const error = await clientFor(t.key)
      .workflowExecutions({ page: { size: 101 } })
      .catch((e: unknown) => e);
    assert.ok(error instanceof ValidationError, String(error));
    assert.equal(error.code, 'BAD_USER_INPUT');
    assert.match(error.message, /page.size must be at most 100/);
    const badTime = await clientFor(t.key)
      .workflowExecutions({ from: 'yesterday' })
      .catch((e: unknown) => e);
    assert.ok(badTime instanceof ValidationError, String(badTime));
  });

  it('throws NotFoundError for an unknown workflow, and answers null for an unknown execution', async () => {
    const t = await createTenant(ctx.db);
    const client = clientFor(t.key);
    const error = await client
      .workflow({ uuid: '00000000-0000-4000-8000-000000000000', from: '2026-01-01T00:00:00Z' })
      .catch((e: unknown) => e);
    assert.ok(error instanceof NotFoundError, String(error));
    assert.equal(error.message, 'workflow not found');
    const missing = await client.workflowExecution({ uuid: '00000000-0000-4000-8000-000000000000' });
    assert.equal(missing.data, null);
  });

  it('throws NotFoundError with the route when the URL has no GraphQL endpoint', async () => {
    const t = await createTenant(ctx.db);
    const client = new Client({ url: `${ctx.server.url}/nowhere`, apiKey: t.key, retries: 0 });
    const error = await client.workflows().catch((e: unknown) => e);
    assert.ok(error instanceof NotFoundError, String(error));
    assert.equal(error.status, 404);
    assert.ok(error instanceof WfapiError);
  });
});
