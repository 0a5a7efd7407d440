/**
 * wfapi's command line run inside the test's own process: `runCli` runs a command to its end
 * through run() (src/cli/run.ts) with its own standard output and error, captured as strings, its
 * own environment and standard input, as a user would from a shell with pipes (no colours, no
 * progress bar unless the environment asks). A run costs no Node start and no module loading
 * after the first; the commands that hold a process until it is stopped (serve, demo,
 * ingest-worker) still run as child processes (process.ts), as does test/cli/bin.test.ts,
 * which proves the shipped bin/wfapi.js.
 */
import { Readable, Writable } from 'node:stream';
import type { CliIo } from '../../src/cli/io.js';
import { run } from '../../src/cli/run.js';
import { type CliResult, cleanEnv, runCliProcess } from './process.js';

/** Commands that serve until a signal ends their process: they run only as child processes. */
const PROCESS_COMMANDS: ReadonlySet<string> = new Set(['serve', 'demo', 'ingest-worker']);

/** A pipe's end that keeps what is written to it as text. */
class TextSink extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: (error?: Error | null) => void) {
    this.text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    done();
  }
}

export interface MemoryIo {
  readonly io: CliIo;
  stdout(): string;
  stderr(): string;
}

/**
 * Streams for one run: standard output and error kept as text (pipes: not terminals), `stdin`
 * as standard input, `env` as the whole environment; no signals.
 */
export function memoryIo(env: Readonly<Record<string, string | undefined>>, stdin = ''): MemoryIo {
  const stdout = new TextSink();
  const stderr = new TextSink();
  return {
    io: { stdout, stderr, stdin: Readable.from(stdin === '' ? [] : [Buffer.from(stdin)]), env },
    stdout: () => stdout.text,
    stderr: () => stderr.text,
  };
}

/**
 * Runs `wfapi <args>` to its end, in this process (a command that serves: as a child process).
 * The environment is this process's without any WFAPI_* or colour setting, plus `env`
 * (cleanEnv), so the connection comes only from what the test passes; `stdin` is standard input.
 * Rejects when the command has not ended after `timeoutMs`.
 */
export async function runCli(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
  stdin = '',
  timeoutMs = 60_000,
): Promise<CliResult> {
  if (PROCESS_COMMANDS.has(args[0] ?? '')) {
    return runCliProcess(args, env, stdin, timeoutMs);
  }
  const streams = memoryIo(cleanEnv(env), stdin);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `wfapi ${args.join(' ')} had not ended after ${timeoutMs} ms; stderr: ${streams.stderr()}`,
          ),
        ),
      timeoutMs,
    );
  });
  try {
    const code = await Promise.race([run(args, streams.io), timeout]);
    return { code, stdout: streams.stdout(), stderr: streams.stderr() };
  } finally {
    clearTimeout(timer);
  }
}
