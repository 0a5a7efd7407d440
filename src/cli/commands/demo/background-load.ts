import { MessageChannel } from 'node:worker_threads';
import type { EmbeddedDatabase } from '../../../db/embedded/embedded-database.js';
import { serveDatabase } from '../../../db/embedded/port-database.js';
import { startWorker } from '../../../lib/worker-thread.js';
import type { SimulationPlan } from '../../../simulate/index.js';
import type { Interval } from './coverage.js';
import type { LoadJob, LoadProgress } from './load-worker.js';

const LOAD_WORKER = new URL('./load-worker.js', import.meta.url);

/**
 * Loads windows of the simulated month on a thread of its own (load-worker.ts), its statements
 * taking turns with the server's on the embedded database: the request thread stays free for
 * requests. Resolves with the executions stored once every window is, or `signal` aborted (the
 * window being loaded then is left unmarked, to be loaded again on the next start).
 */
export function loadInBackground(
  db: EmbeddedDatabase,
  plan: SimulationPlan,
  windows: readonly Interval[],
  options: { signal: AbortSignal; fullDetailFrom: number; onWindow(window: Interval): void },
): Promise<number> {
  const channel = new MessageChannel();
  serveDatabase(channel.port1, db);
  const job: LoadJob = { port: channel.port2, plan, windows, fullDetailFrom: options.fullDetailFrom };
  const worker = startWorker(LOAD_WORKER, { workerData: job, transferList: [channel.port2] });
  const stop = () => worker.postMessage('stop');
  options.signal.addEventListener('abort', stop, { once: true });
  return new Promise<number>((resolve, reject) => {
    let executions = 0;
    worker.on('message', (progress: LoadProgress) => {
      if ('window' in progress) options.onWindow(progress.window);
      else if ('done' in progress) executions = progress.executions;
      else reject(new Error(progress.failed));
    });
    worker.on('error', reject);
    worker.on('exit', () => resolve(executions));
  }).finally(() => {
    options.signal.removeEventListener('abort', stop);
    channel.port1.close();
  });
}
