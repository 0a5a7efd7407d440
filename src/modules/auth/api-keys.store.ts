import type { Queryable } from '../../db/database.js';
import type { ApiKeyTableRow } from '../../db/tables.js';

/** What authentication needs to know about a key, its member and its organization, in one read. */
export interface KeyCredentialRow {
  id: string;
  organization_id: string;
  member_id: string;
  secret_hash: Uint8Array;
  expires_at: Date | null;
  revoked_at: Date | null;
  deploy_access: boolean;
  member_status: string;
  active_status: string;
  /** When the organization's latest ingestion committed (null: nothing ingested yet). */
  data_as_of: Date | null;
}

const KEY_CREDENTIALS = `select k.id, k.organization_id, k.member_id, k.secret_hash, k.expires_at, k.revoked_at,
            m.deploy_access, m.member_status, o.active_status, f.data_as_of
     from api_keys k
     join members m on m.id = k.member_id
     join organizations o on o.id = k.organization_id
     left join ingest_watermarks f on f.organization_id = k.organization_id`;

export async function findKeyCredentials(
  db: Queryable,
  keyId: string,
): Promise<KeyCredentialRow | undefined> {
  const [row] = await db.query<KeyCredentialRow>(`${KEY_CREDENTIALS} where k.id = $1`, [keyId]);
  return row;
}

/** The credentials of several keys in one read (unknown ids are left out). */
export async function findKeysCredentials(
  db: Queryable,
  keyIds: readonly string[],
): Promise<KeyCredentialRow[]> {
  if (keyIds.length === 0) return [];
  return db.query<KeyCredentialRow>(`${KEY_CREDENTIALS} where k.id = any($1::uuid[])`, [keyIds]);
}

/** A key as listed: never its secret's hash. */
export type ApiKeyRow = Omit<ApiKeyTableRow, 'secret_hash'>;

const API_KEY_COLUMNS =
  'id, organization_id, member_id, name, created_at, expires_at, revoked_at, last_used_at';

export async function insertApiKey(
  db: Queryable,
  key: { id: string; memberId: string; name: string; secretHash: Buffer; expiresAt: Date | null },
): Promise<ApiKeyRow | undefined> {
  const [row] = await db.query<ApiKeyRow>(
    `insert into api_keys (id, organization_id, member_id, name, secret_hash, expires_at)
     select $1, m.organization_id, m.id, $3, $4, $5 from members m where m.id = $2
     returning ${API_KEY_COLUMNS}`,
    [key.id, key.memberId, key.name, key.secretHash, key.expiresAt],
  );
  return row;
}

/** Revokes at once; revoking twice keeps the first revocation time. */
export async function revokeApiKey(db: Queryable, id: string): Promise<ApiKeyRow | undefined> {
  const [row] = await db.query<ApiKeyRow>(
    `update api_keys set revoked_at = coalesce(revoked_at, now()) where id = $1 returning ${API_KEY_COLUMNS}`,
    [id],
  );
  return row;
}

export async function listApiKeys(db: Queryable, organizationId: string): Promise<ApiKeyRow[]> {
  return db.query<ApiKeyRow>(
    `select ${API_KEY_COLUMNS} from api_keys where organization_id = $1 order by created_at, id`,
    [organizationId],
  );
}

/** Writes the recorded last use of many keys at once; never moves a time backwards. */
export async function recordKeyUse(db: Queryable, uses: ReadonlyMap<string, Date>): Promise<void> {
  if (uses.size === 0) return;
  await db.query(
    `update api_keys k set last_used_at = u.used_at
     from unnest($1::uuid[], $2::timestamptz[]) as u(id, used_at)
     where k.id = u.id and (k.last_used_at is null or k.last_used_at < u.used_at)`,
    [[...uses.keys()], [...uses.values()]],
  );
}
