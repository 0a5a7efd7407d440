import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useServer } from '../harness/suite.js';
import {
  ADMIN_TOKEN,
  adminGql,
  adminTenant,
  CREATE_MEMBER,
  SET_DEPLOY_ACCESS,
  SET_ORGANIZATION_STATUS,
} from './admin-request.js';

const ORGANIZATIONS = '{ organizations { organizationId displayName activeStatus tenantId } }';
const MEMBERS = `query($input: MembersInput!) {
  members(input: $input) {
    memberId organizationId emailAddress displayName memberType memberStatus deployAccess createdAt joinedAt
  }
}`;

describe('POST /admin/graphql: listing organizations and members', () => {
  const ctx = useServer({ adminToken: ADMIN_TOKEN });
  const admin = (query: string, variables?: Record<string, unknown>) =>
    adminGql(ctx.server.url, query, variables);

  it('lists every organization oldest first, deleted ones included', async () => {
    assert.deepEqual((await admin(ORGANIZATIONS)).body, { data: { organizations: [] } });
    const first = await adminTenant(ctx.server.url, 'First');
    const second = await adminTenant(ctx.server.url, 'Second');
    await admin(SET_ORGANIZATION_STATUS, {
      input: { organizationId: first.organizationId, activeStatus: 'DELETED' },
    });
    const listed = (await admin(ORGANIZATIONS)).body.data.organizations;
    assert.deepEqual(
      listed.map((o: { organizationId: string; displayName: string; activeStatus: string }) => [
        o.organizationId,
        o.displayName,
        o.activeStatus,
      ]),
      [
        [first.organizationId, 'First', 'DELETED'],
        [second.organizationId, 'Second', 'ACTIVE'],
      ],
    );
    assert.ok(listed[0].tenantId < listed[1].tenantId);
  });

  it("lists an organization's members oldest first with their deploy access, and no other organization's", async () => {
    const tenant = await adminTenant(ctx.server.url);
    const other = await adminTenant(ctx.server.url, 'Other');
    const added = await admin(CREATE_MEMBER, {
      input: {
        organizationId: tenant.organizationId,
        emailAddress: 'viewer@acme.example',
        displayName: 'Viewer',
        memberType: 'ADMIN',
      },
    });
    const viewerId = added.body.data.createMember.memberId;
    await admin(SET_DEPLOY_ACCESS, { input: { memberId: tenant.memberId, approved: false } });
    const answer = await admin(MEMBERS, { input: { organizationId: tenant.organizationId } });
    assert.equal(answer.status, 200);
    const members = answer.body.data.members;
    assert.deepEqual(
      members.map((m: { memberId: string; emailAddress: string; deployAccess: boolean }) => [
        m.memberId,
        m.emailAddress,
        m.deployAccess,
      ]),
      [
        [tenant.memberId, 'ops@acme.example', false],
        [viewerId, 'viewer@acme.example', false],
      ],
    );
    assert.equal(members[1].memberType, 'ADMIN');
    assert.equal(members[1].memberStatus, 'JOINED');
    assert.equal(members[1].organizationId, tenant.organizationId);
    assert.ok(!members.some((m: { memberId: string }) => m.memberId === other.memberId));
  });

  it('answers NOT_FOUND for the members of an unknown organization and BAD_USER_INPUT for a malformed id', async () => {
    const unknown = await admin(MEMBERS, {
      input: { organizationId: '00000000-0000-4000-8000-000000000000' },
    });
    assert.equal(unknown.body.errors[0].extensions.code, 'NOT_FOUND');
    assert.equal(unknown.body.errors[0].message, 'organization not found');
    const malformed = await admin(MEMBERS, { input: { organizationId: 'acme' } });
    assert.equal(malformed.body.errors[0].extensions.code, 'BAD_USER_INPUT');
    assert.match(malformed.body.errors[0].message, /organizationId must be a uuid/);
  });

  it('refuses the lists without the admin token', async () => {
    const refused = await adminGql(ctx.server.url, ORGANIZATIONS, undefined, null);
    assert.equal(refused.status, 401);
    assert.equal(refused.body.errors[0].extensions.code, 'UNAUTHENTICATED');
  });
});
