/**
 * What the ingest worker said about the messages `wfapi ingest --nats` published: the command
 * waits (up to a bound) until each has left WFAPI_INGEST, which a work queue does once a worker
 * acknowledges it, and then reads the worker's reports of those messages from WFAPI_REJECTED
 * (the worker publishes a message's report before acknowledging it).
 */
import { DeliverPolicy, type JetStreamManager } from '@nats-io/jetstream';
import {
  INGEST_STREAM,
  REJECTED_STREAM,
  type RejectedMessage,
  rejectedSubject,
} from '../../../ingest/nats-jetstream.js';

export interface WorkerReports {
  /** Lines the worker rejected (the first it listed of each message), in line order. */
  readonly rejected: Array<{ line: number; error: string }>;
  /** Every line the worker rejected, listed or not. */
  readonly rejectedCount: number;
  /** Messages moved to the dead-letter subject, none of their lines stored. */
  readonly deadLettered: Array<{ sequence: number; subject: string; reason: string }>;
  /** Published messages still waiting for a worker when the wait ended. */
  readonly unprocessed: number;
}

/** How often the stream is asked which messages remain. */
const POLL_MS = 200;

/** Reports are looked for from this long before the command started: a re-run's duplicates were reported then. */
async function reportsSince(jsm: JetStreamManager, startedAt: number): Promise<string> {
  const info = await jsm.streams.info(INGEST_STREAM);
  const windowMs = Math.ceil((info.config.duplicate_window ?? 120e9) / 1e6);
  return new Date(startedAt - windowMs - 1000).toISOString();
}

export async function awaitWorkerReports(
  jsm: JetStreamManager,
  options: {
    readonly organizationId: string;
    /** Stream sequences of the published messages. */
    readonly sequences: ReadonlySet<number>;
    readonly startedAt: number;
    readonly waitMs: number;
  },
): Promise<WorkerReports> {
  const remaining = [...options.sequences].sort((a, b) => a - b);
  const deadline = Date.now() + options.waitMs;
  for (;;) {
    // Oldest first: workers take them roughly in order, so the first still held ends the check.
    while (
      remaining.length > 0 &&
      (await jsm.streams.getMessage(INGEST_STREAM, { seq: remaining[0]! })) === null
    )
      remaining.shift();
    if (remaining.length === 0 || Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  const pending = new Set(remaining);

  const subject = rejectedSubject(options.organizationId);
  const state = await jsm.streams.info(REJECTED_STREAM, { subjects_filter: subject });
  const reports: RejectedMessage[] = [];
  if ((state.state.subjects?.[subject] ?? 0) > 0) {
    const consumer = await jsm.jetstream().consumers.get(REJECTED_STREAM, {
      filter_subjects: subject,
      deliver_policy: DeliverPolicy.StartTime,
      opt_start_time: await reportsSince(jsm, options.startedAt),
    });
    const last = state.state.last_seq;
    let done = false;
    while (!done) {
      let got = 0;
      for await (const message of await consumer.fetch({ max_messages: 1000, expires: 2000 })) {
        got++;
        if (message.seq >= last) done = true;
        const report = message.json<RejectedMessage>();
        if (options.sequences.has(report.sequence) && !pending.has(report.sequence)) reports.push(report);
      }
      if (got === 0) done = true;
    }
    await consumer.delete().catch(() => {});
  }

  const rejected: WorkerReports['rejected'] = [];
  const deadLettered: WorkerReports['deadLettered'] = [];
  const counted = new Map<number, number>();
  const seen = new Set<string>();
  for (const report of reports) {
    // A report republished by a redelivery within the duplicate window is read once.
    const key = `${report.sequence}-${report.part ?? 1}`;
    if (seen.has(key)) continue;
    seen.add(key);
    counted.set(report.sequence, report.rejectedCount);
    rejected.push(...report.rejected);
    if (report.deadLetter) {
      deadLettered.push({
        sequence: report.sequence,
        subject: report.deadLetter.subject,
        reason: report.deadLetter.reason,
      });
    }
  }
  return {
    rejected: rejected.sort((a, b) => a.line - b.line),
    rejectedCount: [...counted.values()].reduce((sum, n) => sum + n, 0),
    deadLettered,
    unprocessed: pending.size,
  };
}
