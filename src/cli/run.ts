import { CommanderError } from 'commander';
import { CliError, EXIT } from './exit-codes.js';
import { buildProgram } from './program.js';

export async function run(argv: readonly string[]): Promise<number> {
  const program = await buildProgram(argv);
  try {
    await program.parseAsync(argv as string[], { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`wfapi: ${message}\n`);
    return error instanceof CliError ? error.exitCode : EXIT.FAILURE;
  }
}
