/**
 * wfapi as a child process, for what needs a process of its own (a server, signals, the shipped
 * bin) and for the benchmarks: a free port, `startWfapi` to start a command and watch its output,
 * `runCliProcess` for a command that runs to its end, `waitUntilReady` for a server. Commands
 * that simply run to their end run in the test's process instead (cli.ts). Imports nothing but
 * Node, so bench/ may use it too.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The CLI from source, run through tsx. */
const SOURCE_CLI = join(ROOT, 'src/cli/dev.ts');
/** The CLI as deployed: `bin/wfapi.js` over dist/ (build it first). */
export const COMPILED_CLI = join(ROOT, 'bin/wfapi.js');
/**
 * The CLI the tests run: the compiled one when scripts/test.mjs has made sure dist/ is built from
 * the sources as they are (WFAPI_TEST_CLI=compiled: it starts in half the CPU time), else the
 * sources through tsx (a file run on its own).
 */
const TEST_CLI = process.env.WFAPI_TEST_CLI === 'compiled' ? COMPILED_CLI : SOURCE_CLI;
/** Node's arguments that run the test CLI: `[...cliArgs(), command, ...]`. */
export const cliArgs = (): string[] =>
  TEST_CLI === SOURCE_CLI ? ['--import', 'tsx', SOURCE_CLI] : [TEST_CLI];

/** A TCP port on 127.0.0.1 that nothing listened on a moment ago. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', resolve);
  });
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * This process's environment without any WFAPI_* or colour setting, plus `extra`: a child's
 * connection and colours then come only from what the test passes.
 */
export function cleanEnv(extra: Readonly<Record<string, string | undefined>> = {}): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('WFAPI_') && name !== 'NO_COLOR' && name !== 'FORCE_COLOR',
    ),
  );
  return { ...inherited, ...extra };
}

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface StartOptions {
  /** The child's whole environment (default: `cleanEnv()`). */
  readonly env?: NodeJS.ProcessEnv;
  /** Written to standard input, which is then closed; without it standard input is ignored. */
  readonly stdin?: string;
  /** Node flags before the script, e.g. `--max-old-space-size=96`. */
  readonly nodeOptions?: readonly string[];
  /** Runs this script (e.g. COMPILED_CLI or another checkout's) instead of the sources through tsx. */
  readonly cli?: string;
  /** SIGKILLs the process if it still runs after this long. */
  readonly timeoutMs?: number;
  /** Sees standard output and error as they arrive, chunk by chunk. */
  readonly onOutput?: (chunk: string) => void;
}

/** Which output `waitFor` reads: `output` is standard output and error together. */
export type Stream = 'stdout' | 'stderr' | 'output';

export interface WfapiProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Standard output and error together, in the order they arrived. */
  output(): string;
  /** Resolves once the process has exited (never rejects). */
  readonly exited: Promise<Exit>;
  /**
   * Resolves with the first match of `pattern` on `stream` (default stdout); rejects when the
   * process exits first or after `timeoutMs` (default: no limit).
   */
  waitFor(pattern: RegExp, timeoutMs?: number, stream?: Stream): Promise<RegExpMatchArray>;
  /** Resolves with the exit code and all output once the process has exited. */
  result(): Promise<CliResult>;
  /** Sends `signal` (default SIGKILL) if the process still runs, and waits for it to exit. */
  kill(signal?: NodeJS.Signals): Promise<Exit>;
}

/** Starts `wfapi <args>` as a child process with its output captured. */
export function startWfapi(args: readonly string[], options: StartOptions = {}): WfapiProcess {
  const cli = options.cli ? [options.cli] : cliArgs();
  const child = spawn(process.execPath, [...(options.nodeOptions ?? []), ...cli, ...args], {
    cwd: ROOT,
    env: options.env ?? cleanEnv(),
    stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  child.stdin?.end(options.stdin);
  const text = { stdout: '', stderr: '', output: '' };
  /** Called after every chunk, on either stream. */
  const listeners = new Set<() => void>();
  const reader = (stream: 'stdout' | 'stderr') => (chunk: string) => {
    text[stream] += chunk;
    text.output += chunk;
    options.onOutput?.(chunk);
    for (const listener of listeners) listener();
  };
  child.stdout!.setEncoding('utf8').on('data', reader('stdout'));
  child.stderr!.setEncoding('utf8').on('data', reader('stderr'));
  const timer =
    options.timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
  const exited = new Promise<Exit>((resolve) => {
    // 'close' comes after the output streams have ended, so all output has been read.
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      text.stderr += String(error);
      resolve({ code: null, signal: null });
    });
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    child,
    exited,
    stdout: () => text.stdout,
    stderr: () => text.stderr,
    output: () => text.output,
    waitFor(pattern, timeoutMs, stream = 'stdout') {
      return new Promise((resolve, reject) => {
        let limit: NodeJS.Timeout | undefined;
        const settle = (outcome: () => void) => {
          listeners.delete(check);
          clearTimeout(limit);
          outcome();
        };
        function check() {
          const match = pattern.exec(text[stream]);
          if (match) settle(() => resolve(match));
        }
        if (timeoutMs !== undefined) {
          limit = setTimeout(
            () =>
              settle(() =>
                reject(
                  new Error(
                    `no ${pattern} on ${stream} within ${timeoutMs} ms; stderr: ${text.stderr.slice(-2000)}`,
                  ),
                ),
              ),
            timeoutMs,
          );
        }
        listeners.add(check);
        check();
        void exited.then(() => {
          if (!listeners.has(check)) return;
          check();
          if (listeners.has(check)) {
            settle(() => reject(new Error(`exited before ${pattern}; stderr: ${text.stderr.slice(-2000)}`)));
          }
        });
      });
    },
    async result() {
      const { code } = await exited;
      return { code, stdout: text.stdout, stderr: text.stderr };
    },
    async kill(signal = 'SIGKILL') {
      if (running()) child.kill(signal);
      return exited;
    },
  };
}

/**
 * Runs `wfapi <args>` in a child process to its end, as a user would from a shell: stdout and
 * stderr are pipes, so no colours and no progress bar unless `env` asks for them; `stdin` is its
 * standard input. The connection comes only from `env` (see cleanEnv). Killed after `timeoutMs`.
 */
export function runCliProcess(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
  stdin = '',
  timeoutMs = 60_000,
): Promise<CliResult> {
  return startWfapi(args, { env: cleanEnv(env), stdin, timeoutMs }).result();
}

/**
 * Resolves once `<url>/readyz` answers 200, polling every `everyMs`; rejects (and SIGKILLs the
 * process) when the process exits first or `timeoutMs` passes.
 */
export async function waitUntilReady(
  server: WfapiProcess,
  url: string,
  { timeoutMs = 30_000, everyMs = 100 }: { timeoutMs?: number; everyMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { exitCode } = server.child;
    if (exitCode !== null)
      throw new Error(`wfapi exited ${exitCode} before it was ready: ${server.stderr()}`);
    const ready = await fetch(`${url}/readyz`).then(
      (response) => response.status === 200,
      () => false,
    );
    if (ready) return;
    if (Date.now() > deadline) {
      await server.kill();
      throw new Error(`wfapi was not ready at ${url} after ${timeoutMs} ms: ${server.stderr()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
