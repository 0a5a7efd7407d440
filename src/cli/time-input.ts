import { InvalidArgumentError } from 'commander';
import { formatDuration, parseDuration } from '../lib/duration.js';
import { parseInstant } from '../lib/instant.js';
import { formatTime } from '../lib/time.js';

export { formatDuration, parseDuration, parseInstant };

/** A commander parser for a duration option (`--lag 5m`). */
export function durationOption(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined)
    throw new InvalidArgumentError('Expected a duration such as 30s, 15m, 24h, 7d or 2w.');
  return ms;
}

/** A commander parser for `--since` and `--until`. */
export function instantOption(text: string): Date {
  const instant = parseInstant(text);
  if (!instant) {
    throw new InvalidArgumentError(
      'Expected a duration back from now (30d, 24h, 90m), a date (2026-03-01) or a date-time with an offset (2026-03-01T12:00:00Z).',
    );
  }
  return instant;
}

/** `2026-03-01 14:32:18Z` (milliseconds only when not zero): compact, sortable, unambiguous. */
export function formatInstant(time: string | Date): string {
  const date = typeof time === 'string' ? new Date(time) : time;
  return Number.isNaN(date.getTime()) ? String(time) : formatTime(date).replace('T', ' ');
}

/** How long something took, or `running` while it has no end. */
export function elapsed(startedAt: string, finishedAt: string | null | undefined): string {
  return finishedAt ? formatDuration(Date.parse(finishedAt) - Date.parse(startedAt)) : 'running';
}
