/**
 * Rejection reports cut to the NATS server's message limit: a report of thousands of long reasons
 * once exceeded it, failed to publish, and left its ingest message unacknowledged forever.
 */
import type { RejectedMessage } from './nats-jetstream.js';

type Rejection = { line: number; error: string };
type ReportBase = Omit<RejectedMessage, 'rejected' | 'part' | 'parts'>;

const encoder = new TextEncoder();
const bytesOf = (value: unknown): number => encoder.encode(JSON.stringify(value)).length;

/**
 * The report of one ingest message as parts of at most `maxBytes` of JSON each, listing
 * `rejected` in order across them (at least one part, even with nothing listed). A reason too
 * long to fit a part by itself is cut.
 */
export function reportParts(
  base: ReportBase,
  rejected: readonly Rejection[],
  maxBytes: number,
): RejectedMessage[] {
  // The part numbers are written at their widest, so filling a part never overshoots.
  const room = maxBytes - bytesOf({ ...base, rejected: [], part: 1e9, parts: 1e9 });
  const lists: Rejection[][] = [[]];
  let used = 0;
  for (const rejection of rejected) {
    let entry = rejection;
    let size = bytesOf(entry) + 1;
    if (size > room) {
      entry = { line: rejection.line, error: rejection.error.slice(0, Math.max(0, Math.floor(room / 8))) };
      size = bytesOf(entry) + 1;
    }
    if (used + size > room && lists.at(-1)!.length > 0) {
      lists.push([]);
      used = 0;
    }
    lists.at(-1)!.push(entry);
    used += size;
  }
  return lists.map((list, index) => ({ ...base, rejected: list, part: index + 1, parts: lists.length }));
}
