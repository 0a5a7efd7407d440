import net from 'node:net';
import { CliError } from '../../exit-codes.js';

/** The one-line reason `serve` gives for a failed listen, wherever it was detected. */
export function listenFailure(error: unknown, host: string, port: number): CliError {
  const code = (error as { code?: string }).code;
  if (code === 'EADDRINUSE') return new CliError(`port ${port} on ${host} is already in use`);
  if (code === 'EACCES') return new CliError(`no permission to listen on ${host}:${port}`);
  const message = error instanceof Error ? error.message : String(error);
  return new CliError(`cannot listen on ${host}:${port}: ${message.split('\n')[0]!.trim()}`);
}

/**
 * Fails fast when the port cannot be bound, before the slow part of starting (opening and
 * migrating the database, which takes seconds for a new embedded database). It only probes:
 * the real listen can still lose a race, and reports through `listenFailure` the same way.
 */
export async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (error) => reject(listenFailure(error, host, port)));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}
