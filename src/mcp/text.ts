import { formatDuration } from '../lib/duration.js';

/** Summaries' wording: times with their zone, durations and rates a person reads at a glance. */

/** `2026-05-04 10:00:00 UTC` (milliseconds only when not zero); `never` for none. */
export function timeText(iso: string | null | undefined): string {
  if (!iso) return 'never';
  return `${iso.replace('T', ' ').replace('Z', '')} UTC`;
}

/** `850ms`, `2.95s`, `4m 05s`; `-` for none. */
export function msText(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '-' : formatDuration(ms);
}

/** `12.5%`; `-` for none. */
export function percentText(rate: number | null | undefined): string {
  return rate === null || rate === undefined ? '-' : `${Number((rate * 100).toFixed(1))}%`;
}

/** `1 execution`, `3 executions`. */
export function plural(count: number, word: string, words = `${word}s`): string {
  return `${count} ${count === 1 ? word : words}`;
}
