import { Command, Option } from 'commander';
import { Client, endpointOf, ValidationError } from '../client/index.js';
import { CliError, EXIT } from './exit-codes.js';
import { commandLine, extendedOnlyName } from './hosted-schema.js';
import { cliErrorOf } from './sdk-errors.js';
import { durationOption } from './time-input.js';

/** The options every command that talks to the read API takes. */
export interface ConnectionOptions {
  url: string;
  apiKey?: string | undefined;
  timeout: number;
  json?: boolean | undefined;
}

export const DEFAULT_URL = 'http://127.0.0.1:4000';

/** Adds `--url` (WFAPI_URL), `--api-key` (WFAPI_API_KEY), `--timeout` and (unless told not to) `--json`. */
export function withConnectionOptions(command: Command, { json = true } = {}): Command {
  command
    .addOption(
      new Option('--url <url>', 'the API: a server URL or its GraphQL endpoint')
        .env('WFAPI_URL')
        .default(DEFAULT_URL),
    )
    .addOption(
      new Option('--api-key <key>', 'API key (prefer the environment variable)').env('WFAPI_API_KEY'),
    )
    .addOption(
      new Option('--timeout <duration>', 'time limit of one request attempt')
        .argParser(durationOption)
        .default(30_000, '30s'),
    );
  return json ? command.option('--json', 'print JSON for machines instead of tables') : command;
}

/** A client for the options, or a usage error naming what is missing. */
export function clientOf(options: ConnectionOptions): Client {
  if (!options.apiKey) {
    throw new CliError('no API key: set WFAPI_API_KEY or pass --api-key', EXIT.USAGE);
  }
  try {
    endpointOf(options.url);
  } catch (error) {
    throw new CliError(`--url / WFAPI_URL: ${(error as Error).message}`, EXIT.USAGE);
  }
  return new Client({ url: options.url, apiKey: options.apiKey, timeoutMs: options.timeout });
}

/**
 * Wraps a command action so that any SDK failure ends it with a helpful one-line message and
 * the exit code of its kind (see EXIT).
 */
export function withClient<Args extends unknown[]>(
  action: (client: Client, ...args: Args) => Promise<void>,
  optionsOf: (...args: Args) => ConnectionOptions,
): (...args: Args) => Promise<void> {
  return async (...args) => {
    const client = clientOf(optionsOf(...args));
    try {
      await action(client, ...args);
    } catch (error) {
      const extended = error instanceof ValidationError ? await extendedOnlyName(error) : undefined;
      if (extended) {
        const command = commandLine(args.find((arg): arg is Command => arg instanceof Command));
        throw new CliError(
          `the server at ${client.endpoint} serves the hosted schema (WFAPI_SCHEMA=hosted), which has no ${extended}; ${command} needs the extended schema (the default: start the server without WFAPI_SCHEMA=hosted)`,
          EXIT.USAGE,
        );
      }
      throw cliErrorOf(error, client.endpoint);
    }
  };
}
