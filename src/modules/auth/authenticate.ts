import { AppError, unauthenticated } from '../../errors.js';
import { parseApiKey, secretMatches } from './api-key.js';
import type { KeyCredentialRow } from './api-keys.store.js';

/** Who a request acts as: every read is scoped to `organizationId`. */
export interface Principal {
  readonly keyId: string;
  readonly memberId: string;
  readonly organizationId: string;
  /**
   * Up to when the organization's ingested data is included, as read with the key (it may lag
   * the truth by the credential cache's interval, never lead it).
   */
  readonly dataAsOf: Date | null;
}

const SCHEME = /^apikey[ \t]+(\S+)[ \t]*$/i;

/**
 * Resolves an `Authorization: Apikey <key>` header to its principal. Missing header, another
 * scheme, a malformed, unknown, revoked or expired key all fail the same way (401, one body),
 * so a caller learns nothing about which keys exist. A valid key of a member without deploy
 * access, a removed member, or a deleted organization is refused with 403.
 */
export async function authenticate(
  credentials: { find(keyId: string): Promise<KeyCredentialRow | undefined> },
  header: string | undefined,
  now = new Date(),
): Promise<Principal> {
  const match = header === undefined ? null : SCHEME.exec(header);
  const parsed = match ? parseApiKey(match[1]!) : undefined;
  if (!parsed) throw unauthenticated();
  const row = await credentials.find(parsed.id);
  if (!row || !secretMatches(parsed.secret, row.secret_hash)) throw unauthenticated();
  if (row.revoked_at !== null || (row.expires_at !== null && row.expires_at.getTime() <= now.getTime())) {
    throw unauthenticated();
  }
  if (row.active_status === 'DELETED')
    throw new AppError('FORBIDDEN', 'The organization of this API key is deleted');
  if (row.member_status === 'REMOVED') {
    throw new AppError('FORBIDDEN', 'The member of this API key was removed from the organization');
  }
  if (!row.deploy_access)
    throw new AppError('FORBIDDEN', 'The member of this API key does not have deploy access');
  return {
    keyId: row.id,
    memberId: row.member_id,
    organizationId: row.organization_id,
    dataAsOf: row.data_as_of,
  };
}
