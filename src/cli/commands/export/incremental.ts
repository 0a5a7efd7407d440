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
  readonly executions: number;
  readonly rows: number;
}

/**
 * One export, whatever it writes: plans its window (from the store when incremental), lets
 * `stream` write the window, and only then advances the store. A run that fails or is
 * interrupted leaves the state as it was, so the next run repeats the whole window rather than
 * skipping any of it.
 */
export async function exportWindow(
  request: WindowRequest,
  store: StateStore | undefined,
  stream: (window: ExportWindow) => Promise<WindowResult>,
): Promise<ExportSummary> {
  const state = store === undefined ? undefined : await store.read();
  const window = planWindow(store?.label, state, request);
  if (store !== undefined && isEmptyWindow(window)) return { window, empty: true, executions: 0, rows: 0 };
  const result = await stream(window);
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
