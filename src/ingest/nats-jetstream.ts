/**
 * The JetStream names of ingestion through NATS (contract section 6), shared by the worker that
 * consumes and the command that publishes, and the one place that creates them when missing.
 */
import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamManager,
  RetentionPolicy,
  StorageType,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';

/** The stream producers publish NDJSON to, one subject per organization. */
export const INGEST_STREAM = 'WFAPI_INGEST';
/** The durable pull consumer every worker shares: each message goes to one of them. */
export const INGEST_CONSUMER = 'wfapi-ingest-worker';
/** Where rejected lines are published, kept for REJECTED_MAX_AGE_MS. */
export const REJECTED_STREAM = 'WFAPI_REJECTED';
export const REJECTED_MAX_AGE_MS = 7 * 24 * 3600 * 1000;

export const ingestSubject = (organizationId: string) => `wfapi.ingest.${organizationId}`;
export const rejectedSubject = (organizationId: string) => `wfapi.rejected.${organizationId}`;
/** The organization an ingest subject names: its last token (the stream takes `wfapi.ingest.*` only). */
export const organizationOfSubject = (subject: string): string => subject.slice(subject.lastIndexOf('.') + 1);

/** Header: the source line number of a message's first line (default 1), for rejection reports. */
export const FIRST_LINE_HEADER = 'Wfapi-First-Line';
/** JetStream's header for publish deduplication within the stream's duplicate window. */
export const MSG_ID_HEADER = 'Nats-Msg-Id';

/** What the worker publishes on `wfapi.rejected.<organizationId>`, one message per ingest message with rejections. */
export interface RejectedMessage {
  /** The ingest message: its subject, stream sequence and Nats-Msg-Id (when it had one). */
  readonly subject: string;
  readonly sequence: number;
  readonly msgId: string | null;
  /** Line numbers counted from the message's `Wfapi-First-Line`. */
  readonly rejected: ReadonlyArray<{ line: number; error: string }>;
  readonly rejectedCount: number;
}

const isNotFound = (error: unknown) =>
  error instanceof JetStreamApiError &&
  (error.code === JetStreamApiCodes.StreamNotFound ||
    error.code === JetStreamApiCodes.ConsumerNotFound ||
    error.status === 404);

/** Creates a stream unless it exists (an existing one is left as the operator configured it). */
async function ensureStream(
  jsm: JetStreamManager,
  name: string,
  config: Parameters<JetStreamManager['streams']['add']>[0],
): Promise<void> {
  try {
    await jsm.streams.info(name);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await jsm.streams.add(config);
  }
}

/**
 * The ingest stream (work-queue retention: a message is deleted once a worker acknowledges it)
 * and the rejected stream, each created if missing; producers call it too, so that they may
 * publish before any worker has started.
 */
export async function ensureStreams(jsm: JetStreamManager): Promise<void> {
  await ensureStream(jsm, INGEST_STREAM, {
    name: INGEST_STREAM,
    subjects: [ingestSubject('*')],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
  });
  await ensureStream(jsm, REJECTED_STREAM, {
    name: REJECTED_STREAM,
    subjects: [rejectedSubject('*')],
    storage: StorageType.File,
    max_age: nanos(REJECTED_MAX_AGE_MS),
  });
}

/** The streams, and the durable pull consumer every worker shares, each created if missing. */
export async function ensureIngestStreams(
  jsm: JetStreamManager,
  options: { ackWaitMs: number },
): Promise<void> {
  await ensureStreams(jsm);
  try {
    await jsm.consumers.info(INGEST_STREAM, INGEST_CONSUMER);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await jsm.consumers.add(INGEST_STREAM, {
      durable_name: INGEST_CONSUMER,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(options.ackWaitMs),
      // Redelivered until acknowledged: a database outage delays records, never drops them.
      max_deliver: -1,
      max_ack_pending: 1000,
    });
  }
}
