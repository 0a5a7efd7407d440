import type { ApiKeyRow } from '../modules/auth/api-keys.store.js';
import type { ApiScalars } from '../schema/scalars.js';
import type { CreatedApiKey as NewKey } from './admin.service.js';
import type { ApiKey, CreatedApiKey } from './admin-types.generated.js';

/** A stored key as operators see it: never its secret, which is not stored in clear anyway. */
export function toApiKey(row: ApiKeyRow): ApiKey<ApiScalars> {
  return {
    id: row.id,
    name: row.name,
    memberId: row.member_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

/** The answer to createApiKey: the only place the full key ever appears. */
export function toCreatedApiKey(created: NewKey): CreatedApiKey<ApiScalars> {
  return { id: created.row.id, name: created.row.name, key: created.key, expiresAt: created.row.expires_at };
}
