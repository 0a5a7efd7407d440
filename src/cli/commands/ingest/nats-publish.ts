/**
 * `wfapi ingest FILE --nats URL --organization ID`: publishes the lines to the JetStream subject
 * `wfapi.ingest.<organizationId>` instead of POSTing them, a batch of lines per message, each
 * publish confirmed by JetStream. Each message carries its first line number (rejections are
 * reported against the file's lines) and a Nats-Msg-Id derived from its content and place, so a
 * message published twice (a retry, the same command run again) is stored once within the
 * stream's duplicate window; beyond it, ingestion's own idempotency changes nothing.
 */
import { createHash } from 'node:crypto';
import { type JetStreamClient, jetstreamManager, type PubAck } from '@nats-io/jetstream';
import { connect, headers, type MsgHdrs, type NatsConnection, TimeoutError } from '@nats-io/transport-node';
import {
  ensureStreams,
  FIRST_LINE_HEADER,
  ingestSubject,
  rejectedSubject,
} from '../../../ingest/nats-jetstream.js';
import type { NdjsonLine } from '../../../ingest/ndjson-lines.js';
import { awaitWorkerReports, type WorkerReports } from './worker-reports.js';

/** Lines per message unless --chunk-lines says otherwise; a message also stays within the server's max_payload. */
export const DEFAULT_NATS_CHUNK_LINES = 1000;
/** Room left in a message for its headers and protocol overhead. */
const HEADER_ROOM = 4096;
/** Publishes awaiting JetStream's acknowledgement at once. */
const WINDOW = 32;

export interface NatsTarget {
  readonly natsUrl: string;
  readonly organizationId: string;
  readonly chunkLines: number;
  /**
   * How long to wait, once everything is published, for the worker to process the messages and
   * report their rejected lines (`--wait`); 0 or absent: do not wait.
   */
  readonly waitMs?: number;
}

export interface NatsPublishProgress {
  /** Lines read so far (published or rejected here). */
  lines: number;
  /** Lines rejected here (too long, not UTF-8). */
  rejected: number;
}

export interface NatsPublishResult {
  readonly subject: string;
  /** Where the worker reports the lines it rejects. */
  readonly rejectedSubject: string;
  /** Lines in messages JetStream stored (or already held: see duplicates). */
  readonly published: number;
  readonly messages: number;
  /** Messages JetStream already held under the same Nats-Msg-Id (a re-run within its duplicate window). */
  readonly duplicates: number;
  /** Lines that could not be sent at all; they are sent as blank lines, to keep line numbers. */
  readonly rejected: ReadonlyArray<{ line: number; error: string }>;
  readonly rejectedCount: number;
  /** What the worker reported of these messages, when the command waited for it. */
  readonly worker?: WorkerReports;
}

/** Thrown when publishing stops; the messages confirmed before are stored, and a re-run is safe. */
export class NatsPublishError extends Error {
  override name = 'NatsPublishError';
  constructor(
    message: string,
    readonly publishedLines: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const messageId = (subject: string, firstLine: number, body: Uint8Array) =>
  createHash('sha256').update(`${subject}\n${firstLine}\n`).update(body).digest('hex');

/** Attempts at one publish that JetStream does not confirm in time (a busy server); the same id makes a retry safe. */
const PUBLISH_ATTEMPTS = 5;
const PUBLISH_TIMEOUT_MS = 10_000;

async function publishConfirmed(
  js: JetStreamClient,
  subject: string,
  body: Uint8Array,
  options: { msgID: string; headers: MsgHdrs },
): Promise<PubAck> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await js.publish(subject, body, { ...options, timeout: PUBLISH_TIMEOUT_MS });
    } catch (error) {
      if (!(error instanceof TimeoutError) || attempt >= PUBLISH_ATTEMPTS) throw error;
    }
  }
}

