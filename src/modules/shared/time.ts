/** RFC 3339 date-time with a mandatory offset (`Z` or `±hh:mm`), fractional seconds optional. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * The instants the service accepts: years 0001 to 9999 in UTC, the range RFC 3339 can write with
 * a `Z` and that both database drivers send exactly (Go's zero time, 0001-01-01T00:00:00Z, included).
 */
export const MIN_TIME = Date.parse('0001-01-01T00:00:00Z');
export const MAX_TIME = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * Parses an RFC 3339 timestamp into a Date (millisecond precision), or returns undefined when
 * the text is not one: wrong shape, missing offset, an impossible date such as 2026-02-30, or an
 * instant outside MIN_TIME..MAX_TIME once its offset is applied.
 */
export function parseTime(text: string): Date | undefined {
  const match = RFC3339.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  if (mo! < 1 || mo! > 12 || d! < 1 || h! > 23 || mi! > 59 || s! > 60) return undefined;
  const daysInMonth = new Date(Date.UTC(y!, mo!, 0)).getUTCDate();
  if (d! > daysInMonth) return undefined;
  const ms = Date.parse(text.replace(' ', 'T'));
  return Number.isNaN(ms) || ms < MIN_TIME || ms > MAX_TIME ? undefined : new Date(ms);
}

/** `2026-08-31T14:32:18Z`, with milliseconds only when they are not zero. */
export function formatTime(date: Date): string {
  const iso = date.toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
