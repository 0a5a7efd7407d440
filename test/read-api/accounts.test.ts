import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createApiKey, createMember, createOrganization } from '../../src/admin/admin.service.js';
import { createTenant } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { dataOf } from './graphql-assertions.js';

const ACCOUNT_FIELDS = `memberId userId organizationId emailAddress displayName memberType memberStatus
  createdAt updatedAt invitedByUser invitedAt joinedAt removedByUser removedAt`;
const ORGANIZATION_FIELDS =
  'organizationId displayName createdAt updatedAt restrictionStatus activeStatus tenantId';
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

describe('getAccountDetails and getOrganization', () => {
  const ctx = useServer();

  it('answers the account of the member who owns the key', async () => {
    const tenant = await createTenant(ctx.db, 'Acme');
    const other = await createMember(ctx.db, {
      organizationId: tenant.organizationId,
      emailAddress: 'second@acme.example',
      displayName: 'Second',
      deployAccess: true,
    });
    const otherKey = await createApiKey(ctx.db, { memberId: other.id, name: 'second' });

    const first = dataOf(await ctx.server.gql(tenant.key, `{ getAccountDetails { ${ACCOUNT_FIELDS} } }`));
    const account = first.getAccountDetails;
    assert.equal(account.memberId, tenant.memberId);
    assert.equal(account.organizationId, tenant.organizationId);
    assert.equal(account.emailAddress, 'ops@acme.example');
    assert.equal(account.displayName, 'Acme Ops');
    assert.equal(account.memberType, 'ADMIN');
    assert.equal(account.memberStatus, 'JOINED');
    assert.match(account.userId, /^[0-9a-f-]{36}$/);
    assert.match(account.createdAt, TIME);
    assert.match(account.updatedAt, TIME);
    assert.match(account.joinedAt, TIME);
    assert.equal(account.invitedByUser, null);
    assert.equal(account.invitedAt, null);
    assert.equal(account.removedByUser, null);
    assert.equal(account.removedAt, null);

    const second = dataOf(
      await ctx.server.gql(otherKey.key, '{ getAccountDetails { memberId memberType } }'),
    );
    assert.deepEqual(second.getAccountDetails, { memberId: other.id, memberType: null });
  });

  it('answers the organization of the key, with its tenant number', async () => {
    const acme = await createTenant(ctx.db, 'Acme');
    const gated = await createOrganization(ctx.db, { displayName: 'Gated Co', restrictionStatus: 'GATED' });
    const member = await createMember(ctx.db, {
      organizationId: gated.id,
      emailAddress: 'ops@gated.example',
      displayName: 'Gated Ops',
      deployAccess: true,
    });
    const gatedKey = await createApiKey(ctx.db, { memberId: member.id, name: 'k' });

    const a = dataOf(await ctx.server.gql(acme.key, `{ getOrganization { ${ORGANIZATION_FIELDS} } }`));
    assert.equal(a.getOrganization.organizationId, acme.organizationId);
    assert.equal(a.getOrganization.displayName, 'Acme');
    assert.equal(a.getOrganization.restrictionStatus, 'FULL_ACCESS');
    assert.equal(a.getOrganization.activeStatus, 'ACTIVE');
    assert.ok(Number.isInteger(a.getOrganization.tenantId));
    assert.match(a.getOrganization.createdAt, TIME);

    const g = dataOf(await ctx.server.gql(gatedKey.key, `{ getOrganization { ${ORGANIZATION_FIELDS} } }`));
    assert.equal(g.getOrganization.organizationId, gated.id);
    assert.equal(g.getOrganization.displayName, 'Gated Co');
    assert.equal(g.getOrganization.restrictionStatus, 'GATED');
    assert.equal(g.getOrganization.tenantId, gated.tenant_id);
    assert.notEqual(g.getOrganization.tenantId, a.getOrganization.tenantId);
  });

  it('formats times as UTC seconds, with milliseconds only when they are not zero', async () => {
    const tenant = await createTenant(ctx.db);
    await ctx.db.query(
      `update members set created_at = '2026-08-31T16:32:18+02:00', updated_at = '2026-08-31T14:32:18.120Z'
       where id = $1`,
      [tenant.memberId],
    );
    await ctx.db.query(`update organizations set created_at = '2026-01-05T00:00:00.007Z' where id = $1`, [
      tenant.organizationId,
    ]);
    const data = dataOf(
      await ctx.server.gql(
        tenant.key,
        '{ getAccountDetails { createdAt updatedAt } getOrganization { createdAt } }',
      ),
    );
    assert.deepEqual(data.getAccountDetails, {
      createdAt: '2026-08-31T14:32:18Z',
      updatedAt: '2026-08-31T14:32:18.120Z',
    });
    assert.equal(data.getOrganization.createdAt, '2026-01-05T00:00:00.007Z');
  });

  it('computes only the requested fields', async () => {
    const tenant = await createTenant(ctx.db);
    const data = dataOf(await ctx.server.gql(tenant.key, '{ getOrganization { displayName } }'));
    assert.deepEqual(data, { getOrganization: { displayName: 'Acme' } });
  });
});
