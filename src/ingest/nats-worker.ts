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
 * memory. An unavailable database leaves the batch unacknowledged (negatively, with a delay) and
 * pauses the worker, never drops it. A message that fails for a reason of its own is retried alone
 * (the others of its batch are stored meanwhile, without a pause) and, when it fails on its
 * `maxDeliveries`-th delivery, moved to `wfapi.dead.<organizationId>` with its reason: no message
 * loops forever. Rejection reports list at most MAX_REPORTED_REJECTIONS lines a message, in parts
 * under the server's message limit.
 */
import { type JsMsg, jetstreamManager } from '@nats-io/jetstream';
import {
  ClosedConnectionError,
  ConnectionError,
  connect,
  DrainingConnectionError,
  type NatsConnection,
  NoRespondersError,
  TimeoutError,
} from '@nats-io/transport-node';
import type { Database } from '../db/database.js';
import { isDatabaseUnavailable } from '../errors.js';
import type { IngestObserver } from './ingest.store.js';
import { BATCH_BYTES, IngestInterruptedError, ingestNdjson } from './ingest-stream.js';
import {
  deadSubject,
  ensureIngestStreams,
  FIRST_LINE_HEADER,
  INGEST_CONSUMER,
  INGEST_STREAM,
  MAX_REPORTED_REJECTIONS,
  organizationOfSubject,
} from './nats-jetstream.js';
import { reportPublisher } from './nats-reports.js';

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
  /** Steps each batch runs inside its transaction (app.ts: INGEST_OBSERVERS). */
  readonly observers: readonly IngestObserver[];
  /**
   * Deliveries of a message that fails for a reason of its own (not an unavailable database)
   * before it is moved to the dead-letter subject (WFAPI_NATS_MAX_DELIVERIES; default 5).
   */
  readonly maxDeliveries?: number;
  /** Told what happens, one line at a time. */
  readonly log?: (line: string) => void;
}

