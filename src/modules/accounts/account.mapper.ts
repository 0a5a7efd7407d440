import type { MemberRow, OrganizationRow } from '../../db/tables.js';
import type { ApiScalars } from '../../schema/scalars.js';
import type {
  EntityActiveStatus,
  MemberStatus,
  MemberType,
  Organization,
  OrganizationAccount,
  OrganizationRestrictionStatus,
} from '../../schema/schema-types.generated.js';

export function toOrganizationAccount(row: MemberRow): OrganizationAccount<ApiScalars> {
  return {
    memberId: row.id,
    userId: row.user_id,
    organizationId: row.organization_id,
    emailAddress: row.email_address,
    displayName: row.display_name,
    memberType: row.member_type as MemberType | null,
    memberStatus: row.member_status as MemberStatus,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    invitedByUser: row.invited_by_user,
    invitedAt: row.invited_at,
    joinedAt: row.joined_at,
    removedByUser: row.removed_by_user,
    removedAt: row.removed_at,
  };
}

export function toOrganization(row: OrganizationRow): Organization<ApiScalars> {
  return {
    organizationId: row.id,
    displayName: row.display_name,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    restrictionStatus: row.restriction_status as OrganizationRestrictionStatus,
    activeStatus: row.active_status as EntityActiveStatus,
    tenantId: row.tenant_id,
  };
}
