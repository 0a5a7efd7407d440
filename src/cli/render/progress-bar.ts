import cliProgress from 'cli-progress';
import type { OutputStream } from '../io.js';

/**
 * The progress bar of every long-running command (ingest, export, simulate): drawn on a
 * terminal only, so pipes, files and tests see nothing of it; notes still reach the stream.
 */
export interface ProgressBar<Payload extends object> {
  /** Starts the bar at `value` of `total` (0: unknown, then `format` should show no bar). */
  start(total: number, value: number, payload: Payload): void;
  /** Moves the bar; ignored before start and after stop. */
  update(value: number, payload: Payload): void;
  /** A line of text for the reader (e.g. a retry notice), above the bar when one is drawn. */
  note(text: string): void;
  /** Removes the bar's cursor handling; safe to call more than once. */
  stop(): void;
}

export interface ProgressBarOptions {
  /** Where the bar is drawn: the run's standard error. */
  readonly stream: OutputStream;
  /** false draws no bar whatever the stream (`--no-progress`). */
  readonly enabled?: boolean;
  /** Clears the bar once stopped. */
  readonly clearOnComplete?: boolean;
  /** Updates the ETA is averaged over (cli-progress's default: 10). */
  readonly etaBuffer?: number;
}

/**
 * A cli-progress bar with `format` (its `{bar}`, `{percentage}`, `{value}`, `{total}`,
 * `{eta_formatted}` and the payload's fields), or the format for a total when it depends on it.
 */
export function progressBar<Payload extends object>(
  format: string | ((total: number) => string),
  options: ProgressBarOptions,
): ProgressBar<Payload> {
  const { stream } = options;
  const shown = options.enabled !== false && stream.isTTY === true;
  let bar: cliProgress.SingleBar | undefined;
  let total = 0;
  let stopped = false;
  return {
    start(barTotal, value, payload) {
      if (!shown || stopped || bar) return;
      total = barTotal;
      bar = new cliProgress.SingleBar(
        {
          stream,
          format: typeof format === 'string' ? format : format(total),
          hideCursor: true,
          ...(options.clearOnComplete ? { clearOnComplete: true } : {}),
          ...(options.etaBuffer ? { etaBuffer: options.etaBuffer } : {}),
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(total, value, payload);
    },
    update(value, payload) {
      if (stopped) return;
      bar?.update(total > 0 ? Math.min(value, total) : value, payload);
    },
    note(text) {
      stream.write(bar && !stopped ? `\n${text}\n` : `${text}\n`);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      bar?.stop();
    },
  };
}
