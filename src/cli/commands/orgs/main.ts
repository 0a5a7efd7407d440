import type { CreateOrganizationInput } from '../../../admin/admin-types.generated.js';
import type { Organization } from '../../../schema/schema-types.generated.js';
import { type AdminConnection, adminRequest } from '../../admin-client.js';
import type { Palette } from '../../render/colors.js';
import { renderFields, renderTable } from '../../render/table.js';
import { formatInstant } from '../../time-input.js';

export async function createOrganization(
  connection: AdminConnection,
  input: CreateOrganizationInput,
): Promise<Organization> {
  return adminRequest(connection, 'createOrganization', { input });
}

/** Every organization of the server, oldest first, deleted ones included. */
export async function listOrganizations(connection: AdminConnection): Promise<Organization[]> {
  return adminRequest(connection, 'organizations', {});
}

/** Marks the organization DELETED: its data stays, its API keys are refused with 403. */
export async function deleteOrganization(
  connection: AdminConnection,
  organizationId: string,
): Promise<Organization> {
  return adminRequest(connection, 'setOrganizationStatus', {
    input: { organizationId, activeStatus: 'DELETED' },
  });
}

export function renderOrganization(organization: Organization, p: Palette): string {
  return renderFields(
    [
      ['organization id', organization.organizationId],
      ['name', p.bold(organization.displayName)],
      ['restriction', organization.restrictionStatus],
      ['status', organization.activeStatus],
      ['tenant id', String(organization.tenantId)],
      ['created', formatInstant(organization.createdAt)],
      ['updated', formatInstant(organization.updatedAt)],
    ],
    p,
  );
}

export const renderCreatedOrganization = (organization: Organization, p: Palette): string =>
  `Organization created.\n${renderOrganization(organization, p)}`;

export const renderDeletedOrganization = (organization: Organization, p: Palette): string =>
  `Organization ${organization.organizationId} (${p.bold(organization.displayName)}) is deleted: ` +
  'its API keys are refused with 403 from now on.';

export function renderOrganizations(organizations: readonly Organization[], p: Palette): string {
  if (organizations.length === 0) return 'No organizations yet: `wfapi orgs create --name <name>` makes one.';
  return renderTable(
    organizations,
    [
      { header: 'ORGANIZATION ID', value: (o) => o.organizationId },
      { header: 'NAME', value: (o) => o.displayName, style: (text) => p.bold(text), max: 40 },
      {
        header: 'STATUS',
        value: (o) => o.activeStatus,
        style: (text, o) => (o.activeStatus === 'ACTIVE' ? text : p.red(text)),
      },
      { header: 'RESTRICTION', value: (o) => o.restrictionStatus },
      { header: 'TENANT', value: (o) => String(o.tenantId), align: 'right' },
      { header: 'CREATED', value: (o) => formatInstant(o.createdAt) },
    ],
    p,
  );
}
