/** Time windows the views offer; the bucket width is the API's choice for the range. */
export const WINDOWS = {
  '1h': 3_600_000,
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
  '30d': 30 * 86_400_000,
} as const;
export type WindowName = keyof typeof WINDOWS;

export function windowParam(params: URLSearchParams, fallback: WindowName = '24h'): WindowName {
  const value = params.get('window');
  return value !== null && Object.hasOwn(WINDOWS, value) ? (value as WindowName) : fallback;
}

/** The window ending now, as the API's Time strings. */
export function windowRange(name: WindowName, now = Date.now()): { from: string; to: string } {
  return { from: new Date(now - WINDOWS[name]).toISOString(), to: new Date(now).toISOString() };
}

/**
 * The window a view states: one of the named windows ending now, or a range chosen on a chart or
 * typed (`from` and `to` in the address, ISO instants). `key` names it for loading: a named window
 * is asked again each refresh with a new end, a range is fixed.
 */
export interface ViewWindow {
  readonly name: WindowName | undefined;
  readonly key: string;
  /** Resolves the window's instants at the moment of asking. */
  readonly range: (now?: number) => { from: string; to: string };
  /** What the address carries to keep this window in another view. */
  readonly params: { window?: string; from?: string; to?: string };
}

function instant(params: URLSearchParams, name: string): string | undefined {
  const value = params.get(name);
  if (!value) return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

export function viewWindow(params: URLSearchParams, fallback: WindowName = '24h'): ViewWindow {
  const from = instant(params, 'from');
  const to = instant(params, 'to');
  if (from && (!to || Date.parse(from) <= Date.parse(to))) {
    return {
      name: undefined,
      key: `${from}..${to ?? 'now'}`,
      range: (now = Date.now()) => ({ from, to: to ?? new Date(now).toISOString() }),
      params: { from, to },
    };
  }
  const name = windowParam(params, fallback);
  return {
    name,
    key: name,
    range: (now = Date.now()) => windowRange(name, now),
    params: { window: name },
  };
}

/** The window's parameters from the address, to carry into links to other views. */
export function keepWindow(params: URLSearchParams): { window?: string; from?: string; to?: string } {
  const kept: { window?: string; from?: string; to?: string } = {};
  for (const name of ['window', 'from', 'to'] as const) {
    const value = params.get(name);
    if (value) kept[name] = value;
  }
  return kept;
}

const local = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const localNamed = new Intl.DateTimeFormat(undefined, {
  dateStyle: 'medium',
  timeStyle: 'long',
});
const SHORT: Intl.DateTimeFormatOptions = {
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
};
const localShort = new Intl.DateTimeFormat(undefined, SHORT);
const utcShort = new Intl.DateTimeFormat(undefined, { ...SHORT, timeZone: 'UTC' });

/** Where the viewer's choice of UTC is remembered between visits. */
const UTC_KEY = 'wfapi-console:times-in-utc';

function storedUtc(): boolean {
  try {
    return localStorage.getItem(UTC_KEY) === 'true';
  } catch {
    return false;
  }
}

let inUtc = typeof localStorage === 'undefined' ? false : storedUtc();

/** Whether absolute times are shown in UTC (else in the viewer's zone): the header's toggle. */
export function timesInUtc(): boolean {
  return inUtc;
}

/** Shows every absolute time in UTC or in the viewer's zone from the next render on, and remembers it. */
export function setTimesInUtc(on: boolean): void {
  inUtc = on;
  try {
    localStorage.setItem(UTC_KEY, String(on));
  } catch {
    // Storage refused (a private window's quota): the choice holds for this page only.
  }
}

/**
 * An instant as the console shows it: in the viewer's zone, or in UTC once the header's toggle
 * says so (the API's own instant, `2026-08-31 14:32:18 UTC`).
 */
export function formatLocal(iso: string, short = false): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  if (inUtc) return short ? `${utcShort.format(date)} UTC` : formatUtc(iso);
  return (short ? localShort : local).format(date);
}

/** The same instant in the zone not shown, for a hover title: UTC, or the viewer's zone named. */
export function formatOtherZone(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return inUtc ? localNamed.format(date) : formatUtc(iso);
}

/** An ISO instant as a datetime-local value to the minute, in the zone times are shown in. */
export function inputValue(iso: string): string {
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  const [year, month, day, hour, minute] = inUtc
    ? [date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate(), date.getUTCHours(), date.getUTCMinutes()]
    : [date.getFullYear(), date.getMonth(), date.getDate(), date.getHours(), date.getMinutes()];
  return `${year}-${pad(month + 1)}-${pad(day)}T${pad(hour)}:${pad(minute)}`;
}

/** A datetime-local value read in the zone times are shown in, as an ISO instant. */
export function instantOfInput(value: string): string {
  return new Date(inUtc ? `${value}Z` : value).toISOString();
}

/** The instant in UTC, exactly as the API answers it: `2026-08-31 14:32:18 UTC`. */
export function formatUtc(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : `${date
        .toISOString()
        .replace('T', ' ')
        .replace(/\.000Z$|Z$/, '')} UTC`;
}

/** A duration in milliseconds as people read it: 840 ms, 12.4 s, 3 min 05 s. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return minutes < 60
    ? `${minutes} min ${String(seconds).padStart(2, '0')} s`
    : `${(minutes / 60).toFixed(1)} h`;
}

/** How long ago, coarsely: 12 s, 4 min, 3 h, 2 d. */
export function formatAge(iso: string, now = Date.now()): string {
  const ms = Math.max(0, now - Date.parse(iso));
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 86_400_000) return `${Math.round(ms / 3_600_000)} h`;
  return `${Math.round(ms / 86_400_000)} d`;
}

/** A share as a percentage with one decimal, or – when there is nothing to divide. */
export function formatRate(part: number, whole: number): string {
  return whole === 0 ? '–' : `${((part / whole) * 100).toFixed(1)} %`;
}

const counts = new Intl.NumberFormat(undefined);

/** A count with the viewer's thousands separators: 24,693. */
export function formatCount(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : counts.format(value);
}

/** How long ago or how far ahead, in words: "3 h ago", "in 2 min". */
export function formatAgo(iso: string, now = Date.now()): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const age = formatAge(new Date(Math.min(at, 2 * now - at)).toISOString(), now);
  return at <= now ? `${age} ago` : `in ${age}`;
}

/** An instant no later than now (a chosen range may end in the bucket still filling). */
export function clampToNow(iso: string, now = Date.now()): string {
  return Date.parse(iso) > now ? new Date(now).toISOString() : iso;
}

/** A credit amount with its unit: the API's exact decimal, then "credit" or "credits". */
export function formatCredits(amount: string | number | null | undefined): string {
  if (amount === null || amount === undefined || amount === '') return '–';
  return `${amount} ${Number(amount) === 1 ? 'credit' : 'credits'}`;
}
