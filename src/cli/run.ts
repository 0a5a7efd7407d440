import { CommanderError } from 'commander';
import { CliError, EXIT, QuietExit } from './exit-codes.js';
import type { CliIo } from './io.js';
import { buildProgram } from './program.js';

export { type CliIo, processIo } from './io.js';

/**
 * Runs `wfapi <argv>` with `io` as its streams and environment, and resolves with its exit code
 * (EXIT): it never ends the process, so it may run many times in one (the tests do).
 * bin/wfapi.js runs it once with the process's streams, environment and signals.
 */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const program = await buildProgram(argv, io);
    await program.parseAsync(argv as string[], { from: 'user' });
    return EXIT.OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
    }
    if (!(error instanceof QuietExit)) {
      const message = error instanceof Error ? error.message : String(error);
      io.stderr.write(`wfapi: ${message}\n`);
    }
    return error instanceof CliError ? error.exitCode : EXIT.FAILURE;
  }
}
