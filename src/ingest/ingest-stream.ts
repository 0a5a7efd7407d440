/**
 * One NDJSON body, streamed into the database in batches. Batches commit one after another, in
 * line order, while the next batch is parsed: parsing (this process) and writing (the database)
 * overlap. On PostgreSQL they commit without waiting for the disk, and one durable commit at the
 * end flushes them all (makeDurable) before the answer. Memory stays bounded whatever the body
 * size: at most two batches of records (the one being written and the one being filled, each
 * bounded by count and by bytes) and one line are held, the reader is not pulled while a full
 * batch waits for the previous write, and only the first rejections are kept.
 */
import { getHeapStatistics } from 'node:v8';
import type { Database } from '../db/database.js';
import type { AppError } from '../errors.js';
import {
  type IngestObserver,
  ingestBatch,
  makeDurable,
  type NumberedRecord,
  type Rejection,
} from './ingest.store.js';
import { LineSplitter, type NdjsonLine } from './ndjson-lines.js';
import { ingestTimeBounds, parseRecord, RecordError, type TimeBounds } from './records.js';

/**
 * The bytes of lines a batch holds before it is written: 16 MB, or a sixteenth of the heap when
 * that is less. While a batch is written it lives several times over (its lines, their parsed
 * records, the COPY text, the copy handed to the embedded database's worker), next to the lines
 * read for the following batch, so a fixed 16 MB ran a server started with a 64 MB heap out of
 * memory on 1 KB log lines.
 */
export function batchBytesFor(heapLimit = getHeapStatistics().heap_size_limit): number {
  return Math.max(2 ** 20, Math.min(16 * 2 ** 20, Math.floor(heapLimit / 16)));
}

/** batchBytesFor this process's heap: what `POST /ingest` and the NATS worker pass as `batchBytes`. */
export const BATCH_BYTES = batchBytesFor();

export interface StreamLimits {
  /** Lines per batch (one transaction each). */
  readonly batchSize: number;
  /** A batch is also written once its lines reach this many bytes. */
  readonly batchBytes: number;
  /** Bytes of body processed at most; complete lines within the bound are still stored. */
  readonly maxBodyBytes: number;
  /** Rejections listed in the answer; the rest are only counted. */
  readonly maxRejections: number;
  /** Steps each batch runs inside its transaction (ingest.store.ts: IngestObserver). */
  readonly observers: readonly IngestObserver[];
  /** Runs each batch write; e.g. to cap concurrent writes (WriteSlots). */
  readonly runBatch?: <T>(write: () => Promise<T>) => Promise<T>;
  /** Told each committed batch (e.g. metrics). */
  readonly onBatch?: (outcome: IngestBatchOutcome) => void;
  /**
   * The organization whose records these are (e.g. named by a NATS subject); a record of another
   * one is rejected. Unset: each record names its own organization.
   */
  readonly organizationId?: string;
  /** The server's clock (ms), which bounds the records' times (ingestTimeBounds); tests pass another. */
  readonly now?: () => number;
}

/** A committed batch: its records, and its rejections (of lines with or without a record). */
export interface IngestBatchOutcome {
  readonly records: readonly NumberedRecord[];
  readonly rejected: readonly Rejection[];
}

export interface IngestProgress {
  /** Lines stored or already stored (a re-sent line counts again). */
  accepted: number;
  /** The first rejections, in line order. */
  rejected: Rejection[];
  /** Every rejection, listed or not. */
  rejectedCount: number;
  /** Every line up to this one (1-based) has been committed or rejected. */
  committedThroughLine: number;
}

/**
 * Thrown by a body's reader to stop the stream, `error` being the answer (e.g. a gzip body past
 * its decompression limits); ingestNdjson passes it on as an IngestInterruptedError 'refused'.
 */
export class BodyRefusedError extends Error {
  override name = 'BodyRefusedError';
  constructor(readonly error: AppError) {
    super(error.message);
  }
}

/**
 * Why a stream stopped early; `progress` says what is durable (re-sending everything is safe).
 * The cause of 'refused' is a BodyRefusedError.
 */
export class IngestInterruptedError extends Error {
  override name = 'IngestInterruptedError';
  constructor(
    readonly reason: 'body-too-large' | 'refused' | 'failed',
    readonly progress: IngestProgress,
    options?: { cause?: unknown },
  ) {
    super(
      reason === 'body-too-large'
        ? 'the body is too large'
        : reason === 'refused'
          ? 'the body was refused'
          : 'ingestion failed',
      options,
    );
  }
}

const MAX_ERROR_LENGTH = 500;

