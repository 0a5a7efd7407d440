import { CommanderError } from 'commander';
import { buildProgram } from './program.js';

/** Exit codes scripts can rely on. */
export const EXIT = {
  OK: 0,
  /** A failure of the operation: server error, rejected lines, unreachable server. */
  FAILURE: 1,
  /** Wrong usage: unknown command, bad flag, missing argument. */
  USAGE: 2,
  /** The API key was refused (401) or may not read this (403). */
  AUTH: 3,
  /** The named workflow, deployment or execution does not exist or is not visible to the key. */
  NOT_FOUND: 4,
  /** The server could not be reached, timed out, was unavailable or kept rate limiting: retry later. */
  UNAVAILABLE: 5,
} as const;

/** A failure to report as one line and an exit code, without a stack trace. */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: number = EXIT.FAILURE,
  ) {
    super(message);
  }
}

export async function run(argv: readonly string[]): Promise<number> {
  const program = await buildProgram();
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
