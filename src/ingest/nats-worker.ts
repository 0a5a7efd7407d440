/**
 * The ingest worker (contract section 6): pulls NDJSON messages from the JetStream stream
 * WFAPI_INGEST through the shared durable consumer, stores their records through the same path
 * as `POST /ingest` (ingestNdjson, so every section 3 rule holds), publishes rejected lines to
 * `wfapi.rejected.<organizationId>`, and acknowledges a message only once its records are
 * durable and its rejections published.
 *
 * Guarantees: a message is acknowledged after its commit, so a worker killed at any moment leaves
 * it unacknowledged and JetStream redelivers it; ingestion is idempotent (uuid records are
 * upserts, log and event lines are keyed by their content), so the redelivery changes nothing
 * already stored. Batches are pulled one at a time, and the next only after the last is
 * acknowledged: a slow database slows consumption, and messages wait in the stream, never in
 * memory. A database failure leaves the batch unacknowledged (negatively, with a delay), never drops it.
 */
import { type JetStreamClient, type JsMsg, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Database } from '../db/database.js';
import { BATCH_BYTES, ingestNdjson } from './ingest-stream.js';
import {
  ensureIngestStreams,
  FIRST_LINE_HEADER,
  INGEST_CONSUMER,
  INGEST_STREAM,
  MSG_ID_HEADER,
  organizationOfSubject,
  type RejectedMessage,
  rejectedSubject,
} from './nats-jetstream.js';

export interface IngestWorkerOptions {
  readonly db: Database;
  /** NATS server URL(s), comma-separated. */
  readonly natsUrl: string;
  /** Messages pulled at once (WFAPI_NATS_BATCH_MESSAGES). */
  readonly batchMessages: number;
  /** The consumer's ack wait (WFAPI_NATS_ACK_WAIT_MS); the worker says it is still working at a third of it. */
  readonly ackWaitMs: number;
  /** Lines per database transaction (WFAPI_INGEST_BATCH_SIZE). */
  readonly batchSize: number;
  /** Told what happens, one line at a time. */
  readonly log?: (line: string) => void;
}

export interface IngestWorkerStats {
  messages: number;
  accepted: number;
  rejected: number;
  /** Batches that failed and were handed back for redelivery. */
  failures: number;
}

export interface IngestWorker {
  readonly stats: Readonly<IngestWorkerStats>;
  /** Finishes the batch in hand, acknowledges it, and closes the NATS connection. */
  stop(): Promise<void>;
  /** Settles when the worker has stopped. */
  readonly stopped: Promise<void>;
}

/** How long a pull waits for a full batch before taking what has come (JetStream's minimum is 1 s). */
const FETCH_EXPIRES_MS = 1000;
/** A failed batch is redelivered after this long, and the worker pauses as long before it pulls again. */
const RETRY_DELAY_MS = 2000;
const NEWLINE = 0x0a;
const NEWLINE_BYTES = new Uint8Array([NEWLINE]);

/** Lines of one message as the NDJSON splitter numbers them (a last line needs no newline). */
function lineCount(data: Uint8Array): number {
  let lines = 0;
  for (let i = data.indexOf(NEWLINE); i !== -1; i = data.indexOf(NEWLINE, i + 1)) lines++;
  return data.length > 0 && data[data.length - 1] !== NEWLINE ? lines + 1 : lines;
}

/** Messages of one subject in stream order, each body ending with a newline, as one NDJSON body. */
async function* joined(messages: readonly JsMsg[]): AsyncGenerator<Uint8Array> {
  for (const { data } of messages) {
    if (data.length === 0) continue;
    yield data;
    if (data[data.length - 1] !== NEWLINE) yield NEWLINE_BYTES;
  }
}

const firstLineOf = (message: JsMsg): number => {
  const value = Number(message.headers?.get(FIRST_LINE_HEADER));
  return Number.isSafeInteger(value) && value > 0 ? value : 1;
};

