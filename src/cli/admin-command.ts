import { type Command, Option } from 'commander';
import { type AdminConnection, adminEndpoint } from './admin-client.js';
import { DEFAULT_URL } from './client-options.js';
import { CliError, EXIT } from './exit-codes.js';
import type { CliIo } from './io.js';
import { type Palette, stdoutPalette } from './render/colors.js';
import { writeJson, writeText } from './render/output.js';

/** The flags every command talking to the admin interface of a running server shares. */
export interface AdminFlags {
  url: string;
  adminToken?: string | undefined;
  json?: boolean | undefined;
}

/** Adds a subcommand with `--url` (WFAPI_URL), `--admin-token` (WFAPI_ADMIN_TOKEN) and `--json`. */
export function adminSubcommand(parent: Command, nameAndArgs: string, description: string): Command {
  return parent
    .command(nameAndArgs)
    .description(description)
    .addOption(
      new Option('--url <url>', 'base URL of the running wfapi server').env('WFAPI_URL').default(DEFAULT_URL),
    )
    .addOption(
      new Option(
        '--admin-token <token>',
        "the server's admin token (prefer the environment variable: flags show in process lists)",
      ).env('WFAPI_ADMIN_TOKEN'),
    )
    .option('--json', 'print the result as JSON instead of text');
}

/** Checks the connection flags before anything is sent; a problem is a usage error. */
export function connectionOf(flags: AdminFlags): AdminConnection {
  const endpoint = adminEndpoint(flags.url);
  if (!endpoint) {
    throw new CliError(`--url must be an http(s) URL such as ${DEFAULT_URL}, got "${flags.url}"`, EXIT.USAGE);
  }
  if (!flags.adminToken) {
    throw new CliError('no admin token: set WFAPI_ADMIN_TOKEN or pass --admin-token', EXIT.USAGE);
  }
  return { endpoint, token: flags.adminToken };
}

/** JSON with `--json`; else the command's text, coloured only on a terminal (see render/colors.ts). */
export function printResult<T>(
  result: T,
  flags: AdminFlags,
  render: (result: T, p: Palette) => string,
  io: CliIo,
): void {
  if (flags.json) writeJson(io, result);
  else writeText(io, render(result, stdoutPalette(io)));
}
