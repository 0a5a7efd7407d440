import cliProgress from 'cli-progress';
import type { IngestCommandProgress } from './main.js';

export interface ProgressBar {
  update(progress: IngestCommandProgress): void;
  /** A line of text above the bar (a retry notice). */
  note(text: string): void;
  stop(): void;
}

/**
 * A terminal progress bar: records sent, their rate and the rejected count, with a bar over the
 * file's bytes when the size is known (not for standard input).
 */
export function createProgressBar(stream: NodeJS.WriteStream): ProgressBar {
  const started = performance.now();
  let bar: cliProgress.SingleBar | undefined;
  let stopped = false;
  return {
    update(progress) {
      if (stopped) return;
      const seconds = Math.max((performance.now() - started) / 1000, 0.001);
      const payload = {
        records: progress.lines,
        rate: Math.round(progress.lines / seconds),
        rejected: progress.rejected,
      };
      if (bar) {
        bar.update(progress.bytes, payload);
        return;
      }
      const counters = '{records} records | {rate} records/s | {rejected} rejected';
      bar = new cliProgress.SingleBar(
        {
          stream,
          format: progress.totalBytes ? `{bar} {percentage}% | ${counters}` : counters,
          hideCursor: true,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(progress.totalBytes ?? 0, progress.bytes, payload);
    },
    note(text) {
      stream.write(`\n${text}\n`);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      bar?.stop();
    },
  };
}
