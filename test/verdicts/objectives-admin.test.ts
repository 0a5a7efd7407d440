import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { binOf, LOWER_BOUNDS } from '../../src/rollups/duration-bins.js';
import { ADMIN_TOKEN, adminGql } from '../admin/admin-request.js';
import { createTenant, ingest, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { assertOneError } from '../read-api/graphql-assertions.js';
import {
  CREATE_OBJECTIVE,
  createObjective,
  DELETE_OBJECTIVE,
  OBJECTIVES,
  UPDATE_OBJECTIVE,
} from './objectives-request.js';

describe('service level objectives in the admin API', () => {
  const ctx = useServer({ adminToken: ADMIN_TOKEN });
  const admin = (query: string, variables?: Record<string, unknown>) =>
    adminGql(ctx.server.url, query, variables);

  async function tenantWithWorkflow() {
    const tenant = await createTenant(ctx.db);
    const flow = workflow(tenant.organizationId);
    await ingest(ctx.db, [flow]);
    return { tenant, workflowUuid: flow.uuid as string };
  }

  it('creates an objective with a 28-day period by default, and answers a LATENCY threshold rounded down to a bin bound', async () => {
    const { tenant, workflowUuid } = await tenantWithWorkflow();
    const success = await createObjective(ctx.server.url, {
      organizationId: tenant.organizationId,
      name: '  availability ',
      workflowUUID: workflowUuid,
      indicator: 'SUCCESS',
      target: 0.999,
    });
    assert.deepEqual(
      [
        success.name,
        success.workflowUUID,
        success.indicator,
        success.target,
        success.thresholdMs,
        success.periodDays,
      ],
      ['availability', workflowUuid, 'SUCCESS', 0.999, null, 28],
    );
    const latency = await createObjective(ctx.server.url, {
      organizationId: tenant.organizationId,
      name: 'latency',
      indicator: 'LATENCY',
      target: 0.5,
      thresholdMs: 2071.9,
      periodDays: 90,
    });
    assert.equal(latency.thresholdMs, LOWER_BOUNDS[binOf(2071)]);
    assert.ok(latency.thresholdMs <= 2071.9 && latency.thresholdMs > 2000);
    assert.equal(latency.workflowUUID, null);
    const list = await admin(OBJECTIVES, { input: { organizationId: tenant.organizationId } });
    assert.deepEqual(
      list.body.data.serviceLevelObjectives.map((o: { name: string }) => o.name),
      ['availability', 'latency'],
    );
  });

  it('refuses each invalid field with BAD_USER_INPUT naming it', async () => {
    const { tenant, workflowUuid } = await tenantWithWorkflow();
    const other = await tenantWithWorkflow();
    const base = { organizationId: tenant.organizationId, name: 'x', indicator: 'SUCCESS', target: 0.99 };
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ target: 0.49 }, /target must be between 0.5 and 0.99999/],
      [{ target: 0.999991 }, /target/],
      [{ target: 1 }, /target/],
      [{ periodDays: 0 }, /periodDays must be an integer between 1 and 90/],
      [{ periodDays: 91 }, /periodDays/],
      [{ thresholdMs: 100 }, /thresholdMs applies only to LATENCY/],
      [{ indicator: 'LATENCY' }, /thresholdMs is required by LATENCY/],
      [{ indicator: 'LATENCY', thresholdMs: 0.5 }, /thresholdMs must be between 1 and/],
      [{ indicator: 'LATENCY', thresholdMs: 1e12 }, /thresholdMs must be between 1 and/],
      [{ name: ' ' }, /name must not be empty/],
      [{ workflowUUID: other.workflowUuid }, /is not a workflow of organization/],
      [{ workflowUUID: 'nope' }, /workflowUUID must be a uuid/],
    ];
    for (const [fields, message] of cases) {
      assertOneError(
        await admin(CREATE_OBJECTIVE, { input: { ...base, ...fields } }),
        'BAD_USER_INPUT',
        message,
      );
    }
    assertOneError(
      await admin(CREATE_OBJECTIVE, {
        input: { ...base, organizationId: '00000000-0000-4000-8000-000000000000' },
      }),
      'NOT_FOUND',
    );
    const kept = await admin(OBJECTIVES, { input: { organizationId: tenant.organizationId } });
    assert.deepEqual(kept.body.data.serviceLevelObjectives, [], 'nothing was stored');
    // The workflow of the organization itself is accepted.
    await createObjective(ctx.server.url, { ...base, workflowUUID: workflowUuid });
  });

  it('updates the fields given, drops the threshold of an objective made SUCCESS, and deletes', async () => {
    const { tenant } = await tenantWithWorkflow();
    const created = await createObjective(ctx.server.url, {
      organizationId: tenant.organizationId,
      name: 'latency',
      indicator: 'LATENCY',
      target: 0.9,
      thresholdMs: 500,
    });
    const updated = await admin(UPDATE_OBJECTIVE, { input: { id: created.id, target: 0.95, periodDays: 7 } });
    const changed = updated.body.data.updateServiceLevelObjective;
    assert.deepEqual(
      [changed.name, changed.target, changed.periodDays, changed.thresholdMs],
      ['latency', 0.95, 7, 500],
    );
    assertOneError(
      await admin(UPDATE_OBJECTIVE, { input: { id: created.id, target: 2 } }),
      'BAD_USER_INPUT',
      /target/,
    );
    const success = await admin(UPDATE_OBJECTIVE, { input: { id: created.id, indicator: 'SUCCESS' } });
    assert.equal(success.body.data.updateServiceLevelObjective.thresholdMs, null);
    assertOneError(
      await admin(UPDATE_OBJECTIVE, { input: { id: created.id, thresholdMs: 300 } }),
      'BAD_USER_INPUT',
      /thresholdMs applies only to LATENCY/,
    );
    const deleted = await admin(DELETE_OBJECTIVE, { input: { id: created.id } });
    assert.equal(deleted.body.data.deleteServiceLevelObjective.id, created.id);
    assertOneError(await admin(DELETE_OBJECTIVE, { input: { id: created.id } }), 'NOT_FOUND');
    assertOneError(
      await admin(UPDATE_OBJECTIVE, { input: { id: 'nope' } }),
      'BAD_USER_INPUT',
      /id must be a uuid/,
    );
  });
});
