import cliProgress from 'cli-progress';
import type { ExportProgress } from './main.js';

export interface ProgressBar extends ExportProgress {
  stop(): void;
}

/** A progress bar on standard error (only when it is a terminal), counting executions. */
export function progressBar(kind: string, enabled: boolean): ProgressBar {
  if (!enabled) return { start() {}, update() {}, stop() {} };
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: `${kind} {bar} {percentage}% | {value}/{total} executions | {rows} rows | ETA {eta_formatted}`,
      hideCursor: true,
      clearOnComplete: true,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    start(total) {
      bar.start(total, 0, { rows: 0 });
      started = true;
    },
    update(executions, rows) {
      if (started) bar.update(Math.min(executions, bar.getTotal()), { rows });
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
