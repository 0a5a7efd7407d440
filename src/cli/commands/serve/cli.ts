import type { Command } from 'commander';
import type { CliIo } from '../../io.js';
import { serve } from './main.js';

export function register(program: Command, io: CliIo): void {
  program
    .command('serve')
    .description('Start the API server (PostgreSQL when DATABASE_URL is set, else the embedded database)')
    .option('-p, --port <port>', 'port to listen on (env PORT, default 4000)')
    .option('-H, --host <host>', 'interface to listen on (env HOST, default 127.0.0.1)')
    .action(async (options: { port?: string; host?: string }) => {
      await serve(io, options);
    });
}
