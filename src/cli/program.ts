import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { packageVersion } from './package-version.js';

/** Each folder of commands/ holds one command: `cli.ts` exports `register(program)`. */
export interface CommandModule {
  register(program: Command): void;
}

const COMMANDS_DIR = new URL('./commands/', import.meta.url);
/** The program's own version option, which needs no command loaded. */
const VERSION_FLAGS: readonly string[] = ['-V', '--version'];

/**
 * The program with its commands. Given the arguments, and when the first names a command, only
 * that command's module is loaded: a client command then starts without importing the server,
 * the embedded database and the simulator (about 50 ms of imports instead of 900 on the
 * compiled CLI). `--version` (`-V`) alone loads none: it only prints the version. Anything else
 * (no command, another option, `help`, an unknown name) loads them all, so that help lists every
 * command and an unknown name is refused with the whole list.
 */
export async function buildProgram(argv: readonly string[] = []): Promise<Command> {
  const program = new Command('wfapi')
    .description('wfapi: a self-hostable GraphQL read API for a workflow platform')
    .version(packageVersion(), '-V, --version', 'print the version of wfapi')
    .showHelpAfterError()
    // Options are read by the command they follow, so a subcommand (`export traces`) may take
    // options of the same name as its parent's.
    .enablePositionalOptions()
    .exitOverride();
  // A folder without its cli file (e.g. one still being written) is not a command.
  const names = readdirSync(fileURLToPath(COMMANDS_DIR), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .filter((name) =>
      ['cli.js', 'cli.ts'].some((file) => existsSync(new URL(`./${name}/${file}`, COMMANDS_DIR))),
    )
    .sort();
  const first = argv[0] ?? '';
  const named = VERSION_FLAGS.includes(first) ? [] : names.includes(first) ? [first] : names;
  // Loaded together; a command whose module fails to load is reported when it is run, and never
  // takes the other commands (serve among them) down with it.
  const loaded = await Promise.allSettled(
    named.map((name) => import(new URL(`./${name}/cli.js`, COMMANDS_DIR).href) as Promise<CommandModule>),
  );
  loaded.forEach((result, index) => {
    if (result.status === 'fulfilled') {
      result.value.register(program);
      return;
    }
    const name = named[index]!;
    const reason = result.reason instanceof Error ? result.reason.message : String(result.reason);
    program
      .command(name)
      .description(`(unavailable: it failed to load)`)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(() => {
        throw new Error(`the ${name} command failed to load: ${reason.split('\n')[0]}`);
      });
  });
  return program;
}
