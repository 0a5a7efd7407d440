/**
 * Operator actions on organizations, members and API keys (contract section 2). Used by the
 * admin GraphQL endpoint, the demo loader and the tests; validation of operator input lives here.
 */
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/database.js';
import type { MemberRow, OrganizationRow } from '../db/tables.js';
import { badInput, notFound } from '../errors.js';
import {
  insertMember,
  insertOrganization,
  listMembers,
  listOrganizations,
  updateDeployAccess,
  updateOrganizationActiveStatus,
} from '../modules/accounts/accounts.store.js';
import { generateApiKey } from '../modules/auth/api-key.js';
import { type ApiKeyRow, insertApiKey, listApiKeys, revokeApiKey } from '../modules/auth/api-keys.store.js';
import { credentialsChanged } from '../modules/auth/credential-cache.js';
import {
  type EntityActiveStatus,
  EntityActiveStatusValues,
  type MemberType,
  MemberTypeValues,
  type OrganizationRestrictionStatus,
  OrganizationRestrictionStatusValues,
} from '../schema/schema-types.generated.js';
import { knownOrganizationId, label, uuidOf } from './admin-input.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function createOrganization(
  db: Queryable,
  input: { displayName: string; restrictionStatus?: OrganizationRestrictionStatus | null; id?: string },
): Promise<OrganizationRow> {
  const restrictionStatus = input.restrictionStatus ?? 'FULL_ACCESS';
  if (!OrganizationRestrictionStatusValues.includes(restrictionStatus))
    throw badInput('restrictionStatus is invalid');
  return insertOrganization(db, {
    id: input.id ?? randomUUID(),
    displayName: label('displayName', input.displayName),
    restrictionStatus,
  });
}

export async function setOrganizationActiveStatus(
  db: Queryable,
  input: { organizationId: string; activeStatus: EntityActiveStatus },
): Promise<OrganizationRow> {
  if (!EntityActiveStatusValues.includes(input.activeStatus)) throw badInput('activeStatus is invalid');
  const row = await updateOrganizationActiveStatus(
    db,
    uuidOf('organizationId', input.organizationId),
    input.activeStatus,
  );
  if (!row) throw notFound('organization not found');
  credentialsChanged(db);
  return row;
}

export async function createMember(
  db: Queryable,
  input: {
    organizationId: string;
    emailAddress: string;
    displayName: string;
    memberType?: MemberType | null;
    deployAccess?: boolean | null;
  },
): Promise<MemberRow> {
  const emailAddress = label('emailAddress', input.emailAddress, 320);
  if (!EMAIL.test(emailAddress)) throw badInput('emailAddress must be an email address');
  if (input.memberType && !MemberTypeValues.includes(input.memberType))
    throw badInput('memberType is invalid');
  const row = await insertMember(db, {
    id: randomUUID(),
    userId: randomUUID(),
    organizationId: uuidOf('organizationId', input.organizationId),
    emailAddress,
    displayName: label('displayName', input.displayName),
    memberType: input.memberType ?? null,
    deployAccess: input.deployAccess ?? false,
  });
  if (!row) throw notFound('organization not found');
  return row;
}

export async function setDeployAccess(
  db: Queryable,
  input: { memberId: string; approved: boolean },
): Promise<MemberRow> {
  const row = await updateDeployAccess(db, uuidOf('memberId', input.memberId), input.approved);
  if (!row) throw notFound('member not found');
  credentialsChanged(db);
  return row;
}

export interface CreatedApiKey {
  readonly row: ApiKeyRow;
  /** The only time the secret exists in clear. */
  readonly key: string;
}

export async function createApiKey(
  db: Queryable,
  input: { memberId: string; name: string; expiresAt?: Date | null },
  now = new Date(),
): Promise<CreatedApiKey> {
  if (input.expiresAt && input.expiresAt.getTime() <= now.getTime())
    throw badInput('expiresAt must be in the future');
  const generated = generateApiKey();
  const row = await insertApiKey(db, {
    id: generated.id,
    memberId: uuidOf('memberId', input.memberId),
    name: label('name', input.name),
    secretHash: generated.secretHash,
    expiresAt: input.expiresAt ?? null,
  });
  if (!row) throw notFound('member not found');
  return { row, key: generated.key };
}

export async function revokeKey(db: Queryable, input: { id: string }): Promise<ApiKeyRow> {
  const row = await revokeApiKey(db, uuidOf('id', input.id));
  if (!row) throw notFound('API key not found');
  credentialsChanged(db);
  return row;
}

/** The keys of an organization; an unknown organization is NOT_FOUND rather than an empty list. */
export async function apiKeysOf(db: Queryable, input: { organizationId: string }): Promise<ApiKeyRow[]> {
  const organizationId = await knownOrganizationId(db, input.organizationId);
  return listApiKeys(db, organizationId);
}

export function organizationsOf(db: Queryable): Promise<OrganizationRow[]> {
  return listOrganizations(db);
}

/** The members of an organization; an unknown organization is NOT_FOUND rather than an empty list. */
export async function membersOf(db: Queryable, input: { organizationId: string }): Promise<MemberRow[]> {
  const organizationId = await knownOrganizationId(db, input.organizationId);
  return listMembers(db, organizationId);
}
