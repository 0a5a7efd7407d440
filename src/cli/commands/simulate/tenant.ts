import { type AdminConnection, adminEndpoint } from '../../admin-client.js';
import { CliError, EXIT } from '../../exit-codes.js';
import { createApiKey } from '../keys/main.js';
import { createMember } from '../members/main.js';
import { createOrganization } from '../orgs/main.js';

export interface CreatedTenant {
  readonly organizationId: string;
  readonly displayName: string;
  readonly memberEmail: string;
  /** The member's new API key: shown once, never stored by the server in clear. */
  readonly apiKey: string;
}

/**
 * Creates, through a running server's admin interface, the organization the simulated records
 * will belong to, a ROOT member with deploy access, and an API key of that member to read them.
 */
export async function createTenant(
  serverUrl: string,
  adminToken: string,
  profile: { displayName: string; slug: string },
): Promise<CreatedTenant> {
  const endpoint = adminEndpoint(serverUrl);
  if (!endpoint) throw new CliError(`--to must be an http(s) URL, got "${serverUrl}"`, EXIT.USAGE);
  const connection: AdminConnection = { endpoint, token: adminToken };
  const organization = await createOrganization(connection, { displayName: profile.displayName });
  const memberEmail = `ops@${profile.slug}.example`;
  const member = await createMember(connection, {
    organizationId: organization.organizationId,
    emailAddress: memberEmail,
    displayName: `${profile.displayName} Operations`,
    memberType: 'ROOT',
    deployAccess: true,
  });
  const created = await createApiKey(connection, { memberId: member.memberId, name: 'wfapi simulate' });
  return {
    organizationId: organization.organizationId,
    displayName: organization.displayName,
    memberEmail,
    apiKey: created.key,
  };
}
