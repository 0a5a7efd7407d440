import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `wfapi <args>` from source as a child process, as a user would from a shell (stdout and
 * stderr are pipes, so no colours and no progress bar unless `env` asks for them; `stdin` is
 * its standard input). The
 * connection comes only from `env`: inherited WFAPI_* and colour variables are removed.
 */
export function runCli(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
  stdin = '',
  /** Sees standard error as it arrives (all of it so far), e.g. to wait for a message. */
  onStderr?: (stderr: string) => void,
): Promise<CliResult> {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('WFAPI_') && name !== 'NO_COLOR' && name !== 'FORCE_COLOR',
    ),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/dev.ts', ...args], {
    cwd: ROOT,
    env: { ...base, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end(stdin);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    onStderr?.(stderr);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
