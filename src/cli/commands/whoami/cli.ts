import type { Command } from 'commander';
import { type ConnectionOptions, withClient, withConnectionOptions } from '../../client-options.js';
import type { CliIo } from '../../io.js';
import { stdoutPalette } from '../../render/colors.js';
import { roleAndStatus } from '../../render/member-role.js';
import { writeJson, writeText } from '../../render/output.js';
import { renderFields } from '../../render/table.js';
import { formatInstant } from '../../time-input.js';
import { type Whoami, whoami } from './main.js';

export function register(program: Command, io: CliIo): void {
  withConnectionOptions(
    program.command('whoami').description('Show the member and organization of the API key'),
  ).action(
    withClient(
      async (client, options: ConnectionOptions) => {
        const result = await whoami(client);
        if (options.json) writeJson(io, result);
        else writeText(io, render(result, io));
      },
      (options) => options,
    ),
  );
}

function render({ endpoint, account, organization }: Whoami, io: CliIo): string {
  const p = stdoutPalette(io);
  return renderFields(
    [
      ['member', account ? `${p.bold(account.displayName)} <${account.emailAddress}>` : ''],
      ['member id', account?.memberId ?? ''],
      ...(account ? roleAndStatus(account) : [['role', ''] as [string, string]]),
      [
        'organization',
        organization ? `${p.bold(organization.displayName)} (${organization.organizationId})` : '',
      ],
      [
        'access',
        organization
          ? `${organization.restrictionStatus}, ${organization.activeStatus}, tenant ${organization.tenantId}`
          : '',
      ],
      ['member since', account ? formatInstant(account.createdAt) : ''],
      ['endpoint', endpoint],
    ],
    p,
  );
}
