import type { Worker } from 'node:worker_threads';
import { startWorker } from '../../lib/worker-thread.js';
import { connectionError } from '../db-errors.js';
import {
  errorFrom,
  type Statement,
  type WorkerOptions,
  type WorkerReply,
  type WorkerRequest,
} from './protocol.js';

const WORKER_MODULE = new URL('./pglite-worker.js', import.meta.url);

type Pending = { resolve(rows: unknown[]): void; reject(error: Error): void };
type Request = Statement | { readonly op: 'close' };

/** One worker thread owning PGlite on a data directory, and the statements sent to it. */
export class WorkerConnection {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private lost: Error | undefined;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (message: WorkerReply) => {
      if (!('id' in message)) return;
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if ('error' in message) waiting?.reject(errorFrom(message.error));
      else waiting?.resolve(message.rows);
    });
    worker.on('error', (error) =>
      this.fail(connectionError(`embedded database worker failed: ${error.message}`)),
    );
    worker.on('exit', () => this.fail(connectionError('embedded database worker exited')));
  }

  /** Starts a worker and resolves once PGlite is open in it (rejects if it cannot be opened). */
  static start(options: WorkerOptions): Promise<WorkerConnection> {
    const worker = startWorker(WORKER_MODULE, { workerData: options });
    return new Promise((resolve, reject) => {
      const early = (error: Error) => reject(error);
      const exited = (code: number) =>
        reject(connectionError(`embedded database worker exited with ${code}`));
      worker.once('error', early);
      worker.once('exit', exited);
      worker.once('message', (message: WorkerReply) => {
        worker.off('error', early);
        worker.off('exit', exited);
        if ('ready' in message) resolve(new WorkerConnection(worker));
        else {
          void worker.terminate();
          reject('failed' in message ? errorFrom(message.failed) : new Error('unexpected worker message'));
        }
      });
    });
  }

  /** Whether the worker is gone (it crashed, exited or was terminated). */
  get isLost(): boolean {
    return this.lost !== undefined;
  }

  send(request: Request): Promise<unknown[]> {
    if (this.lost) return Promise.reject(this.lost);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...request } satisfies WorkerRequest);
    });
  }

  /** Stops the worker at once, whatever it runs; statements sent and unanswered reject with `reason`. */
  async terminate(reason: Error): Promise<void> {
    this.fail(reason);
    await this.worker.terminate();
  }

  private fail(reason: Error): void {
    this.lost ??= reason;
    for (const waiting of this.pending.values()) waiting.reject(reason);
    this.pending.clear();
  }
}