/** The outcome of parsing one line: a record to store, a rejection, or nothing (a blank line). */
function parseLine(
  line: NdjsonLine,
  bounds: TimeBounds,
  organizationId?: string,
): NumberedRecord | Rejection | undefined {
  if ('error' in line) return { line: line.line, error: line.error };
  if (line.text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line.text);
  } catch (error) {
    return { line: line.line, error: `invalid JSON: ${(error as Error).message}`.slice(0, MAX_ERROR_LENGTH) };
  }
  try {
    const record = parseRecord(value, bounds);
    if (organizationId !== undefined && record.organizationId !== organizationId) {
      return {
        line: line.line,
        error: `organizationId ${record.organizationId} is not ${organizationId}, the organization these records are sent for`,
      };
    }
    return { line: line.line, record };
  } catch (error) {
    if (error instanceof RecordError)
      return { line: line.line, error: error.message.slice(0, MAX_ERROR_LENGTH) };
    throw error;
  }
}

export async function ingestNdjson(
  db: Database,
  body: AsyncIterable<Uint8Array>,
  limits: StreamLimits,
): Promise<IngestProgress> {
  const progress: IngestProgress = { accepted: 0, rejected: [], rejectedCount: 0, committedThroughLine: 0 };
  const splitter = new LineSplitter();
  let records: NumberedRecord[] = [];
  let parseRejections: Rejection[] = [];
  let pendingLines = 0;
  let pendingBytes = 0;
  let lastLine = 0;
  let bodyBytes = 0;

  const note = (rejections: readonly Rejection[]) => {
    progress.rejectedCount += rejections.length;
    const room = limits.maxRejections - progress.rejected.length;
    if (room > 0) progress.rejected.push(...rejections.slice(0, room));
  };

  /** The batch being written, if any; it never rejects (a failure is kept in `failure`). */
  let writing: Promise<void> | undefined;
  let failure: { cause: unknown } | undefined;
  /** Waits for the batch being written; throws if it (or an earlier one) failed. */
  const settle = async () => {
    await writing;
    writing = undefined;
    if (failure) throw new IngestInterruptedError('failed', progress, failure);
  };

  // PostgreSQL's WAL writer flushes commits that did not wait within a fraction of a second, so
  // a batch there need not wait for the disk itself; the embedded database has no such background
  // writer (a commit that does not flush stays in memory), so there each batch waits.
  const durable = db.kind !== 'postgres';
  /** Hands the pending batch to the database once the previous one is committed; does not wait for it. */
  const flush = async () => {
    if (pendingLines === 0) return;
    await settle();
    const batch = records;
    const rejections = parseRejections;
    const through = lastLine;
    records = [];
    parseRejections = [];
    pendingLines = 0;
    pendingBytes = 0;
    writing = (limits.runBatch ?? ((write) => write()))(() =>
      ingestBatch(db, batch, { durable, observers: limits.observers }),
    ).then(
      (stored) => {
        progress.accepted += stored.accepted;
        const rejected = [...rejections, ...stored.rejected].sort((a, b) => a.line - b.line);
        note(rejected);
        progress.committedThroughLine = through;
        limits.onBatch?.({ records: batch, rejected });
      },
      (error: unknown) => {
        failure = { cause: error };
      },
    );
  };

  /** Waits for every batch handed over, then for the disk: what the answer reports is durable. */
  const finish = async () => {
    await flush();
    await settle();
    if (durable || progress.committedThroughLine === 0) return;
    try {
      await makeDurable(db);
    } catch (error) {
      throw new IngestInterruptedError('failed', progress, { cause: error });
    }
  };

  const take = async (lines: readonly NdjsonLine[]) => {
    const bounds = ingestTimeBounds((limits.now ?? Date.now)());
    for (const line of lines) {
      lastLine = line.line;
      pendingLines++;
      pendingBytes += line.bytes;
      const parsed = parseLine(line, bounds, limits.organizationId);
      if (parsed && 'record' in parsed) records.push(parsed);
      else if (parsed) parseRejections.push(parsed);
      if (pendingLines >= limits.batchSize || pendingBytes >= limits.batchBytes) await flush();
    }
  };

  try {
    for await (const chunk of body) {
      const room = limits.maxBodyBytes - bodyBytes;
      bodyBytes += chunk.length;
      if (chunk.length > room) {
        // Only the lines completed within the bound are stored; the partial one is dropped.
        await take(splitter.push(chunk.subarray(0, room)));
        await finish();
        throw new IngestInterruptedError('body-too-large', progress);
      }
      await take(splitter.push(chunk));
    }
    await take(splitter.end());
    await finish();
    return progress;
  } catch (error) {
    // The lines pending are dropped, the batch being written is awaited (below): what the
    // progress then says is durable.
    if (error instanceof BodyRefusedError)
      throw new IngestInterruptedError('refused', progress, { cause: error });
    throw error;
  } finally {
    // Whatever stopped the stream (a dropped connection, say), no write outlives the request.
    await writing;
  }
}
