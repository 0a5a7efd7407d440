/**
 * Rejection reports cut to the NATS server's message limit: a report of thousands of long reasons
 * once exceeded it, failed to publish, and left its ingest message unacknowledged forever.
 */
import type { JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { headers } from '@nats-io/transport-node';
import {
  DEAD_BODY_HEADER,
  DEAD_DELIVERIES_HEADER,
  DEAD_REASON_HEADER,
  DEAD_SEQUENCE_HEADER,
  deadSubject,
  INGEST_STREAM,
  MSG_ID_HEADER,
  organizationOfSubject,
  type RejectedMessage,
  rejectedSubject,
} from './nats-jetstream.js';

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

/** Room left in a report part for its headers and the protocol's overhead, under the server's max_payload. */
const REPORT_HEADER_ROOM = 4096;

const oneLine = (text: string): string => text.replace(/[\r\n]+/g, ' ');

/** Publishes a worker's reports and dead letters, each keyed by its ingest message so a retry stores it once. */
export function reportPublisher(js: JetStreamClient, maxPayload: number) {
  const maxBytes = Math.max(1024, maxPayload - REPORT_HEADER_ROOM);

  /** The report of `message` on its organization's rejected subject, in parts under the limit. */
  const publish = async (
    message: JsMsg,
    fields: { rejectedCount: number; deadLetter?: RejectedMessage['deadLetter'] },
    rejected: readonly Rejection[],
  ): Promise<void> => {
    const base = {
      subject: message.subject,
      sequence: message.seq,
      msgId: message.headers?.get(MSG_ID_HEADER) || null,
      ...fields,
    };
    for (const part of reportParts(base, rejected, maxBytes)) {
      await js.publish(rejectedSubject(organizationOfSubject(message.subject)), JSON.stringify(part), {
        msgID: `${INGEST_STREAM}-${message.seq}-${part.part}`,
      });
    }
  };

  /**
   * `message`, its headers and why it failed, on the dead-letter subject; then its report. A
   * message too large to carry the extra headers goes without its body (the headers say so).
   */
  const deadLetter = async (message: JsMsg, reason: string, deliveries: number): Promise<void> => {
    const subject = deadSubject(organizationOfSubject(message.subject));
    const h = headers();
    for (const [key, values] of message.headers ?? []) for (const value of values) h.append(key, value);
    h.set(DEAD_REASON_HEADER, oneLine(reason).slice(0, 1000));
    h.set(DEAD_DELIVERIES_HEADER, String(deliveries));
    h.set(DEAD_SEQUENCE_HEADER, String(message.seq));
    const options = { headers: h, msgID: `${INGEST_STREAM}-${message.seq}` };
    let body = message.data;
    if (body.length > maxBytes) {
      h.set(DEAD_BODY_HEADER, `omitted: ${body.length} bytes do not fit beside these headers`);
      body = new Uint8Array();
    }
    await js.publish(subject, body, options);
    await publish(message, { rejectedCount: 0, deadLetter: { subject, reason, deliveries } }, []);
  };

  return { publish, deadLetter };
}
