import type { Command } from 'commander';
import { type ConnectionOptions, withClient, withConnectionOptions } from '../../client-options.js';
import { type CliIo, stdinOf } from '../../io.js';
import { serveMcpOverStdio } from './main.js';

export function register(program: Command, io: CliIo): void {
  withConnectionOptions(
    program
      .command('mcp')
      .description(
        'Serve the MCP tools (docs/mcp.md) over stdio for a local AI agent, reading through a running server (--url) with an API key',
      ),
    { json: false },
  ).action(
    withClient(
      async (client) => {
        await serveMcpOverStdio(client, { stdin: stdinOf(io), stdout: io.stdout, stderr: io.stderr });
      },
      (options: ConnectionOptions) => options,
    ),
  );
}
