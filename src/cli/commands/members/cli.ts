import { type Command, Option } from 'commander';
import { type MemberType, MemberTypeValues } from '../../../schema/schema-types.generated.js';
import { type AdminFlags, adminSubcommand, connectionOf, printResult } from '../../admin-command.js';
import { CliError, EXIT } from '../../exit-codes.js';
import type { CliIo } from '../../io.js';
import {
  createMember,
  listMembers,
  renderCreatedMember,
  renderDeployAccess,
  renderMembers,
  setDeployAccess,
} from './main.js';

export function register(program: Command, io: CliIo): void {
  const members = program
    .command('members')
    .description('Manage the members of organizations through the admin interface of a running server');

  adminSubcommand(members, 'create', 'Add a member (JOINED) to an organization')
    .requiredOption('--org <organizationId>', 'the organization')
    .requiredOption('--email <email>', 'email address of the member')
    .requiredOption('--name <name>', 'display name of the member')
    .addOption(new Option('--type <memberType>', 'member type').choices(MemberTypeValues))
    .option('--deploy-access', 'approve deploy access at once (without it, the member keys are refused)')
    .action(
      async (
        flags: AdminFlags & {
          org: string;
          email: string;
          name: string;
          type?: MemberType;
          deployAccess?: true;
        },
      ) => {
        const result = await createMember(connectionOf(flags), {
          organizationId: flags.org,
          emailAddress: flags.email,
          displayName: flags.name,
          memberType: flags.type ?? null,
          deployAccess: flags.deployAccess === true,
        });
        printResult(result, flags, renderCreatedMember, io);
      },
    );

  adminSubcommand(members, 'list', 'List the members of an organization with their ids and deploy access')
    .requiredOption('--org <organizationId>', 'the organization (`wfapi orgs list` shows the ids)')
    .action(async (flags: AdminFlags & { org: string }) => {
      printResult(await listMembers(connectionOf(flags), flags.org), flags, renderMembers, io);
    });

  adminSubcommand(members, 'deploy-access <memberId>', "Approve or revoke a member's deploy access")
    .addOption(new Option('--approve', 'grant deploy access').conflicts('revoke'))
    .addOption(new Option('--revoke', 'withdraw deploy access: the member keys are refused with 403'))
    .action(async (memberId: string, flags: AdminFlags & { approve?: true; revoke?: true }) => {
      if (!flags.approve && !flags.revoke) throw new CliError('pass --approve or --revoke', EXIT.USAGE);
      printResult(
        await setDeployAccess(connectionOf(flags), memberId, flags.approve === true),
        flags,
        renderDeployAccess,
        io,
      );
    });
}
