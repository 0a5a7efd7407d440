/**
 * The thread of the demo's background load (see background-load.ts): it simulates the windows
 * it is given and stores them through the database served to it on a port, so that neither the
 * simulation nor the COPY text it makes holds up the server's requests.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { portDatabase } from '../../../db/embedded/port-database.js';
import { createWorld, type SimulationPlan } from '../../../simulate/index.js';
import type { Interval } from './coverage.js';
import { BACKGROUND_BATCH_RECORDS, loadWindows } from './loader.js';

export interface LoadJob {
  readonly port: MessagePort;
  readonly plan: SimulationPlan;
  readonly windows: readonly Interval[];
  /** Executions that start from this instant get every node's log lines; older ones a few. */
  readonly fullDetailFrom: number;
}

export type LoadProgress =
  | { readonly window: Interval }
  | { readonly done: true; readonly executions: number }
  | { readonly failed: string };

const job = workerData as LoadJob;
const parent = parentPort!;
const stop = new AbortController();
parent.on('message', (message: 'stop') => {
  if (message === 'stop') stop.abort();
});
const db = portDatabase(job.port);
try {
  const counts = await loadWindows(db, createWorld(job.plan), job.windows, {
    signal: stop.signal,
    batchRecords: BACKGROUND_BATCH_RECORDS,
    detail: (started) => (started >= job.fullDetailFrom ? 'full' : 'compact'),
    onWindow: (window) => parent.postMessage({ window } satisfies LoadProgress),
  });
  parent.postMessage({ done: true, executions: counts.execution } satisfies LoadProgress);
} catch (error) {
  parent.postMessage({
    failed: error instanceof Error ? error.message : String(error),
  } satisfies LoadProgress);
} finally {
  await db.close();
  parent.close();
}
