import { DAY, HOUR, MINUTE } from './time.js';

/** Units of a duration such as `30d`, `24h`, `90m`, `1h30m`. */
const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: MINUTE, h: HOUR, d: DAY, w: 7 * DAY };
const DURATION = /^(?:\d+(?:ms|s|m|h|d|w))+$/;
const PART = /(\d+)(ms|s|m|h|d|w)/g;

/** Milliseconds of a duration like `30d` or `1h30m`; undefined when the text is not one. */
export function parseDuration(text: string): number | undefined {
  const compact = text.trim().toLowerCase();
  if (!DURATION.test(compact)) return undefined;
  let total = 0;
  for (const [, amount, unit] of compact.matchAll(PART)) total += Number(amount) * UNITS[unit!]!;
  return total;
}

/** Whole seconds as the shortest duration text parseDuration reads back: `90` -> `1m30s`, `3600` -> `1h`. */
export function durationText(seconds: number): string {
  const parts: string[] = [];
  let rest = seconds;
  for (const [unit, name] of [
    [86_400, 'd'],
    [3600, 'h'],
    [60, 'm'],
    [1, 's'],
  ] as const) {
    if (rest >= unit) {
      parts.push(`${Math.floor(rest / unit)}${name}`);
      rest %= unit;
    }
  }
  return parts.join('') || '0s';
}

/** A short human duration: `850ms`, `2.95s`, `4m 05s`, `2h`, `3d 04h`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < MINUTE) return `${Number((ms / 1000).toFixed(2))}s`;
  const [unit, name, subunit, subname] =
    ms < HOUR ? [MINUTE, 'm', 1000, 's'] : ms < DAY ? [HOUR, 'h', MINUTE, 'm'] : [DAY, 'd', HOUR, 'h'];
  const rest = Math.floor((ms % unit) / subunit);
  return `${Math.floor(ms / unit)}${name}${rest ? ` ${String(rest).padStart(2, '0')}${subname}` : ''}`;
}
