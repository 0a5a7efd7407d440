import { createApiKey, createMember, createOrganization } from '../../../admin/admin.service.js';
import type { Database } from '../../../db/database.js';
import { AppError } from '../../../errors.js';
import { findKeyCredentials } from '../../../modules/auth/api-keys.store.js';
import { authenticate } from '../../../modules/auth/authenticate.js';

export interface DemoTenant {
  readonly organizationId: string;
  readonly memberId: string;
  readonly apiKey: string;
}

const KEY_NAME = 'demo';

/** The demo organization, a ROOT member with deploy access, and an API key, created in-process. */
export async function createDemoTenant(
  db: Database,
  profile: { displayName: string; slug: string },
): Promise<DemoTenant> {
  const organization = await createOrganization(db, { displayName: profile.displayName });
  const member = await createMember(db, {
    organizationId: organization.id,
    emailAddress: `demo@${profile.slug}.example`,
    displayName: 'Demo Operator',
    memberType: 'ROOT',
    deployAccess: true,
  });
  const created = await createApiKey(db, { memberId: member.id, name: KEY_NAME });
  return { organizationId: organization.id, memberId: member.id, apiKey: created.key };
}

/**
 * The saved key when it still authenticates; a new key of the demo member when it was revoked
 * or expired (through the admin interface, say). A key refused for another reason (the
 * organization deleted, deploy access withdrawn) is kept, with the reason to show.
 */
export async function workingKey(
  db: Database,
  memberId: string,
  savedKey: string,
): Promise<{ apiKey: string; renewed: boolean; problem: string | undefined }> {
  try {
    await authenticate({ find: (keyId) => findKeyCredentials(db, keyId) }, `Apikey ${savedKey}`);
    return { apiKey: savedKey, renewed: false, problem: undefined };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.code !== 'UNAUTHENTICATED') return { apiKey: savedKey, renewed: false, problem: error.message };
    const created = await createApiKey(db, { memberId, name: KEY_NAME });
    return { apiKey: created.key, renewed: true, problem: undefined };
  }
}
