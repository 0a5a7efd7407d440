import type { AbortWatch } from '../db/database.js';
import { type AppError, unavailable } from '../errors.js';

/**
 * A request's time limit: it aborts, as the request's AbortWatch, with the time-limit error once
 * `ms` have passed. Its timer is armed only when work waits (a `run` given a promise) or a
 * statement listens for the abort, and its set of listeners only in the second case: a request
 * answered without waiting (`{ __typename }`, or a cached authentication of a trivial query)
 * needs neither, and the limit's clock still counts from the request's start.
 */
export class TimeLimit implements AbortWatch {
  /**
   * Called once when the limit passes: a set rather than an AbortController, which is dearer to
   * make and warns past ten listeners (a request's statements may each listen).
   */
  private listeners: Set<() => void> | undefined;
  private hasPassed = false;
  private readonly deadline: number;
  private timer: NodeJS.Timeout | undefined;
  /** Rejects with the time-limit error when the limit passes; every `run` that waits races it. */
  private expired: Promise<never> | undefined;
  private expire: ((error: AppError) => void) | undefined;
  private timeLimitError: AppError | undefined;

  constructor(private readonly ms: number) {
    this.deadline = performance.now() + ms;
  }

  /**
   * Starts the timer, once, for what is left of the limit, in whole milliseconds: Node keeps one
   * list of timers per distinct duration, and a fractional remainder would give nearly every
   * request a list of its own (measured: one execution 8% slower at 16 connections).
   */
  private arm(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(
      () => {
        this.hasPassed = true;
        const listeners = this.listeners;
        this.listeners = undefined;
        for (const listener of listeners ?? []) listener();
        this.expire?.(this.error);
      },
      Math.max(1, Math.ceil(this.deadline - performance.now())),
    );
  }

  private get whenExpired(): Promise<never> {
    if (this.expired === undefined) {
      this.expired = new Promise<never>((_, reject) => {
        this.expire = reject;
      });
      // Not every request races it (an error may end it first): its rejection is never unhandled.
      this.expired.catch(() => {});
      this.arm();
    }
    return this.expired;
  }

  /** Made when first needed: an error captures a stack, a cost most requests never need to pay. */
  get error(): AppError {
    this.timeLimitError ??= unavailable(`The request exceeded its time limit of ${this.ms} ms`);
    return this.timeLimitError;
  }

  get aborted(): boolean {
    return this.hasPassed;
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    // Like an AbortSignal, an abort already past calls no listener added after it.
    if (this.hasPassed) return;
    this.arm();
    this.listeners ??= new Set();
    this.listeners.add(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    this.listeners?.delete(listener);
  }

  get passed(): boolean {
    return this.hasPassed || performance.now() > this.deadline;
  }

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
  }

  /**
   * Runs `work` under the limit: the answer comes when the limit passes, the request's database
   * statements being cancelled meanwhile (it is their AbortWatch, see Database.abortable). A read that
   * completed late is still not reported as a success (the timer may fire late when the embedded
   * database runs on this thread, as in tests). A mutation that did complete is reported as
   * done, since its effects are committed and a retry would repeat them.
   */
  async run<T>(work: () => Promise<T> | T, isRead: boolean): Promise<T> {
    // A limit already past starts no more work (its statements would be refused anyway).
    if (this.hasPassed) throw this.error;
    const pending = work();
    const result = pending instanceof Promise ? await Promise.race([pending, this.whenExpired]) : pending;
    if (isRead && this.passed) throw this.error;
    return result;
  }
}
