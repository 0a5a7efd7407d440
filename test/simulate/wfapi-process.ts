import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The environment of a child: the test's own, without any WFAPI_* setting, plus `env`. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('WFAPI_')),
  );
  return { ...inherited, NO_COLOR: '1', ...env };
}

export interface WfapiProcess {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` on stdout, or rejects after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code once the process has ended. */
  exited(): Promise<number | null>;
}

/**
 * Starts a long-running `wfapi <args>` (the demo, `simulate --live`) from source as a child
 * process, to watch its output while it runs and stop it with a signal; commands that run to
 * their end use runCli (harness/cli.ts).
 */
export function startWfapi(args: readonly string[], env: Record<string, string> = {}): WfapiProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/dev.ts', ...args], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exit = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited: () => exit,
    waitFor(pattern, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(stdout);
          if (!match) return false;
          clearTimeout(timer);
          child.stdout.off('data', check);
          resolve(match);
          return true;
        };
        const timer = setTimeout(() => {
          child.stdout.off('data', check);
          reject(new Error(`no ${pattern} on stdout within ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}`));
        }, timeoutMs);
        if (!check()) child.stdout.on('data', check);
        exit.then(() => {
          if (!check()) {
            clearTimeout(timer);
            reject(new Error(`exited before ${pattern}; stderr: ${stderr.slice(-2000)}`));
          }
        }, reject);
      });
    },
  };
}
