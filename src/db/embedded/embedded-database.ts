import { type AbortWatch, type Database, eitherAborted, type Transaction } from '../database.js';
import { canceledError, connectionError } from '../db-errors.js';
import { keepPrivate } from '../private-files.js';
import type { Statement, WorkerOptions } from './protocol.js';
import { runTransaction } from './run-transaction.js';
import { WorkerConnection } from './worker-connection.js';

/** How the worker runs the database: see WorkerOptions. */
export type EmbeddedOptions = Omit<WorkerOptions, 'dataDir'>;

/** A holder of the one connection: what `lease` hands out, for one statement or a transaction. */
export interface Lease {
  /** Runs a statement; with `signal`, aborting it cancels the statement (see EmbeddedDatabase). */
  run(statement: Statement, signal?: AbortWatch): Promise<unknown[]>;
  release(): void;
}

/**
 * How long the server's own statements must have left the connection free before background work
 * may take it. A request's statements come a few milliseconds of JavaScript apart (a list, its
 * count, then its loaders): without the grace, background work took the connection in each gap
 * and the request waited for one background transaction per statement.
 */
const BACKGROUND_GRACE_MS = 20;
/** Background work that has waited this long takes the next free moment, grace or not: never starved. */
const BACKGROUND_MAX_WAIT_MS = 1000;

/**
 * The time the hand-over between the server's statements and background work is measured with:
 * the system's in production, a hand-moved one in tests, so that the grace and the starvation
 * bound are shown exactly however busy the machine is.
 */
export interface HandOverClock {
  /** Milliseconds, monotonic. */
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

const SYSTEM_CLOCK: HandOverClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

/**
 * How long a running statement whose caller aborted may still finish before its worker is
 * replaced: a replacement costs every caller about a second (a new worker opens the data
 * directory), so a statement nearly done is cheaper to let finish (issue 44: one key's requests
 * cut by their time limit replaced the worker again and again, stalling everyone).
 */
const CANCEL_GRACE_MS = 500;

interface Waiter {
  grant(): void;
  readonly signal: AbortWatch | undefined;
  refuse(error: Error): void;
}

/**
 * The embedded database run off the request thread: a worker thread owns PGlite (one
 * connection) and this side hands that connection to one holder at a time, in arrival order:
 * a single statement, or a transaction for its whole length. The request thread only passes
 * messages, so it stays free while statements run (a health check answers during a bulk load).
 *
 * Cancellation: a statement of an aborted caller that has not started is dropped; one that is
 * running cannot be interrupted inside PGlite, so unless it ends within CANCEL_GRACE_MS its
 * worker is terminated and a new one opened
 * on the same data directory (as after a crash, PostgreSQL recovers from its write-ahead log).
 * Callers queued meanwhile wait and then run on the new worker. In memory (`memory://`) a new
 * worker would start empty, so there a running statement is left to finish.
 */
export class EmbeddedDatabase implements Database {
  readonly kind = 'pglite';
  private connection: Promise<WorkerConnection>;
  private held = false;
  /** Waiting for the connection: the server's own statements, then background work. */
  private readonly waiters: Waiter[] = [];
  private readonly background: Waiter[] = [];
  /** When the server's own last lease ended (clock.now()), and the timer that waits out the grace. */
  private lastOwnRelease = Number.NEGATIVE_INFINITY;
  private backgroundTimer: unknown;
  /** Since when the first background waiter has waited. */
  private backgroundSince = 0;
  private closed = false;
  private replaced: WorkerConnection | undefined;
  private readonly onDisk: boolean;

  private readonly dataDir: string;

  private constructor(
    private readonly options: WorkerOptions,
    first: WorkerConnection,
    private readonly clock: HandOverClock,
  ) {
    this.connection = Promise.resolve(first);
    this.dataDir = options.dataDir;
    this.onDisk = !this.dataDir.startsWith('memory://');
  }

  /** Opens PGlite on `dataDir` in a worker thread. */
  static async open(
    dataDir: string,
    options: EmbeddedOptions = {},
    clock: HandOverClock = SYSTEM_CLOCK,
  ): Promise<EmbeddedDatabase> {
    const worker: WorkerOptions = { dataDir, ...options };
    return new EmbeddedDatabase(worker, await WorkerConnection.start(worker), clock);
  }

