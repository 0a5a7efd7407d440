import type { Command } from 'commander';
import { type ConnectionOptions, withClient, withConnectionOptions } from '../../client-options.js';
import { serveMcpOverStdio } from './main.js';

export function register(program: Command): void {
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
        await serveMcpOverStdio(client);
      },
      (options: ConnectionOptions) => options,
    ),
  );
}
