import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import {
  type IngestTarget,
  IngestUploadError,
  type UploadResult,
  uploadNdjson,
} from '../../../client/ingest-client.js';
import type { IngestRecord } from '../../../ingest/records.js';
import { toNdjsonLine } from '../../../simulate/index.js';
import { CliError, exitCodeOf } from '../../exit-codes.js';
import { LineWriter } from './line-writer.js';

/** Rejections kept in the summary; the rest are counted. */
const MAX_REJECTIONS = 1000;

/** Writes the history, then each live batch as soon as it is due, to a file or standard output. */
export async function write(
  out: string | undefined,
  history: AsyncIterable<readonly IngestRecord[]>,
  live: AsyncIterable<readonly IngestRecord[]>,
  stdout: Writable,
): Promise<void> {
  const stream = out === undefined ? stdout : createWriteStream(out);
  try {
    if (out !== undefined) await once(stream, 'open');
    const writer = new LineWriter(stream);
    for (const batches of [history, live]) {
      for await (const records of batches) {
        for (const record of records) {
          if (writer.push(toNdjsonLine(record))) await writer.flush();
        }
        // Live batches are written as soon as they are due, so a reader sees them at once.
        await writer.flush();
        if (writer.gone) return;
      }
    }
  } catch (error) {
    throw new CliError(`cannot write ${out ?? 'standard output'}: ${(error as Error).message}`);
  } finally {
    if (out !== undefined) await new Promise<void>((resolve) => stream.end(resolve));
  }
}

/** NDJSON text of record batches, one string of lines per batch; `sent` counts the records. */
async function* linesOf(
  batches: AsyncIterable<readonly IngestRecord[]> | Iterable<readonly IngestRecord[]>,
  sent: { records: number },
): AsyncGenerator<string> {
  for await (const records of batches) {
    yield records.map(toNdjsonLine).join('\n');
    sent.records += records.length;
  }
}

/**
 * Sends the history as one upload (which the client cuts into chunks), then each live batch as
 * an upload of its own as soon as it is due, and adds up the answers. Rejected line numbers
 * count from the first record sent. An interruption ends it quietly with what was answered.
 */
export async function upload(
  target: IngestTarget,
  history: AsyncIterable<readonly IngestRecord[]>,
  live: AsyncIterable<readonly IngestRecord[]>,
  io: { signal: AbortSignal; onNotice?(text: string): void },
): Promise<UploadResult> {
  const options = {
    signal: io.signal,
    onRetry: ({ attempt, delayMs, reason }: { attempt: number; delayMs: number; reason: string }) =>
      io.onNotice?.(`retry ${attempt} in ${(delayMs / 1000).toFixed(1)} s: ${reason}`),
  };
  const totals: UploadResult = { accepted: 0, rejected: [], rejectedCount: 0 };
  const sent = { records: 0 };
  const add = (result: UploadResult, offset: number) => {
    totals.accepted += result.accepted;
    totals.rejectedCount += result.rejectedCount;
    for (const rejection of result.rejected.slice(0, MAX_REJECTIONS - totals.rejected.length)) {
      totals.rejected.push({ line: offset + rejection.line, error: rejection.error });
    }
  };
  try {
    add(await uploadNdjson(target, linesOf(history, sent), options), 0);
    for await (const records of live) {
      const offset = sent.records;
      add(await uploadNdjson(target, linesOf([records], sent), options), offset);
    }
  } catch (error) {
    if (io.signal.aborted) return totals;
    if (error instanceof IngestUploadError) {
      throw new CliError(error.message, exitCodeOf({ status: error.status }));
    }
    throw error;
  }
  return totals;
}
