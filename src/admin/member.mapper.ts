import type { MemberRow } from '../db/tables.js';
import type { ApiScalars } from '../schema/scalars.js';
import type { MemberStatus, MemberType } from '../schema/schema-types.generated.js';
import type { Member } from './admin-types.generated.js';

/** A member as operators see it: the account fields that identify it, and its deploy access. */
export function toMember(row: MemberRow): Member<ApiScalars> {
  return {
    memberId: row.id,
    organizationId: row.organization_id,
    emailAddress: row.email_address,
    displayName: row.display_name,
    memberType: row.member_type as MemberType | null,
    memberStatus: row.member_status as MemberStatus,
    deployAccess: row.deploy_access,
    createdAt: row.created_at,
    joinedAt: row.joined_at,
  };
}
