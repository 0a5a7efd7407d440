/**
 * The wire form of a record (contract section 3): one JSON object a line, field names as in the
 * record, times as RFC 3339 UTC with milliseconds, absent values as null.
 * `parseRecord(JSON.parse(toNdjsonLine(record)))` gives the record back. Written by hand rather
 * than with JSON.stringify of the whole object because Date#toJSON dominated generation time;
 * times within one minute share their formatted prefix.
 */
import type { IngestRecord } from '../ingest/records.js';

let minuteStart = Number.NaN;
let minutePrefix = '';

function isoTime(date: Date): string {
  const ms = date.getTime();
  const offset = ms - minuteStart;
  if (!(offset >= 0 && offset < 60_000)) {
    minuteStart = ms - (((ms % 60_000) + 60_000) % 60_000);
    minutePrefix = new Date(minuteStart).toISOString().slice(0, 17);
  }
  const within = ms - minuteStart;
  const seconds = Math.floor(within / 1000);
  const millis = within % 1000;
  return `${minutePrefix}${seconds < 10 ? '0' : ''}${seconds}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
}

export function toNdjsonLine(record: IngestRecord): string {
  let line = '{';
  for (const [key, value] of Object.entries(record)) {
    if (line.length > 1) line += ',';
    line += `"${key}":`;
    if (value instanceof Date) line += `"${isoTime(value)}"`;
    else if (typeof value === 'string') line += JSON.stringify(value);
    else line += JSON.stringify(value ?? null);
  }
  return `${line}}`;
}