  /**
   * Waits for the connection, first in first served, except that `background` work (a bulk load)
   * waits until no other is waiting and the server's own statements have left the connection
   * free for BACKGROUND_GRACE_MS: a request then waits for at most the one background
   * transaction running when it came. Refused once `signal` aborts.
   */
  lease(signal?: AbortWatch, background = false): Promise<Lease> {
    if (this.closed) return Promise.reject(connectionError('database is closed'));
    if (signal?.aborted) return Promise.reject(canceledError());
    let released = false;
    const lease: Lease = {
      run: (statement, runSignal) => this.run(statement, runSignal),
      release: () => {
        if (released) return;
        released = true;
        if (!background) this.lastOwnRelease = this.clock.now();
        this.handOver();
      },
    };
    if (!this.held && !(background && this.inGrace())) {
      this.held = true;
      return Promise.resolve(lease);
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        signal,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(lease);
        },
        refuse: reject,
      };
      const queue = background ? this.background : this.waiters;
      const onAbort = () => {
        const index = queue.indexOf(waiter);
        if (index >= 0) queue.splice(index, 1);
        reject(canceledError());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      if (background && queue.length === 0) this.backgroundSince = this.clock.now();
      queue.push(waiter);
      if (!this.held) this.grantBackgroundLater();
    });
  }

  /** Whether background work must still leave the connection to the server's own statements. */
  private inGrace(): boolean {
    const now = this.clock.now();
    const waited = this.background.length > 0 ? now - this.backgroundSince : 0;
    return now - this.lastOwnRelease < BACKGROUND_GRACE_MS && waited < BACKGROUND_MAX_WAIT_MS;
  }

  private handOver(): void {
    const next = this.waiters.shift() ?? (this.inGrace() ? undefined : this.takeBackground());
    if (next) {
      next.grant();
      return;
    }
    this.held = false;
    if (this.background.length > 0) this.grantBackgroundLater();
  }

  private takeBackground(): Waiter | undefined {
    const next = this.background.shift();
    this.backgroundSince = this.clock.now();
    return next;
  }

  /** Grants the first background waiter once the grace has passed, if the connection is still free. */
  private grantBackgroundLater(): void {
    if (this.backgroundTimer !== undefined) return;
    const wait = BACKGROUND_GRACE_MS - (this.clock.now() - this.lastOwnRelease);
    this.backgroundTimer = this.clock.setTimeout(
      () => {
        this.backgroundTimer = undefined;
        if (this.held || this.closed || this.background.length === 0) return;
        if (this.inGrace()) {
          this.grantBackgroundLater();
          return;
        }
        this.held = true;
        this.takeBackground()!.grant();
      },
      Math.max(1, Math.ceil(wait)),
    );
  }

  private async run(statement: Statement, signal?: AbortWatch): Promise<unknown[]> {
    if (signal?.aborted) throw canceledError();
    const connection = await this.current();
    const answer = connection.send(statement);
    if (!signal || !this.onDisk) return answer;
    let grace: NodeJS.Timeout | undefined;
    const onAbort = () => {
      grace = setTimeout(() => void this.replace(connection, canceledError()), CANCEL_GRACE_MS);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await answer;
    } finally {
      signal.removeEventListener('abort', onAbort);
      clearTimeout(grace);
    }
  }

  /** The live worker, opening a new one if the last was lost (crashed, terminated, failed to open). */
  private async current(): Promise<WorkerConnection> {
    const connection = await this.connection.catch(() => undefined);
    if (this.closed) throw connectionError('database is closed');
    if (connection === undefined) {
      this.connection = WorkerConnection.start(this.options);
      return this.connection.catch((error: Error) => {
        throw connectionError(`cannot reopen the embedded database: ${error.message}`, '57P03');
      });
    }
    return connection.isLost ? this.replace(connection) : connection;
  }

  /** Terminates `connection` (its pending statement rejects with `reason`) and opens a new worker. */
  private replace(
    connection: WorkerConnection,
    reason = connectionError('embedded database worker replaced'),
  ): Promise<WorkerConnection> {
    // Only the first caller to notice replaces a worker; later ones wait for the same new one.
    if (this.replaced === connection) return this.connection;
    this.replaced = connection;
    this.connection = (async () => {
      await connection.terminate(reason);
      return WorkerConnection.start(this.options);
    })();
    return this.connection;
  }

  async query<Row>(text: string, params?: readonly unknown[], signal?: AbortWatch): Promise<Row[]> {
    const lease = await this.lease(signal);
    try {
      return (await lease.run({ op: 'query', text, params }, signal)) as Row[];
    } finally {
      lease.release();
    }
  }

  async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    const lease = await this.lease();
    try {
      return await runTransaction((statement) => lease.run(statement), fn);
    } finally {
      lease.release();
    }
  }

  abortable(signal: AbortWatch): Database {
    return {
      kind: this.kind,
      query: (text, params) => this.query(text, params, signal),
      // A transaction writes: it is never cut short, only refused when already aborted.
      transaction: (fn) => (signal.aborted ? Promise.reject(canceledError()) : this.transaction(fn)),
      abortable: (other) => this.abortable(eitherAborted(signal, other)),
      ping: () => this.ping(),
      close: () => this.close(),
    };
  }

  async ping(): Promise<void> {
    await this.query('select 1');
  }

  /** Waits for the statements before it, closes PGlite and ends the worker. */
  async close(): Promise<void> {
    if (this.closed) return;
    const lease = await this.lease();
    this.closed = true;
    this.clock.clearTimeout(this.backgroundTimer);
    for (const waiter of [...this.waiters.splice(0), ...this.background.splice(0)])
      waiter.refuse(connectionError('database is closed'));
    try {
      const connection = await this.connection.catch(() => undefined);
      if (connection && !connection.isLost) {
        await connection.send({ op: 'close' }).catch(() => {});
        await connection.terminate(connectionError('database is closed'));
      }
    } finally {
      lease.release();
      if (this.onDisk) keepPrivate(this.dataDir);
    }
  }
}

/** The embedded database on `dataDir`, in a worker thread (see EmbeddedDatabase). */
export function openEmbedded(
  dataDir: string,
  options?: EmbeddedOptions,
  clock?: HandOverClock,
): Promise<EmbeddedDatabase> {
  return EmbeddedDatabase.open(dataDir, options, clock);
}
