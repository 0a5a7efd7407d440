import { LRUCache } from 'lru-cache';
import { AppError, unauthenticated } from '../../errors.js';
import { type ParsedApiKey, parseApiKey, secretMatches } from './api-key.js';
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

/** How many admitted Authorization headers `admitted` remembers. */
const ADMITTED_MAX = 1_000;

/**
 * Authorization headers whose secret matched, with the credential row it matched: a repeat of
 * the exact header, answered with the very same row by `credentials` (a cache hit), needs no
 * parse, checksum or hash again (4-5% of a cheap read), since checking the same secret against
 * the same hash gives the same answer. A row read anew (the credential cache's interval passed,
 * or it was cleared by a change) is a different object, so the secret is checked against it
 * again. Only matches are kept, and at most ADMITTED_MAX of them (the least recently used goes), so
 * made-up keys cannot grow it. Revocation, expiry and the member's access are checked on every
 * request either way, below.
 */
const admitted = new LRUCache<string, AdmittedHeader>({ max: ADMITTED_MAX });

interface AdmittedHeader {
  /** The header's key, parsed (the same header always parses the same). */
  readonly key: ParsedApiKey;
  /** The credentials its secret matched. */
  readonly row: KeyCredentialRow;
}

/** The credentials of `key` when its secret matches them (remembered for `header`). */
function matched(header: string, key: ParsedApiKey, row: KeyCredentialRow | undefined) {
  if (!row || !secretMatches(key.secret, row.secret_hash)) return undefined;
  admitted.set(header, { key, row });
  return row;
}

async function verifiedRow(
  credentials: { find(keyId: string): Promise<KeyCredentialRow | undefined> },
  header: string | undefined,
): Promise<KeyCredentialRow | undefined> {
  if (header === undefined) return undefined;
  const known = admitted.get(header);
  if (known) {
    const row = await credentials.find(known.key.id);
    if (row === known.row) return row;
    admitted.delete(header);
    // Credentials read anew: the secret is checked against them (one read, as without `admitted`).
    return matched(header, known.key, row);
  }
  const match = SCHEME.exec(header);
  const parsed = match ? parseApiKey(match[1]!) : undefined;
  if (!parsed) return undefined;
  return matched(header, parsed, await credentials.find(parsed.id));
}

/**
 * Resolves an `Authorization: Apikey <key>` header to its principal. Missing header, another
 * scheme, a malformed, unknown, revoked or expired key all fail the same way (401, one body),
 * so a caller learns nothing about which keys exist. A valid key of a member without deploy
 * access, a removed member, or a deleted organization is refused with 403.
 */
export async function authenticate(
  credentials: { find(keyId: string): Promise<KeyCredentialRow | undefined> },
  header: string | undefined,
  now = Date.now(),
): Promise<Principal> {
  return principalOf(await verifiedRow(credentials, header), now);
}

/**
 * `authenticate` without waiting, when it can answer at once: the header was admitted before,
 * the credential cache still holds the very row it matched (`peek` reads it without reading the
 * database), and the key is admitted again. Undefined otherwise (a refusal included), for
 * `authenticate` to decide: the answer is the same either way, only sooner.
 */
export function authenticateAtOnce(
  credentials: { peek(keyId: string): KeyCredentialRow | undefined },
  header: string | undefined,
  now = Date.now(),
): Principal | undefined {
  const known = header === undefined ? undefined : admitted.get(header);
  if (!known) return undefined;
  const row = credentials.peek(known.key.id);
  if (row !== known.row || refusal(row, now)) return undefined;
  return principalFrom(row);
}

function principalOf(row: KeyCredentialRow | undefined, now: number): Principal {
  if (!row) throw unauthenticated();
  const refused = refusal(row, now);
  if (refused) throw refused;
  return principalFrom(row);
}

/** Why a key whose secret matched no longer admits requests (the 401 or 403 below). */
export type KeyRefusalReason =
  | 'KEY_REVOKED'
  | 'KEY_EXPIRED'
  | 'ORGANIZATION_DELETED'
  | 'MEMBER_REMOVED'
  | 'DEPLOY_ACCESS_REMOVED';

/**
 * Why the key of `row` is refused at `now`, if it is: the one judgement behind every request's
 * admission and every open stream's (src/events/access-watch.ts).
 */
export function refusalReason(row: KeyCredentialRow, now: number): KeyRefusalReason | undefined {
  if (row.revoked_at !== null) return 'KEY_REVOKED';
  if (row.expires_at !== null && row.expires_at.getTime() <= now) return 'KEY_EXPIRED';
  if (row.active_status === 'DELETED') return 'ORGANIZATION_DELETED';
  if (row.member_status === 'REMOVED') return 'MEMBER_REMOVED';
  if (!row.deploy_access) return 'DEPLOY_ACCESS_REMOVED';
  return undefined;
}

/** Why a key whose secret matched is refused, if it is. */
function refusal(row: KeyCredentialRow, now: number): AppError | undefined {
  switch (refusalReason(row, now)) {
    case undefined:
      return undefined;
    case 'KEY_REVOKED':
    case 'KEY_EXPIRED':
      return unauthenticated();
    case 'ORGANIZATION_DELETED':
      return new AppError('FORBIDDEN', 'The organization of this API key is deleted');
    case 'MEMBER_REMOVED':
      return new AppError('FORBIDDEN', 'The member of this API key was removed from the organization');
    case 'DEPLOY_ACCESS_REMOVED':
      return new AppError('FORBIDDEN', 'The member of this API key does not have deploy access');
  }
}

function principalFrom(row: KeyCredentialRow): Principal {
  return {
    keyId: row.id,
    memberId: row.member_id,
    organizationId: row.organization_id,
    dataAsOf: row.data_as_of,
  };
}