export interface IngestWorkerStats {
  messages: number;
  accepted: number;
  rejected: number;
  /** Failed attempts at messages (each handed back for redelivery, or dead-lettered). */
  failures: number;
  /** Messages moved to the dead-letter subject. */
  deadLettered: number;
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
/** WFAPI_NATS_MAX_DELIVERIES's default. */
export const DEFAULT_MAX_DELIVERIES = 5;
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

/** NATS failures that say the server is out of reach, not that a message is bad. */
const NATS_UNAVAILABLE = [
  ClosedConnectionError,
  ConnectionError,
  DrainingConnectionError,
  NoRespondersError,
  TimeoutError,
];

/**
 * A failure no message is to blame for: the database or NATS is unavailable. Anything else (a
 * statement the database refuses, a report NATS refuses) counts towards the dead-letter limit.
 */
const transient = (error: unknown): boolean => {
  const cause = error instanceof IngestInterruptedError ? error.cause : error;
  return isDatabaseUnavailable(cause) || NATS_UNAVAILABLE.some((kind) => error instanceof kind);
};

/** What went wrong, from the database's own message rather than the stream's "ingestion failed". */
const reasonOf = (error: unknown): string => {
  const cause = error instanceof IngestInterruptedError && error.cause !== undefined ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
};

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
    const stats: IngestWorkerStats = { messages: 0, accepted: 0, rejected: 0, failures: 0, deadLettered: 0 };
    const maxDeliveries = options.maxDeliveries ?? DEFAULT_MAX_DELIVERIES;
    const reports = reportPublisher(js, nc.info?.max_payload ?? 1024 * 1024);
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
      let unavailable = false;
      try {
        const bySubject = new Map<string, JsMsg[]>();
        for (const message of batch) {
          const group = bySubject.get(message.subject) ?? [];
          group.push(message);
          bySubject.set(message.subject, group);
        }
        for (const [subject, messages] of bySubject) {
          if (!(await settleGroup(subject, messages))) unavailable = true;
        }
        // The acknowledgements have reached the server before the next pull (or the exit).
        await nc.flush();
      } finally {
        clearInterval(keepAlive);
      }
      // Only losing the database (or NATS) pauses the worker: then no message can progress.
      if (unavailable && !stopping) await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
    };

    /**
     * One subject's messages, stored together; when that fails for a reason of their own (not an
     * unavailable database), each is tried alone, so that one bad message holds up no other.
     * Returns false when the database or NATS is unavailable (the messages are handed back).
     */
    const settleGroup = async (subject: string, messages: readonly JsMsg[]): Promise<boolean> => {
      try {
        await ingestMessages(subject, messages);
        return true;
      } catch (error) {
        if (transient(error) || messages.length === 1) return settleFailure(messages, error);
      }
      let ok = true;
      for (const message of messages) {
        try {
          await ingestMessages(subject, [message]);
        } catch (error) {
          if (!(await settleFailure([message], error))) ok = false;
        }
      }
      return ok;
    };

    /**
     * Hands failed messages back for redelivery, or, when a message fails for a reason of its own
     * on its WFAPI_NATS_MAX_DELIVERIES-th delivery, moves it to the dead-letter subject.
     */
    const settleFailure = async (messages: readonly JsMsg[], error: unknown): Promise<boolean> => {
      const reason = reasonOf(error);
      stats.failures++;
      if (transient(error)) {
        log(
          `${messages.length} messages failed and will be redelivered (the database or NATS is unavailable): ${reason}`,
        );
        for (const message of messages) message.nak(RETRY_DELAY_MS);
        return false;
      }
      for (const message of messages) {
        const deliveries = message.info.deliveryCount;
        const where = `message ${message.seq} on ${message.subject} (delivery ${deliveries} of ${maxDeliveries})`;
        if (deliveries < maxDeliveries) {
          log(`ingestion of ${where} failed, redelivered in ${RETRY_DELAY_MS} ms: ${reason}`);
          message.nak(RETRY_DELAY_MS);
          continue;
        }
        try {
          await reports.deadLetter(message, reason, deliveries);
        } catch (publishError) {
          log(`moving ${where} to the dead-letter subject failed, redelivered: ${reasonOf(publishError)}`);
          message.nak(RETRY_DELAY_MS);
          return false;
        }
        log(
          `ingestion of ${where} failed; moved to ${deadSubject(organizationOfSubject(message.subject))}: ${reason}`,
        );
        message.ack();
        stats.deadLettered++;
      }
      return true;
    };

    /** One subject's messages, stored as one NDJSON body; then rejections published, then acknowledged. */
    const ingestMessages = async (subject: string, messages: readonly JsMsg[]) => {
      const organizationId = organizationOfSubject(subject);
      const starts: number[] = [];
      let lines = 0;
      for (const message of messages) {
        starts.push(lines);
        lines += lineCount(message.data);
      }
      // Each message's rejections are counted, and the first MAX_REPORTED_REJECTIONS listed, as
      // its batches commit: a message of a million bad lines holds a thousand in memory.
      const found = new Map<JsMsg, { count: number; listed: Array<{ line: number; error: string }> }>();
      const progress = await ingestNdjson(options.db, joined(messages), {
        batchSize: options.batchSize,
        batchBytes: BATCH_BYTES,
        observers: options.observers,
        maxBodyBytes: Number.MAX_SAFE_INTEGER,
        maxRejections: 0,
        organizationId,
        onBatch: ({ rejected }) => {
          for (const { line, error } of rejected) {
            let index = starts.length - 1;
            while (index > 0 && starts[index]! >= line) index--;
            const message = messages[index]!;
            const report = found.get(message) ?? { count: 0, listed: [] };
            report.count++;
            if (report.listed.length < MAX_REPORTED_REJECTIONS) {
              report.listed.push({ line: firstLineOf(message) + line - starts[index]! - 1, error });
            }
            found.set(message, report);
          }
        },
      });
      for (const [message, report] of found) {
        await reports.publish(message, { rejectedCount: report.count }, report.listed);
      }
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
