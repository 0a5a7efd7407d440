import { Readable, type Writable } from 'node:stream';

/** An output stream of the command line: a terminal's says so (isTTY) and how wide it is. */
export type OutputStream = Writable & { readonly isTTY?: boolean; readonly columns?: number };

/** Calls `handler` on the first SIGINT or SIGTERM; the returned function stops listening. */
export type SignalSubscription = (handler: (signal: NodeJS.Signals) => void) => () => void;

/**
 * Everything of the outside world one run of `wfapi` uses: every command writes through these
 * streams and reads its environment from `env`, never from `process`, so that the command line
 * runs the same in a process of its own (bin/wfapi.js passes the process's) and inside another
 * (the tests pass their own streams and environment, and run many commands in one process).
 */
export interface CliIo {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  /** Standard input (`wfapi ingest -`, `wfapi mcp`); none reads as empty. */
  readonly stdin?: Readable | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * How a command that runs until it is stopped (watch, simulate --live, export --follow, ingest,
   * serve, demo, ingest-worker) hears Ctrl-C and SIGTERM: the process's signals, which only
   * bin/wfapi.js passes (processSignals). Without it such a command is never interrupted, and a
   * server started by `serve` is left to the caller.
   */
  readonly onSignal?: SignalSubscription | undefined;
}

/** The run's standard input: without one, an input that ends at once. */
export function stdinOf(io: CliIo): Readable {
  return io.stdin ?? Readable.from([]);
}

/** The process's SIGINT and SIGTERM, for the command started from a shell (bin/wfapi.js). */
export const processSignals: SignalSubscription = (handler) => {
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
};

/** Subscribes `handler` to the run's signals when it has any; the result stops listening. */
export function onSignal(io: CliIo, handler: (signal: NodeJS.Signals) => void): () => void {
  return io.onSignal?.(handler) ?? (() => {});
}

/** The process's own streams, environment and signals: the command as started from a shell. */
export const processIo = (): CliIo => ({
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  onSignal: processSignals,
});
