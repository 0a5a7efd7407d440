import type { EventEmitter } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import type { CliIo } from './io.js';
import { packageVersion } from './package-version.js';
import { colorsEnabled } from './render/colors.js';

/**
 * Each folder of commands/ holds one command: `cli.ts` exports `register(program, io)`, whose
 * actions write through `io` and read their environment from it.
 */
export interface CommandModule {
  register(program: Command, io: CliIo): void;
}

type Env = CliIo['env'];

/**
 * A command whose options' environment variables (`.env('WFAPI_URL')`) come from the run's
 * environment instead of process.env, for itself and every subcommand made with `.command()`.
 * Commander has no public way to give a command its environment: this replaces the one method
 * that reads it (`_parseOptionsEnv`, commander 13), keeping its rule: a variable fills an option
 * that the command line did not set.
 */
class CliCommand extends Command {
  constructor(
    name: string | undefined,
    private readonly env: Env,
  ) {
    super(name);
  }

  override createCommand(name?: string): Command {
    return new CliCommand(name, this.env);
  }

  _parseOptionsEnv(): void {
    for (const option of this.options) {
      const value = option.envVar === undefined ? undefined : this.env[option.envVar];
      if (value === undefined) continue;
      const key = option.attributeName();
      const source = this.getOptionValueSource(key);
      if (this.getOptionValue(key) !== undefined && !['default', 'config', 'env'].includes(source ?? '')) {
        continue;
      }
      // Commander's commands are event emitters; its types do not say so.
      const events = this as unknown as EventEmitter;
      if (option.required || option.optional) events.emit(`optionEnv:${option.name()}`, value);
      else events.emit(`optionEnv:${option.name()}`);
    }
  }
}

if (!('_parseOptionsEnv' in Command.prototype)) {
  throw new Error(
    'commander no longer reads option environment variables in _parseOptionsEnv: see CliCommand',
  );
}

const COMMANDS_DIR = new URL('./commands/', import.meta.url);
/** The width of help off a terminal (commander's own default). */
const HELP_WIDTH = 80;
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
export async function buildProgram(argv: readonly string[], io: CliIo): Promise<Command> {
  const program = new CliCommand('wfapi', io.env)
    .description('wfapi: a self-hostable GraphQL read API for a workflow platform')
    .version(packageVersion(), '-V, --version', 'print the version of wfapi')
    .showHelpAfterError()
    // Options are read by the command they follow, so a subcommand (`export traces`) may take
    // options of the same name as its parent's.
    .enablePositionalOptions()
    .exitOverride()
    // Help, --version and usage errors go to the run's streams, coloured as its own output is.
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      getOutHelpWidth: () => (io.stdout.isTTY && io.stdout.columns ? io.stdout.columns : HELP_WIDTH),
      getErrHelpWidth: () => (io.stderr.isTTY && io.stderr.columns ? io.stderr.columns : HELP_WIDTH),
      getOutHasColors: () => colorsEnabled(io.stdout, io.env),
      getErrHasColors: () => colorsEnabled(io.stderr, io.env),
    });
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
      result.value.register(program, io);
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
