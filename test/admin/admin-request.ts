import type { GqlResponse } from '../harness/server.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

/** POST /admin/graphql with the admin token as Bearer, another `Authorization` header, or none (null). */
export async function adminGql(
  baseUrl: string,
  query: string,
  variables?: Record<string, unknown>,
  authorization: string | null = `Bearer ${ADMIN_TOKEN}`,
  headers: Record<string, string> = {},
): Promise<GqlResponse> {
  const response = await fetch(`${baseUrl}/admin/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(authorization === null ? {} : { authorization }),
      ...headers,
    },
    body: JSON.stringify({ query, variables }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

export const CREATE_ORGANIZATION = `mutation($input: CreateOrganizationInput!) {
  createOrganization(input: $input) {
    organizationId displayName createdAt updatedAt restrictionStatus activeStatus tenantId
  }
}`;

export const CREATE_MEMBER = `mutation($input: CreateMemberInput!) {
  createMember(input: $input) {
    memberId userId organizationId emailAddress displayName memberType memberStatus createdAt updatedAt
    invitedByUser invitedAt joinedAt removedByUser removedAt
  }
}`;

export const SET_DEPLOY_ACCESS = `mutation($input: SetDeployAccessInput!) {
  setDeployAccess(input: $input) { memberId memberStatus }
}`;

export const CREATE_API_KEY = `mutation($input: CreateApiKeyInput!) {
  createApiKey(input: $input) { id name key expiresAt }
}`;

export const REVOKE_API_KEY = `mutation($input: RevokeApiKeyInput!) {
  revokeApiKey(input: $input) { id name memberId createdAt expiresAt revokedAt lastUsedAt }
}`;

export const API_KEYS = `query($input: ApiKeysInput!) {
  apiKeys(input: $input) { id name memberId createdAt expiresAt revokedAt lastUsedAt }
}`;

export const SET_ORGANIZATION_STATUS = `mutation($input: SetOrganizationStatusInput!) {
  setOrganizationStatus(input: $input) { organizationId activeStatus updatedAt }
}`;

/** An organization, a member with deploy access and a key, all made through the admin endpoint. */
export async function adminTenant(baseUrl: string, name = 'Acme') {
  const org = await adminGql(baseUrl, CREATE_ORGANIZATION, { input: { displayName: name } });
  const organizationId: string = org.body.data.createOrganization.organizationId;
  const member = await adminGql(baseUrl, CREATE_MEMBER, {
    input: { organizationId, emailAddress: 'ops@acme.example', displayName: 'Ops', deployAccess: true },
  });
  const memberId: string = member.body.data.createMember.memberId;
  const key = await adminGql(baseUrl, CREATE_API_KEY, { input: { memberId, name: 'ci' } });
  const created: { id: string; name: string; key: string; expiresAt: string | null } =
    key.body.data.createApiKey;
  return { organizationId, memberId, keyId: created.id, key: created.key };
}