export async function publishNdjson(
  target: NatsTarget,
  lines: AsyncIterable<NdjsonLine>,
  onProgress?: (progress: NatsPublishProgress) => void,
): Promise<NatsPublishResult> {
  const subject = ingestSubject(target.organizationId);
  const startedAt = Date.now();
  const sequences = new Set<number>();
  let worker: WorkerReports | undefined;
  let nc: NatsConnection;
  try {
    nc = await connect({ servers: target.natsUrl.split(',').map((url) => url.trim()), name: 'wfapi-ingest' });
  } catch (error) {
    throw new NatsPublishError(`cannot reach NATS at ${target.natsUrl}: ${(error as Error).message}`, 0, {
      cause: error,
    });
  }
  const encoder = new TextEncoder();
  const maxBytes = Math.max(1024, (nc.info?.max_payload ?? 1024 * 1024) - HEADER_ROOM);
  const rejected: Array<{ line: number; error: string }> = [];
  let published = 0;
  let messages = 0;
  let duplicates = 0;
  let read = 0;
  try {
    const jsm = await jetstreamManager(nc);
    await ensureStreams(jsm);
    const js: JetStreamClient = jsm.jetstream();
    const inFlight = new Set<Promise<void>>();
    let failure: unknown;

    const publish = (parts: Uint8Array[], bytes: number, firstLine: number, count: number) => {
      const body = new Uint8Array(bytes);
      let offset = 0;
      for (const part of parts) {
        body.set(part, offset);
        offset += part.length;
      }
      const h = headers();
      h.set(FIRST_LINE_HEADER, String(firstLine));
      const sent: Promise<void> = publishConfirmed(js, subject, body, {
        msgID: messageId(subject, firstLine, body),
        headers: h,
      })
        .then(
          (ack) => {
            messages++;
            sequences.add(ack.seq);
            if (ack.duplicate) duplicates++;
            published += count;
          },
          (error: unknown) => {
            failure ??= error;
          },
        )
        .finally(() => inFlight.delete(sent));
      inFlight.add(sent);
    };

    let parts: Uint8Array[] = [];
    let bytes = 0;
    let count = 0;
    let firstLine = 1;
    const flush = async () => {
      if (count > 0) publish(parts, bytes, firstLine, count);
      parts = [];
      bytes = 0;
      count = 0;
      while (inFlight.size >= WINDOW) await Promise.race(inFlight);
      if (failure) throw failure;
    };

    for await (const line of lines) {
      read = line.line;
      let encoded: Uint8Array;
      if ('error' in line) {
        rejected.push({ line: line.line, error: line.error });
        encoded = encoder.encode('\n');
      } else {
        encoded = encoder.encode(`${line.text}\n`);
        if (encoded.length > maxBytes) {
          rejected.push({
            line: line.line,
            error: `line is longer than the NATS server's message limit (${maxBytes} bytes)`,
          });
          encoded = encoder.encode('\n');
        }
      }
      if (count > 0 && bytes + encoded.length > maxBytes) await flush();
      if (count === 0) firstLine = line.line;
      parts.push(encoded);
      bytes += encoded.length;
      count++;
      if (count >= target.chunkLines) await flush();
      onProgress?.({ lines: read, rejected: rejected.length });
    }
    await flush();
    await Promise.all(inFlight);
    if (failure) throw failure;
    if (target.waitMs && sequences.size > 0) {
      worker = await awaitWorkerReports(jsm, {
        organizationId: target.organizationId,
        sequences,
        startedAt,
        waitMs: target.waitMs,
      });
    }
  } catch (error) {
    throw new NatsPublishError(
      `publishing to ${target.natsUrl} failed: ${(error as Error).message}`,
      published,
      { cause: error },
    );
  } finally {
    await nc.close();
  }
  return {
    subject,
    rejectedSubject: rejectedSubject(target.organizationId),
    published,
    messages,
    duplicates,
    rejected,
    rejectedCount: rejected.length,
    ...(worker ? { worker } : {}),
  };
}
