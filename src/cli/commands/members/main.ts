import type { CreateMemberInput } from '../../../admin/admin-types.generated.js';
import type { OrganizationAccount } from '../../../schema/schema-types.generated.js';
import { type AdminConnection, adminRequest } from '../../admin-client.js';
import type { Palette } from '../../render/colors.js';
import { renderFields } from '../../render/table.js';
import { formatInstant } from '../../time-input.js';

const ACCOUNT_FIELDS =
  'memberId userId organizationId emailAddress displayName memberType memberStatus createdAt joinedAt';

/**
 * The account as the server returned it, with the deploy access the server accepted with it
 * (OrganizationAccount, a public type, does not carry it).
 */
export type MemberResult = OrganizationAccount & { readonly deployAccess: boolean };

export async function createMember(
  connection: AdminConnection,
  input: CreateMemberInput,
): Promise<MemberResult> {
  const data = await adminRequest<{ createMember: OrganizationAccount }>(
    connection,
    `mutation CreateMember($input: CreateMemberInput!) { createMember(input: $input) { ${ACCOUNT_FIELDS} } }`,
    { input },
  );
  return { ...data.createMember, deployAccess: input.deployAccess ?? false };
}

export async function setDeployAccess(
  connection: AdminConnection,
  memberId: string,
  approved: boolean,
): Promise<MemberResult> {
  const data = await adminRequest<{ setDeployAccess: OrganizationAccount }>(
    connection,
    `mutation SetDeployAccess($input: SetDeployAccessInput!) {
      setDeployAccess(input: $input) { ${ACCOUNT_FIELDS} }
    }`,
    { input: { memberId, approved } },
  );
  return { ...data.setDeployAccess, deployAccess: approved };
}

const deployAccessText = (approved: boolean) =>
  approved ? 'approved: its API keys work on /graphql' : 'not approved: its API keys are refused with 403';

export function renderCreatedMember(member: MemberResult, p: Palette): string {
  const fields = renderFields(
    [
      ['member id', member.memberId],
      ['organization id', member.organizationId],
      ['member', `${p.bold(member.displayName)} <${member.emailAddress}>`],
      ['role', [member.memberType, member.memberStatus].filter(Boolean).join(', ')],
      ['deploy access', deployAccessText(member.deployAccess)],
      ['created', formatInstant(member.createdAt)],
    ],
    p,
  );
  return `Member created.\n${fields}`;
}

export const renderDeployAccess = (member: MemberResult): string =>
  `Deploy access of member ${member.memberId} <${member.emailAddress}> ${deployAccessText(member.deployAccess)}.`;
