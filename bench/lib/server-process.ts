import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../src/cli/dev.ts', import.meta.url));

/** The real server as its own process (as deployed), with its resident memory sampled. */
export class ServerProcess {
  private maxRssMb = 0;
  private sampler: NodeJS.Timeout | undefined;

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  /**
   * `command` is `serve` or `demo`; `onOutput` receives its standard output and error (else they
   * are dropped). Resolves once /readyz answers.
   */
  static async start(
    env: Record<string, string>,
    port: number,
    options: { command?: 'serve' | 'demo'; timeoutMs?: number; onOutput?: (text: string) => void } = {},
  ): Promise<ServerProcess> {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CLI, options.command ?? 'serve', '--port', String(port)],
      { env: { ...process.env, WFAPI_LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const output = (chunk: Buffer) => options.onOutput?.(chunk.toString());
    child.stdout!.on('data', output);
    child.stderr!.on('data', output);
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + (options.timeoutMs ?? 30_000);
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
      try {
        if ((await fetch(`${url}/readyz`)).ok) break;
      } catch {}
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const server = new ServerProcess(child, url);
    server.sampler = setInterval(() => server.sample(), 250);
    return server;
  }

  private sample(): void {
    try {
      const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      this.maxRssMb = Math.max(this.maxRssMb, kb / 1024);
    } catch {}
  }

  /** Highest resident memory seen since start, in MB. */
  get peakRssMb(): number {
    this.sample();
    return this.maxRssMb;
  }

  async stop(): Promise<void> {
    clearInterval(this.sampler);
    this.child.kill('SIGTERM');
    await new Promise((resolve) => this.child.once('exit', resolve));
  }
}
