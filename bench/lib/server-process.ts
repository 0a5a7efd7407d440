import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import {
  COMPILED_CLI,
  ROOT,
  startWfapi,
  type WfapiProcess,
  waitUntilReady,
} from '../../test/harness/process.js';
import { processCpuMs } from './cpu-time.js';

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
    private readonly server: WfapiProcess,
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
      /** Another server altogether: a TypeScript script and its arguments, run instead of the CLI (it must answer /readyz). */
      script?: { path: string; args: readonly string[] };
      /** The server's clock starts here (a dataset's end) instead of the real time: see lib/dataset-clock.mjs. */
      clockStart?: Date;
    } = {},
  ): Promise<ServerProcess> {
    if (!options.cli && !options.script) buildOnce();
    // BENCH_SERVER_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles the server.
    const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
    const clock = options.clockStart
      ? {
          args: ['--import', new URL('./dataset-clock.mjs', import.meta.url).href],
          env: { BENCH_CLOCK_START_MS: String(options.clockStart.getTime()) },
        }
      : { args: [], env: {} };
    // Another server: its script (run through tsx) and arguments, started the same way as the CLI.
    const [cli, args, loader] = options.script
      ? [options.script.path, options.script.args, ['--import', 'tsx']]
      : [options.cli ?? COMPILED_CLI, [options.command ?? 'serve', '--port', String(port)], []];
    const child = startWfapi(args, {
      cli,
      nodeOptions: [...nodeArgs, ...clock.args, ...loader],
      env: { ...process.env, WFAPI_LOG_LEVEL: 'warn', ...clock.env, ...env },
      ...(options.onOutput ? { onOutput: options.onOutput } : {}),
    });
    const url = `http://127.0.0.1:${port}`;
    // A fresh embedded database runs initdb first: seconds on a quiet machine, far more on a busy one.
    await waitUntilReady(child, url, { timeoutMs: options.timeoutMs ?? 180_000, everyMs: 200 });
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
      const status = readFileSync(`/proc/${this.server.child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    } catch {
      return 0;
    }
  }

  /** The server's process id (e.g. to read its CPU time). */
  get pid(): number | undefined {
    return this.server.child.pid;
  }

  /**
   * CPU time the process has used so far (user and system, all its threads), in ms, at the
   * kernel's 10 ms tick: over a run of seconds it is what requests cost the server, whatever
   * else shares the machine (throughput on a shared machine measures the neighbours too).
   */
  get cpuMs(): number {
    return processCpuMs(this.pid ?? -1) ?? Number.NaN;
  }

  /** Highest resident memory seen since start, in MB. */
  get peakRssMb(): number {
    this.sample();
    return this.maxRssMb;
  }

  async stop(): Promise<void> {
    clearInterval(this.sampler);
    await this.server.kill('SIGTERM');
  }
}
