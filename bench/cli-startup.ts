/**
 * How long the command line takes to start, as a linked `wfapi` runs it (`bin/wfapi.js` over
 * the compiled dist/).
 *
 *   node --import tsx bench/cli-startup.ts [--runs 9] [--npx]
 *
 * Each run spawns, in turn: bare `node -e 0` (the floor: Node's own start on this machine),
 * `wfapi --version` (spawn to exit), and `wfapi workflows` against a running server (the
 * compiled `wfapi serve` on a fresh embedded database, with an organization and key made through
 * /admin/graphql), whose start-up is the time from spawn until the first byte of its first
 * request reaches a TCP relay in front of the server; its whole run (spawn to exit) is printed
 * beside it. Each command runs under `sh`, whose `times` gives the CPU it used: on a machine
 * shared with other work the wall-clock time is mostly the wait for a core, the CPU time what
 * the command costs (the shell adds a few milliseconds to the wall clock). `--npx` adds
 * `npx wfapi --version` from the checkout (npm's way, not the README's: one untimed call first,
 * which installs the checkout into npm's npx cache). Prints the median, lowest and highest of
 * the runs beside the targets, and writes bench/results/cli-startup.{json,md}.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ADMIN_TOKEN, adminTenant } from '../test/admin/admin-request.js';
import { COMPILED_CLI, cleanEnv, freePort, ROOT } from '../test/harness/process.js';
import { commandLine } from './lib/command-line.js';
import { processCpuMs } from './lib/cpu-time.js';
import { ServerProcess } from './lib/server-process.js';
import { median } from './lib/stats.js';

const { values: args } = parseArgs({
  options: { runs: { type: 'string', default: '9' }, npx: { type: 'boolean', default: false } },
});
const runs = Number(args.runs);
const command = commandLine('node --import tsx bench/cli-startup.ts');

/** What one run of a command took: wall-clock ms from spawn to exit, and the CPU it used. */
interface Timing {
  readonly wallMs: number;
  /** User plus system CPU time of the command (its process and any children), in ms. */
  readonly cpuMs: number;
}

/**
 * Runs `file args` under `sh`, whose `times` then reports the CPU the command used (10 ms
 * ticks): on a machine shared with other work, the wall-clock time is mostly the wait for a
 * core, the CPU time is what the command costs. Throws unless the command exits 0.
 */
function timedRun(file: string, argv: readonly string[], env: NodeJS.ProcessEnv = cleanEnv()) {
  const started = performance.now();
  const script = '"$@" >/dev/null; status=$?; times >&2; exit $status';
  const child = spawn('/bin/sh', ['-c', script, 'sh', file, ...argv], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return {
    started,
    /** CPU ms the command itself (the shell's child) has used so far, while it runs. */
    cpuSoFar(): number | undefined {
      const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim();
      return children === '' ? undefined : processCpuMs(Number(children.split(' ')[0]));
    },
    exited: new Promise<Timing>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code) => {
        const wallMs = performance.now() - started;
        // `times` prints the shell's own user and system time, then its children's: `0m0.080000s 0m0.020000s`.
        const children = /(\d+)m([\d.]+)s (\d+)m([\d.]+)s\s*$/.exec(stderr);
        if (code !== 0 || !children) {
          reject(new Error(`${file} ${argv.join(' ')} exited with ${code}: ${stderr}`));
          return;
        }
        const [, um, us, sm, ss] = children.map(Number) as [number, number, number, number, number];
        resolve({ wallMs, cpuMs: (um * 60 + us + sm * 60 + ss) * 1000 });
      });
    }),
  };
}

/**
 * A TCP relay to `target` on a port of its own that records when the first byte of a client's
 * request arrives: that moment is when the command sent its first request.
 */
