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
/** Where a message that still fails after the worker's delivery limit is moved, kept as long. */
export const DEAD_STREAM = 'WFAPI_DEAD';

export const ingestSubject = (organizationId: string) => `wfapi.ingest.${organizationId}`;
export const rejectedSubject = (organizationId: string) => `wfapi.rejected.${organizationId}`;
export const deadSubject = (organizationId: string) => `wfapi.dead.${organizationId}`;
/** The organization an ingest subject names: its last token (the stream takes `wfapi.ingest.*` only). */
export const organizationOfSubject = (subject: string): string => subject.slice(subject.lastIndexOf('.') + 1);

/** Header: the source line number of a message's first line (default 1), for rejection reports. */
export const FIRST_LINE_HEADER = 'Wfapi-First-Line';
/** JetStream's header for publish deduplication within the stream's duplicate window. */
export const MSG_ID_HEADER = 'Nats-Msg-Id';
/** Headers of a dead-lettered message: why, after how many deliveries, and its place in WFAPI_INGEST. */
export const DEAD_REASON_HEADER = 'Wfapi-Dead-Reason';
export const DEAD_DELIVERIES_HEADER = 'Wfapi-Dead-Deliveries';
export const DEAD_SEQUENCE_HEADER = 'Wfapi-Dead-Sequence';
/** Set when the dead letter carries no body: the message was too large to carry the headers too. */
export const DEAD_BODY_HEADER = 'Wfapi-Dead-Body';

/** Rejected lines listed per ingest message, as POST /ingest lists them; the rest are only counted. */
export const MAX_REPORTED_REJECTIONS = 1000;

/**
 * What the worker publishes on `wfapi.rejected.<organizationId>` for an ingest message with
 * rejections, or one it moved to the dead-letter subject: one report, in as many parts as keep
 * each under the server's message limit.
 */
export interface RejectedMessage {
  /** The ingest message: its subject, stream sequence and Nats-Msg-Id (when it had one). */
  readonly subject: string;
  readonly sequence: number;
  readonly msgId: string | null;
  /**
   * This part's rejected lines (line numbers counted from the message's `Wfapi-First-Line`): of
   * all parts together, the first MAX_REPORTED_REJECTIONS of the message, in line order.
   */
  readonly rejected: ReadonlyArray<{ line: number; error: string }>;
  /** Every rejected line of the message, listed or not. */
  readonly rejectedCount: number;
  /** This part's number (from 1) and how many the report has. */
  readonly part: number;
  readonly parts: number;
  /** Set when nothing of the message could be stored: it was moved to the dead-letter subject. */
  readonly deadLetter?: { readonly subject: string; readonly reason: string; readonly deliveries: number };
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
  await ensureStream(jsm, DEAD_STREAM, {
    name: DEAD_STREAM,
    subjects: [deadSubject('*')],
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
      // Redelivered until acknowledged: a database outage delays records, never drops them. The
      // worker itself moves a message that keeps failing for another reason to the dead-letter
      // subject (WFAPI_NATS_MAX_DELIVERIES), so none loops forever.
      max_deliver: -1,
      max_ack_pending: 1000,
    });
  }
}