export async function startIngestWorker(options: IngestWorkerOptions): Promise<IngestWorker> {
  const log = options.log ?? (() => {});
  const nc: NatsConnection = await connect({
    servers: options.natsUrl.split(',').map((url) => url.trim()),
    name: 'wfapi-ingest-worker',
    maxReconnectAttempts: -1,
  });
  try {
    const jsm = await jetstreamManager(nc);
    await ensureIngestStreams(jsm, { ackWaitMs: options.ackWaitMs });
    const js = jsm.jetstream();
    const consumer = await js.consumers.get(INGEST_STREAM, INGEST_CONSUMER);
    const stats: IngestWorkerStats = { messages: 0, accepted: 0, rejected: 0, failures: 0 };
    let stopping = false;

    const loop = async () => {
      while (!stopping) {
        const batch: JsMsg[] = [];
        try {
          // A stop lets the pull in progress end by itself (within FETCH_EXPIRES_MS): closing it
          // early would drop messages the server is sending, to be redelivered only after the ack wait.
          const pulled = await consumer.fetch({
            max_messages: options.batchMessages,
            expires: FETCH_EXPIRES_MS,
          });
          for await (const message of pulled) batch.push(message);
        } catch (error) {
          if (stopping) break;
          log(`pulling failed, retrying: ${(error as Error).message}`);
          await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
        }
        if (batch.length > 0) await handleBatch(batch);
      }
    };

    const handleBatch = async (batch: readonly JsMsg[]) => {
      // A long commit must not look like a dead worker: JetStream restarts each message's ack wait.
      const keepAlive = setInterval(
        () => {
          for (const message of batch) message.working();
        },
        Math.max(500, Math.floor(options.ackWaitMs / 3)),
      );
      let failed = false;
      try {
        const bySubject = new Map<string, JsMsg[]>();
        for (const message of batch) {
          const group = bySubject.get(message.subject) ?? [];
          group.push(message);
          bySubject.set(message.subject, group);
        }
        for (const [subject, messages] of bySubject) {
          try {
            await ingestMessages(js, subject, messages);
          } catch (error) {
            failed = true;
            stats.failures++;
            log(
              `a batch of ${messages.length} messages failed and will be redelivered: ${(error as Error).message}`,
            );
            for (const message of messages) message.nak(RETRY_DELAY_MS);
          }
        }
        // The acknowledgements have reached the server before the next pull (or the exit).
        await nc.flush();
      } finally {
        clearInterval(keepAlive);
      }
      if (failed && !stopping) await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
    };

    /** One subject's messages, stored as one NDJSON body; then rejections published, then acknowledged. */
    const ingestMessages = async (js: JetStreamClient, subject: string, messages: readonly JsMsg[]) => {
      const organizationId = organizationOfSubject(subject);
      const starts: number[] = [];
      let lines = 0;
      for (const message of messages) {
        starts.push(lines);
        lines += lineCount(message.data);
      }
      const progress = await ingestNdjson(options.db, joined(messages), {
        batchSize: options.batchSize,
        batchBytes: BATCH_BYTES,
        maxBodyBytes: Number.MAX_SAFE_INTEGER,
        maxRejections: Number.MAX_SAFE_INTEGER,
        organizationId,
      });
      const rejectedBy = new Map<JsMsg, Array<{ line: number; error: string }>>();
      for (const { line, error } of progress.rejected) {
        let index = starts.length - 1;
        while (index > 0 && starts[index]! >= line) index--;
        const message = messages[index]!;
        const list = rejectedBy.get(message) ?? [];
        list.push({ line: firstLineOf(message) + line - starts[index]! - 1, error });
        rejectedBy.set(message, list);
      }
      await Promise.all(
        [...rejectedBy].map(([message, rejected]) => {
          const report: RejectedMessage = {
            subject,
            sequence: message.seq,
            msgId: message.headers?.get(MSG_ID_HEADER) || null,
            rejected,
            rejectedCount: rejected.length,
          };
          // Keyed by the ingest message: a redelivery's report is deduplicated by the stream.
          return js.publish(rejectedSubject(organizationId), JSON.stringify(report), {
            msgID: `${INGEST_STREAM}-${message.seq}`,
          });
        }),
      );
      for (const message of messages) message.ack();
      stats.messages += messages.length;
      stats.accepted += progress.accepted;
      stats.rejected += progress.rejectedCount;
    };

    const stopped = loop();
    let stoppedAll: Promise<void> | undefined;
    log(`consuming ${INGEST_STREAM} as ${INGEST_CONSUMER}`);
    return {
      stats,
      stopped,
      stop() {
        stoppedAll ??= (async () => {
          stopping = true;
          try {
            await stopped;
          } finally {
            // Drain sends what is still buffered (acknowledgements included) before closing.
            await nc.drain().catch(() => nc.close());
          }
        })();
        return stoppedAll;
      },
    };
  } catch (error) {
    await nc.close();
    throw error;
  }
}
