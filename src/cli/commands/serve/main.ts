import { type App, buildApp } from '../../../app.js';
import { type Config, loadConfig } from '../../../config.js';
import { consoleLink } from '../../../console/index.js';
import { CliError } from '../../exit-codes.js';
import { type CliIo, onSignal } from '../../io.js';
import { checkPortFree, listenFailure } from './port-check.js';

export interface ServeFlags {
  port?: string | undefined;
  host?: string | undefined;
}

/** Reads the configuration from the environment, with flags taking precedence. */
export function serveConfig(env: Readonly<Record<string, string | undefined>>, flags: ServeFlags): Config {
  return loadConfig({
    ...env,
    ...(flags.port !== undefined ? { PORT: flags.port } : {}),
    ...(flags.host !== undefined ? { HOST: flags.host } : {}),
  });
}

/**
 * Opens the database and listens. On SIGTERM/SIGINT, which only a run from a shell hears
 * (io.onSignal), it drains in-flight requests and ends the process; a run inside another process
 * leaves the server to its caller.
 */
export async function startServer(config: Config, io: CliIo): Promise<{ app: App; url: string }> {
  await checkPortFree(config.host, config.port);
  let app: App;
  try {
    app = await buildApp(config);
  } catch (error) {
    throw new CliError(`cannot open the database: ${oneLine(error)}`);
  }
  let url: string;
  try {
    url = await app.listen();
  } catch (error) {
    await app.close().catch(() => {});
    throw listenFailure(error, config.host, config.port);
  }
  const stop = (signal: string) => {
    app.server.log.info({ signal }, 'draining in-flight requests');
    // The drain cuts connections at the grace deadline; this bounds what may still run after it
    // (a batch being committed, the database closing).
    setTimeout(() => {
      app.server.log.warn('shutdown grace exceeded; exiting');
      process.exit(1);
    }, app.config.shutdownGraceMs + 2_000).unref();
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  onSignal(io, stop);
  return { app, url };
}

export async function serve(io: CliIo, flags: ServeFlags): Promise<void> {
  let config: Config;
  try {
    config = serveConfig(io.env, flags);
  } catch (error) {
    throw new CliError(oneLine(error), 2);
  }
  const { url } = await startServer(config, io);
  io.stderr.write(
    `wfapi listening on ${url}/graphql (${config.databaseUrl ? 'PostgreSQL' : `embedded database in ${config.dataDir}`}); console at ${consoleLink(url)}\n`,
  );
}

export function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.trim();
}
