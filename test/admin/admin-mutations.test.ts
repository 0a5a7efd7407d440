import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useServer } from '../harness/suite.js';
import {
  ADMIN_TOKEN,
  adminGql,
  adminTenant,
  CREATE_API_KEY,
  CREATE_MEMBER,
  CREATE_ORGANIZATION,
  SET_DEPLOY_ACCESS,
  SET_ORGANIZATION_STATUS,
} from './admin-request.js';

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ACCOUNT = '{ getAccountDetails { memberId memberStatus } getOrganization { organizationId } }';

describe('POST /admin/graphql: organizations and members', () => {
  const ctx = useServer({ adminToken: ADMIN_TOKEN });
  const admin = (query: string, variables?: Record<string, unknown>) =>
    adminGql(ctx.server.url, query, variables);

  it('creates an ACTIVE, FULL_ACCESS organization by default, with a tenant id', async () => {
    const answer = await admin(CREATE_ORGANIZATION, { input: { displayName: '  Acme  ' } });
    assert.equal(answer.status, 200);
    const org = answer.body.data.createOrganization;
    assert.match(org.organizationId, UUID);
    assert.equal(org.displayName, 'Acme');
    assert.equal(org.restrictionStatus, 'FULL_ACCESS');
    assert.equal(org.activeStatus, 'ACTIVE');
    assert.equal(typeof org.tenantId, 'number');
    assert.match(org.createdAt, TIME);
    assert.match(org.updatedAt, TIME);
  });

  it('creates a GATED organization when asked, with the arguments written inline', async () => {
    const answer = await admin(
      'mutation { createOrganization(input: {displayName: "Gated", restrictionStatus: GATED}) { restrictionStatus } }',
    );
    assert.deepEqual(answer.body, { data: { createOrganization: { restrictionStatus: 'GATED' } } });
  });

  it('creates a member who is JOINED, with its own user id, in the given organization', async () => {
    const org = await admin(CREATE_ORGANIZATION, { input: { displayName: 'Acme' } });
    const organizationId = org.body.data.createOrganization.organizationId;
    const answer = await admin(CREATE_MEMBER, {
      input: { organizationId, emailAddress: 'ana@acme.example', displayName: 'Ana', memberType: 'ROOT' },
    });
    assert.equal(answer.status, 200);
    const member = answer.body.data.createMember;
    assert.match(member.memberId, UUID);
    assert.match(member.userId, UUID);
    assert.equal(member.organizationId, organizationId);
    assert.equal(member.emailAddress, 'ana@acme.example');
    assert.equal(member.displayName, 'Ana');
    assert.equal(member.memberType, 'ROOT');
    assert.equal(member.memberStatus, 'JOINED');
    assert.match(member.joinedAt, TIME);
    assert.equal(member.invitedAt, null);
    assert.equal(member.removedAt, null);
  });

  it('creates a member without deploy access by default: its key is refused with 403', async () => {
    const tenant = await adminTenant(ctx.server.url);
    const member = await admin(CREATE_MEMBER, {
      input: { organizationId: tenant.organizationId, emailAddress: 'new@acme.example', displayName: 'New' },
    });
    assert.equal(member.body.data.createMember.memberType, null);
    const memberId = member.body.data.createMember.memberId;
    const key = await admin(CREATE_API_KEY, { input: { memberId, name: 'new' } });
    const answer = await ctx.server.gql(key.body.data.createApiKey.key, ACCOUNT);
    assert.equal(answer.status, 403);
    assert.equal(answer.body.errors[0].extensions.code, 'FORBIDDEN');
  });

  it('toggles a member between 403 and 200 on /graphql with setDeployAccess', async () => {
    const tenant = await adminTenant(ctx.server.url);
    const statuses = [(await ctx.server.gql(tenant.key, ACCOUNT)).status];
    for (const approved of [false, true, false]) {
      const answer = await admin(SET_DEPLOY_ACCESS, { input: { memberId: tenant.memberId, approved } });
      assert.deepEqual(answer.body.data.setDeployAccess, {
        memberId: tenant.memberId,
        memberStatus: 'JOINED',
      });
      statuses.push((await ctx.server.gql(tenant.key, ACCOUNT)).status);
    }
    assert.deepEqual(statuses, [200, 403, 200, 403]);
  });

  it('deletes an organization (403 on /graphql for its keys) and restores it (200 again)', async () => {
    const tenant = await adminTenant(ctx.server.url);
    const deleted = await admin(SET_ORGANIZATION_STATUS, {
      input: { organizationId: tenant.organizationId, activeStatus: 'DELETED' },
    });
    assert.equal(deleted.body.data.setOrganizationStatus.activeStatus, 'DELETED');
    const refused = await ctx.server.gql(tenant.key, ACCOUNT);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.errors[0].extensions.code, 'FORBIDDEN');
    assert.match(refused.body.errors[0].message, /organization .* deleted/);
    await admin(SET_ORGANIZATION_STATUS, {
      input: { organizationId: tenant.organizationId, activeStatus: 'ACTIVE' },
    });
    const restored = await ctx.server.gql(tenant.key, ACCOUNT);
    assert.equal(restored.status, 200);
    assert.equal(restored.body.data.getOrganization.organizationId, tenant.organizationId);
  });

  it('answers NOT_FOUND for an organization or member that does not exist', async () => {
    const nobody = '00000000-0000-4000-8000-000000000000';
    const answers = await Promise.all([
      admin(CREATE_MEMBER, {
        input: { organizationId: nobody, emailAddress: 'a@b.example', displayName: 'A' },
      }),
      admin(SET_DEPLOY_ACCESS, { input: { memberId: nobody, approved: true } }),
      admin(SET_ORGANIZATION_STATUS, { input: { organizationId: nobody, activeStatus: 'DELETED' } }),
    ]);
    assert.deepEqual(
      answers.map((a) => [a.status, a.body.data, a.body.errors[0].extensions.code, a.body.errors[0].message]),
      [
        [200, null, 'NOT_FOUND', 'organization not found'],
        [200, null, 'NOT_FOUND', 'member not found'],
        [200, null, 'NOT_FOUND', 'organization not found'],
      ],
    );
  });

  it('refuses invalid input with BAD_USER_INPUT and a message naming the field, writing nothing', async () => {
    const org = await admin(CREATE_ORGANIZATION, { input: { displayName: 'Acme' } });
    const organizationId = org.body.data.createOrganization.organizationId;
    const member = (fields: Record<string, unknown>) => ({
      input: { organizationId, emailAddress: 'a@acme.example', displayName: 'A', ...fields },
    });
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      [CREATE_ORGANIZATION, { input: { displayName: '   ' } }, /^displayName must not be empty$/],
      [CREATE_ORGANIZATION, { input: { displayName: 'x'.repeat(201) } }, /^displayName must be at most 200/],
      [
        CREATE_ORGANIZATION,
        { input: { displayName: 'Acme\nCorp' } },
        /^displayName must not contain control/,
      ],
      [CREATE_ORGANIZATION, { input: { displayName: 'A', restrictionStatus: 'OPEN' } }, /restrictionStatus/],
      [CREATE_ORGANIZATION, { input: {} }, /displayName/],
      [CREATE_MEMBER, member({ emailAddress: 'not-an-email' }), /^emailAddress must be an email address$/],
      [CREATE_MEMBER, member({ organizationId: 'acme' }), /^organizationId must be a uuid$/],
      [CREATE_MEMBER, member({ memberType: 'OWNER' }), /memberType/],
      [CREATE_MEMBER, member({ displayName: '' }), /^displayName must not be empty$/],
      [SET_DEPLOY_ACCESS, { input: { memberId: 'm1', approved: true } }, /^memberId must be a uuid$/],
      [SET_DEPLOY_ACCESS, { input: { memberId: organizationId, approved: 'yes' } }, /approved/],
      [SET_ORGANIZATION_STATUS, { input: { organizationId, activeStatus: 'GONE' } }, /activeStatus/],
    ];
    for (const [query, variables, message] of cases) {
      const answer = await admin(query, variables);
      assert.equal(answer.status, 200, JSON.stringify(variables));
      assert.equal(answer.body.errors.length, 1);
      assert.equal(answer.body.errors[0].extensions.code, 'BAD_USER_INPUT', JSON.stringify(answer.body));
      assert.match(answer.body.errors[0].message, message);
    }
    assert.equal((await ctx.db.query('select id from organizations')).length, 1);
    assert.deepEqual(await ctx.db.query('select id from members'), []);
  });
});
