import { type Command, Option } from 'commander';
import {
  type OrganizationRestrictionStatus,
  OrganizationRestrictionStatusValues,
} from '../../../schema/schema-types.generated.js';
import { type AdminFlags, adminSubcommand, connectionOf, printResult } from '../../admin-command.js';
import type { CliIo } from '../../io.js';
import {
  createOrganization,
  deleteOrganization,
  listOrganizations,
  renderCreatedOrganization,
  renderDeletedOrganization,
  renderOrganizations,
} from './main.js';

export function register(program: Command, io: CliIo): void {
  const orgs = program
    .command('orgs')
    .description('Manage organizations through the admin interface of a running server');

  adminSubcommand(orgs, 'create', 'Create an organization')
    .requiredOption('--name <name>', 'display name of the organization')
    .addOption(
      new Option('--restriction <status>', 'restriction status')
        .choices(OrganizationRestrictionStatusValues)
        .default('FULL_ACCESS'),
    )
    .action(async (flags: AdminFlags & { name: string; restriction: OrganizationRestrictionStatus }) => {
      const organization = await createOrganization(connectionOf(flags), {
        displayName: flags.name,
        restrictionStatus: flags.restriction,
      });
      printResult(organization, flags, renderCreatedOrganization, io);
    });

  adminSubcommand(orgs, 'list', 'List every organization, oldest first, with its id and status').action(
    async (flags: AdminFlags) => {
      printResult(await listOrganizations(connectionOf(flags)), flags, renderOrganizations, io);
    },
  );

  adminSubcommand(
    orgs,
    'delete <organizationId>',
    'Delete an organization: its API keys stop working (403)',
  ).action(async (organizationId: string, flags: AdminFlags) => {
    printResult(
      await deleteOrganization(connectionOf(flags), organizationId),
      flags,
      renderDeletedOrganization,
      io,
    );
  });
}
