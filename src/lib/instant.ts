import { parseDuration } from './duration.js';
import { parseTime } from './time.js';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * An instant given as a duration back from `now` (`30d`), `now`, a UTC date (`2026-03-01`) or an
 * RFC 3339 date-time with an offset (`2026-03-01T12:00:00Z`); undefined when the text is none.
 * The command line's `--since`/`--until` and the MCP tools' `from`/`to` read times this way.
 */
export function parseInstant(text: string, now: number = Date.now()): Date | undefined {
  const trimmed = text.trim();
  // Whole seconds, so that instants print without noise; `now` rounds up to include this second.
  if (trimmed.toLowerCase() === 'now') return new Date(Math.ceil(now / 1000) * 1000);
  const ago = parseDuration(trimmed);
  if (ago !== undefined) return new Date(Math.floor((now - ago) / 1000) * 1000);
  return parseTime(DATE_ONLY.test(trimmed) ? `${trimmed}T00:00:00Z` : trimmed);
}