async function relay(targetPort: number) {
  let firstByteAt: number | undefined;
  let onFirstByte: (() => void) | undefined;
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    client.once('data', () => {
      if (firstByteAt === undefined) {
        firstByteAt = performance.now();
        onFirstByte?.();
      }
    });
    client.pipe(upstream).pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.once('error', close).once('close', close);
    upstream.once('error', close).once('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    /**
     * Resolves with the time of the next first byte (after this call), and what `reading`
     * returned at that moment.
     */
    nextFirstByte<T>(reading: () => T): Promise<{ at: number; reading: T }> {
      firstByteAt = undefined;
      return new Promise((resolve) => {
        onFirstByte = () => resolve({ at: firstByteAt!, reading: reading() });
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Sample {
  readonly node: Timing;
  readonly version: Timing;
  /** Spawn until the first byte of the command's first request reached the relay. */
  readonly workflowsFirstRequestMs: number;
  /** CPU ms the command had used by then (read from /proc as the byte arrived). */
  readonly workflowsFirstRequestCpuMs: number;
  readonly workflows: Timing;
  readonly npxVersion?: Timing;
}

const dataDir = mkdtempSync(join(tmpdir(), 'wfapi-cli-startup-'));
const server = await ServerProcess.start(
  { WFAPI_DATA_DIR: dataDir, WFAPI_ADMIN_TOKEN: ADMIN_TOKEN },
  await freePort(),
);
const proxy = await relay(Number(new URL(server.url).port));
const samples: Sample[] = [];
/** The machine's one-minute load average before and after the runs (2 cores here). */
const load = { before: loadavg()[0]!, after: Number.NaN };
try {
  const { key } = await adminTenant(server.url);
  const readEnv = cleanEnv({ WFAPI_URL: proxy.url, WFAPI_API_KEY: key, NO_COLOR: '1' });
  const node = process.execPath;
  if (args.npx) await timedRun('npx', ['wfapi', '--version'], process.env).exited;
  console.log(`# ${command}`);
  for (let i = 0; i < runs; i++) {
    const bare = await timedRun(node, ['-e', '0']).exited;
    const version = await timedRun(node, [COMPILED_CLI, '--version']).exited;
    const run = timedRun(node, [COMPILED_CLI, 'workflows'], readEnv);
    const firstByte = proxy.nextFirstByte(() => run.cpuSoFar());
    const workflows = await run.exited;
    const { at, reading } = await firstByte;
    const workflowsFirstRequestMs = at - run.started;
    const workflowsFirstRequestCpuMs = reading ?? Number.NaN;
    const npxVersion = args.npx
      ? await timedRun('npx', ['wfapi', '--version'], process.env).exited
      : undefined;
    samples.push({
      node: bare,
      version,
      workflowsFirstRequestMs,
      workflowsFirstRequestCpuMs,
      workflows,
      ...(npxVersion === undefined ? {} : { npxVersion }),
    });
    const t = (timing: Timing) => `${timing.wallMs.toFixed(0)} ms (${timing.cpuMs.toFixed(0)} ms CPU)`;
    console.log(
      `run ${i + 1}: node ${t(bare)}; --version ${t(version)}; workflows first request ${workflowsFirstRequestMs.toFixed(0)} ms (${workflowsFirstRequestCpuMs.toFixed(0)} ms CPU), exit ${t(workflows)}` +
        (npxVersion ? `; npx --version ${t(npxVersion)}` : ''),
    );
  }
  load.after = loadavg()[0]!;
} finally {
  await proxy.close();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

interface Row {
  readonly label: string;
  readonly wall: (s: Sample) => number | undefined;
  readonly cpu?: (s: Sample) => number | undefined;
  readonly target?: number;
}
const ROWS: Row[] = [
  { label: '`node -e 0` (Node alone, the floor)', wall: (s) => s.node.wallMs, cpu: (s) => s.node.cpuMs },
  {
    label: '`wfapi --version`, spawn to exit',
    wall: (s) => s.version.wallMs,
    cpu: (s) => s.version.cpuMs,
    target: 300,
  },
  {
    label: '`wfapi workflows`, spawn to its first request sent',
    wall: (s) => s.workflowsFirstRequestMs,
    cpu: (s) => s.workflowsFirstRequestCpuMs,
    target: 500,
  },
  {
    label: '`wfapi workflows`, spawn to exit (answer printed)',
    wall: (s) => s.workflows.wallMs,
    cpu: (s) => s.workflows.cpuMs,
  },
  {
    label: '`npx wfapi --version` (npm 11, not the documented way)',
    wall: (s) => s.npxVersion?.wallMs,
    cpu: (s) => s.npxVersion?.cpuMs,
  },
];
/** Median (lowest / highest) of the samples, or undefined when none has the measure. */
function spread(pick: ((s: Sample) => number | undefined) | undefined) {
  const values = pick ? samples.map(pick).filter((v): v is number => v !== undefined) : [];
  if (values.length === 0) return undefined;
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}
const rows = ROWS.flatMap(({ label, wall, cpu, target }) => {
  const w = spread(wall);
  return w ? [{ label, wall: w, cpu: spread(cpu), target }] : [];
});
const f = (n: { median: number; min: number; max: number } | undefined) =>
  n ? `${n.median.toFixed(0)} (${n.min.toFixed(0)}-${n.max.toFixed(0)})` : '';
const markdown = [
  `Measured ${new Date().toISOString()}: the compiled CLI (\`bin/wfapi.js\`, what a linked \`wfapi\` runs), median (lowest-highest) of ${runs} runs, load average ${load.before.toFixed(1)} before and ${load.after.toFixed(1)} after. Command: \`${command}\`.`,
  '',
  '| measure | wall-clock ms | CPU ms | target ms |',
  '|---|---:|---:|---:|',
  ...rows.map((row) => `| ${row.label} | ${f(row.wall)} | ${f(row.cpu)} | ${row.target ?? ''} |`),
  '',
].join('\n');
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(
  new URL('./results/cli-startup.json', import.meta.url),
  `${JSON.stringify({ command, date: new Date().toISOString(), load, samples, rows }, null, 2)}\n`,
);
writeFileSync(new URL('./results/cli-startup.md', import.meta.url), markdown);
console.log(`\n${markdown}`);
