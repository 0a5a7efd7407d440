import type { CreateMemberInput, Member } from '../../../admin/admin-types.generated.js';
import type { OrganizationAccount } from '../../../schema/schema-types.generated.js';
import { type AdminConnection, adminRequest } from '../../admin-client.js';
import type { Palette } from '../../render/colors.js';
import { roleAndStatus } from '../../render/member-role.js';
import { renderFields, renderTable } from '../../render/table.js';
import { formatInstant } from '../../time-input.js';

/**
 * The account as the server returned it, with the deploy access the server accepted with it
 * (OrganizationAccount, a public type, does not carry it).
 */
export type MemberResult = OrganizationAccount & { readonly deployAccess: boolean };

export async function createMember(
  connection: AdminConnection,
  input: CreateMemberInput,
): Promise<MemberResult> {
  const account = await adminRequest(connection, 'createMember', { input });
  return { ...account, deployAccess: input.deployAccess ?? false };
}

export async function setDeployAccess(
  connection: AdminConnection,
  memberId: string,
  approved: boolean,
): Promise<MemberResult> {
  const account = await adminRequest(connection, 'setDeployAccess', { input: { memberId, approved } });
  return { ...account, deployAccess: approved };
}

/** The members of an organization, oldest first, with their deploy access. */
export async function listMembers(connection: AdminConnection, organizationId: string): Promise<Member[]> {
  return adminRequest(connection, 'members', { input: { organizationId } });
}

const deployAccessText = (approved: boolean) =>
  approved ? 'approved: its API keys work on /graphql' : 'not approved: its API keys are refused with 403';

export function renderCreatedMember(member: MemberResult, p: Palette): string {
  const fields = renderFields(
    [
      ['member id', member.memberId],
      ['organization id', member.organizationId],
      ['member', `${p.bold(member.displayName)} <${member.emailAddress}>`],
      ...roleAndStatus(member),
      ['deploy access', deployAccessText(member.deployAccess)],
      ['created', formatInstant(member.createdAt)],
    ],
    p,
  );
  return `Member created.\n${fields}`;
}

export const renderDeployAccess = (member: MemberResult): string =>
  `Deploy access of member ${member.memberId} <${member.emailAddress}> ${deployAccessText(member.deployAccess)}.`;

export function renderMembers(members: readonly Member[], p: Palette): string {
  if (members.length === 0) return 'No members in this organization: `wfapi members create` adds one.';
  return renderTable(
    members,
    [
      { header: 'MEMBER ID', value: (m) => m.memberId },
      { header: 'NAME', value: (m) => m.displayName, style: (text) => p.bold(text), max: 32 },
      { header: 'EMAIL', value: (m) => m.emailAddress, max: 40 },
      { header: 'ROLE', value: (m) => [m.memberType, m.memberStatus].filter(Boolean).join(', ') },
      {
        header: 'DEPLOY ACCESS',
        value: (m) => (m.deployAccess ? 'yes' : 'no (keys get 403)'),
        style: (text, m) => (m.deployAccess ? p.green(text) : p.yellow(text)),
      },
      { header: 'CREATED', value: (m) => formatInstant(m.createdAt) },
    ],
    p,
  );
}
