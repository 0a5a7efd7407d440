import type { Queryable } from '../../db/database.js';
import type { MemberRow, OrganizationRow } from '../../db/tables.js';

export async function findOrganization(db: Queryable, id: string): Promise<OrganizationRow | undefined> {
  const [row] = await db.query<OrganizationRow>('select * from organizations where id = $1', [id]);
  return row;
}

/** Every organization in creation order (its tenant id), deleted ones included: operators only. */
export function listOrganizations(db: Queryable): Promise<OrganizationRow[]> {
  return db.query<OrganizationRow>('select * from organizations order by tenant_id');
}

/** The members of an organization, oldest first. */
export function listMembers(db: Queryable, organizationId: string): Promise<MemberRow[]> {
  return db.query<MemberRow>('select * from members where organization_id = $1 order by created_at, id', [
    organizationId,
  ]);
}

/** A member, only if it belongs to the organization (reads are always scoped). */
export async function findMember(
  db: Queryable,
  organizationId: string,
  id: string,
): Promise<MemberRow | undefined> {
  const [row] = await db.query<MemberRow>('select * from members where id = $1 and organization_id = $2', [
    id,
    organizationId,
  ]);
  return row;
}

export async function findMemberById(db: Queryable, id: string): Promise<MemberRow | undefined> {
  const [row] = await db.query<MemberRow>('select * from members where id = $1', [id]);
  return row;
}

export async function insertOrganization(
  db: Queryable,
  organization: { id: string; displayName: string; restrictionStatus: string },
): Promise<OrganizationRow> {
  const [row] = await db.query<OrganizationRow>(
    `insert into organizations (id, display_name, restriction_status) values ($1, $2, $3) returning *`,
    [organization.id, organization.displayName, organization.restrictionStatus],
  );
  return row!;
}

/** A new member has JOINED; `user_id` is its own identity in the platform. */
export async function insertMember(
  db: Queryable,
  member: {
    id: string;
    userId: string;
    organizationId: string;
    emailAddress: string;
    displayName: string;
    memberType: string | null;
    deployAccess: boolean;
  },
): Promise<MemberRow | undefined> {
  const [row] = await db.query<MemberRow>(
    `insert into members (id, user_id, organization_id, email_address, display_name, member_type, member_status,
                          deploy_access, joined_at)
     select $1, $2, o.id, $4, $5, $6, 'JOINED', $7, now() from organizations o where o.id = $3
     returning *`,
    [
      member.id,
      member.userId,
      member.organizationId,
      member.emailAddress,
      member.displayName,
      member.memberType,
      member.deployAccess,
    ],
  );
  return row;
}

export async function updateDeployAccess(
  db: Queryable,
  memberId: string,
  approved: boolean,
): Promise<MemberRow | undefined> {
  const [row] = await db.query<MemberRow>(
    'update members set deploy_access = $2, updated_at = now() where id = $1 returning *',
    [memberId, approved],
  );
  return row;
}

export async function updateOrganizationActiveStatus(
  db: Queryable,
  id: string,
  activeStatus: string,
): Promise<OrganizationRow | undefined> {
  const [row] = await db.query<OrganizationRow>(
    'update organizations set active_status = $2, updated_at = now() where id = $1 returning *',
    [id, activeStatus],
  );
  return row;
}
