import { sleep } from '../../../client/retry.js';
import { isEmptyWindow, nextState, planWindow, type StateStore, type WindowRequest } from './export-state.js';
import type { ExportWindow } from './window.js';

/** What one pass over a window wrote. */
export interface WindowResult {
  readonly executions: number;
  /** Records written: lines of output, or spans and log records. */
  readonly rows: number;
  /** Uuids of the executions that started exactly at the window's end (the next boundary). */
  readonly atEnd: readonly string[];
}

export interface ExportSummary {
  readonly window: ExportWindow;
  /** True when nothing has settled since the last run; nothing was written. */
  readonly empty: boolean;
  /**
   * True when the signal stopped the run (SIGINT, SIGTERM): `window.to` is then where the saved
   * state ends (the last accepted execution's start), or undefined when nothing was accepted.
   */
  readonly interrupted?: boolean;
  readonly executions: number;
  readonly rows: number;
}

/** Executions the destination has accepted: what a stream reports as it goes. */
export type Accepted = (
  executions: ReadonlyArray<{ readonly uuid: string; readonly startedAt: string }>,
) => void;

/**
 * One export, whatever it writes: plans its window (from the store when incremental), lets
 * `stream` write the window, and only then advances the store. A run that fails leaves the
 * state as it was, so the next run repeats the whole window rather than skipping any of it.
 * A run stopped by `signal` saves what `stream` reported `accepted` (oldest first), so the next
 * run resumes after it.
 */
export async function exportWindow(
  request: WindowRequest,
  store: StateStore | undefined,
  stream: (window: ExportWindow, accepted: Accepted) => Promise<WindowResult>,
  signal?: AbortSignal,
): Promise<ExportSummary> {
  const state = store === undefined ? undefined : await store.read();
  const window = planWindow(store?.label, state, request);
  if (store !== undefined && isEmptyWindow(window)) return { window, empty: true, executions: 0, rows: 0 };
  let upTo: { ms: number; uuids: string[] } | undefined;
  let count = 0;
  const accepted: Accepted = (executions) => {
    for (const { uuid, startedAt } of executions) {
      const ms = Date.parse(startedAt);
      if (upTo === undefined || ms > upTo.ms) upTo = { ms, uuids: [uuid] };
      else if (ms === upTo.ms) upTo.uuids.push(uuid);
      count++;
    }
  };
  let result: WindowResult;
  try {
    result = await stream(window, accepted);
  } catch (error) {
    if (!signal?.aborted) throw error;
    const to = upTo === undefined ? undefined : new Date(upTo.ms);
    if (store !== undefined && upTo !== undefined) {
      await store.write(nextState(request, { ...window, to }, upTo.uuids));
    }
    return { window: { ...window, to }, empty: false, interrupted: true, executions: count, rows: 0 };
  }
  if (store !== undefined) await store.write(nextState(request, window, result.atEnd));
  return { window, empty: false, executions: result.executions, rows: result.rows };
}

/**
 * `--follow`: an incremental run, then another every `intervalMs` (each from where the last
 * ended, with `now` read afresh), until the signal aborts; resolves then, after the state of
 * the last complete run was saved. A failing run ends the loop with its error.
 */
export async function follow(
  runOnce: (now: number) => Promise<void>,
  intervalMs: number,
  signal: AbortSignal,
): Promise<void> {
  while (!signal.aborted) {
    try {
      await runOnce(Date.now());
      await sleep(intervalMs, signal);
    } catch (error) {
      if (signal.aborted) return;
      throw error;
    }
  }
}
