import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = fileURLToPath(new URL('../../bin/wfapi.js', import.meta.url));

let built = false;
/**
 * The server runs as deployed: the compiled CLI (`bin/wfapi.js` over dist/), built once per
 * benchmark process from the current sources. (Run through tsx it would carry the compiler:
 * about 80 MB more resident memory.)
 */
function buildOnce(): void {
  if (built) return;
  const result = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`npm run build failed with ${result.status}`);
  built = true;
}

/** The real server as its own process, as deployed, with its resident memory sampled. */
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
    options: {
      command?: 'serve' | 'demo';
      timeoutMs?: number;
      onOutput?: (text: string) => void;
      /** Another checkout's `bin/wfapi.js` (already built), to measure an earlier version side by side. */
      cli?: string;
      /** Another server altogether: the script and arguments run instead of the CLI (it must answer /readyz). */
      script?: readonly string[];
    } = {},
  ): Promise<ServerProcess> {
    if (!options.cli && !options.script) buildOnce();
    // BENCH_SERVER_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles the server.
    const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
    const child = spawn(
      process.execPath,
      [
        ...nodeArgs,
        ...(options.script ?? [options.cli ?? CLI, options.command ?? 'serve', '--port', String(port)]),
      ],
      {
        env: { ...process.env, WFAPI_LOG_LEVEL: 'warn', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const output = (chunk: Buffer) => options.onOutput?.(chunk.toString());
    child.stdout!.on('data', output);
    child.stderr!.on('data', output);
    const url = `http://127.0.0.1:${port}`;
    // A fresh embedded database runs initdb first: seconds on a quiet machine, far more on a busy one.
    const deadline = Date.now() + (options.timeoutMs ?? 180_000);
    for (let ready = false; !ready; ) {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`server not ready at ${url} after ${options.timeoutMs ?? 180_000} ms`);
      }
      ready = await fetch(`${url}/readyz`).then(
        (response) => response.ok,
        () => false,
      );
      if (!ready) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const server = new ServerProcess(child, url);
    server.sampler = setInterval(() => server.sample(), 250);
    return server;
  }

  private sample(): void {
    this.maxRssMb = Math.max(this.maxRssMb, this.rssMb);
  }

  /** Resident memory now, in MB (0 once the process is gone). */
  get rssMb(): number {
    try {
      const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    } catch {
      return 0;
    }
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
