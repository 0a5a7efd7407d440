import { type Command, InvalidArgumentError } from 'commander';
import { formatTime, parseTime } from '../../../lib/time.js';
import { type AdminFlags, adminSubcommand, connectionOf, printResult } from '../../admin-command.js';
import type { CliIo } from '../../io.js';
import {
  createApiKey,
  listApiKeys,
  renderApiKeys,
  renderCreatedApiKey,
  renderRevokedApiKey,
  revokeApiKey,
} from './main.js';

/** Checked here so that a mistyped time is a usage error before anything is sent. */
function rfc3339(value: string): string {
  const time = parseTime(value);
  if (!time)
    throw new InvalidArgumentError('expected an RFC 3339 time with an offset, e.g. 2027-01-31T00:00:00Z');
  return formatTime(time);
}

export function register(program: Command, io: CliIo): void {
  const keys = program
    .command('keys')
    .description('Manage API keys through the admin interface of a running server');

  adminSubcommand(keys, 'create', 'Create an API key for a member; the key is printed once and never again')
    .requiredOption('--member <memberId>', 'the member the key acts as')
    .requiredOption('--name <name>', 'a name to recognise the key by')
    .option('--expires-at <time>', 'when the key stops working (RFC 3339); never when absent', rfc3339)
    .action(async (flags: AdminFlags & { member: string; name: string; expiresAt?: string }) => {
      const created = await createApiKey(connectionOf(flags), {
        memberId: flags.member,
        name: flags.name,
        expiresAt: flags.expiresAt ?? null,
      });
      printResult(created, flags, renderCreatedApiKey, io);
    });

  adminSubcommand(keys, 'list', "List an organization's API keys (never their secrets)")
    .requiredOption('--org <organizationId>', 'the organization')
    .action(async (flags: AdminFlags & { org: string }) => {
      printResult(await listApiKeys(connectionOf(flags), flags.org), flags, renderApiKeys, io);
    });

  adminSubcommand(keys, 'revoke <keyId>', 'Revoke an API key at once').action(
    async (keyId: string, flags: AdminFlags) => {
      printResult(await revokeApiKey(connectionOf(flags), keyId), flags, renderRevokedApiKey, io);
    },
  );
}
