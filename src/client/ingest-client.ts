/**
 * A producer's side of `POST /ingest`: sends lines in chunks, one request each, and retries a
 * failed chunk with exponential backoff. Retrying is always safe because ingestion is idempotent,
 * so a chunk cut short by a timeout, a crash or a dropped connection is simply sent again.
 * Uses only web-platform APIs (fetch, AbortSignal), so it runs wherever fetch does.
 */
import { parseRetryAfter, retryDelay, sleep } from './retry.js';

export interface IngestTarget {
  /** The server's base URL, e.g. `http://127.0.0.1:4000`. */
  url: string;
  token: string;
}

export interface UploadProgress {
  /** Lines sent and answered so far. */
  lines: number;
  accepted: number;
  rejected: number;
}

export interface UploadResult {
  accepted: number;
  /** The first rejections (line numbers over the whole input, from 1), in line order. */
  rejected: Array<{ line: number; error: string }>;
  /** Every rejection, listed or not. */
  rejectedCount: number;
}

export interface UploadOptions {
  /** Lines per request (default {@link DEFAULT_CHUNK_LINES}); a chunk is also cut at `chunkBytes`. */
  chunkLines?: number;
  /** Bytes per request, roughly (default 16 MiB). */
  chunkBytes?: number;
  /** Attempts after the first for one chunk (default 8). */
  retries?: number;
  /** Time allowed for one request (default 5 minutes). */
  requestTimeoutMs?: number;
  /** Rejections listed in the result (default 1000); the rest are counted. */
  maxRejections?: number;
  signal?: AbortSignal;
  onProgress?: (progress: UploadProgress) => void;
  /** Called before each retry, with the reason and the delay. */
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
}

/** The server refused a chunk (4xx other than 429), or a chunk kept failing past the retries. */
export class IngestUploadError extends Error {
  override name = 'IngestUploadError';
  constructor(
    message: string,
    /** HTTP status of the last answer; undefined when the server was never reached. */
    readonly status: number | undefined,
    /** What was durably stored before the failure (chunks fully answered). */
    readonly partial: UploadResult,
  ) {
    super(message);
  }
}

interface ChunkAnswer {
  accepted: number;
  rejected: Array<{ line: number; error: string }>;
  rejectedCount?: number;
}

/**
 * Several server batches a request: the server parses one batch while it writes the one
 * before, which a request of a single batch would not let it do.
 */
export const DEFAULT_CHUNK_LINES = 20_000;

/** Backoff of one chunk: full jitter from 250 ms, doubling; a long Retry-After is still honoured. */
const RETRY_BASE_DELAY_MS = 250;
const RETRY_MAX_DELAY_MS = 300_000;

/** A failure worth retrying, with the server's Retry-After when it gave one. */
class Retryable extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

async function errorMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const message = (JSON.parse(text) as { errors?: Array<{ message?: unknown }> }).errors?.[0]?.message;
    if (typeof message === 'string') return message;
  } catch {}
  return text.slice(0, 200) || response.statusText;
}

async function postChunk(
  target: IngestTarget,
  body: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<ChunkAnswer> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(`${target.url.replace(/\/+$/, '')}/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/x-ndjson' },
      body,
      signal: combined,
    });
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new Retryable(`cannot reach ${target.url}: ${cause?.code ?? cause?.message ?? error}`, undefined);
  }
  if (response.ok) {
    try {
      return (await response.json()) as ChunkAnswer;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw new Retryable(`the answer was cut short: ${error}`, response.status);
    }
  }
  const message = `${response.status} ${await errorMessage(response)}`;
  if (response.status === 429 || response.status >= 500) {
    throw new Retryable(message, response.status, parseRetryAfter(response.headers.get('retry-after')));
  }
  throw new IngestUploadError(`the server refused the upload: ${message}`, response.status, {
    accepted: 0,
    rejected: [],
    rejectedCount: 0,
  });
}

/** Groups lines into chunks by count and size; a string holding newlines counts as several lines. */
async function* chunksOf(
  lines: AsyncIterable<string>,
  maxLines: number,
  maxBytes: number,
): AsyncGenerator<string[]> {
  let chunk: string[] = [];
  let size = 0;
  for await (const item of lines) {
    for (const line of item.replace(/\r?\n$/, '').split('\n')) {
      chunk.push(line);
      size += line.length + 1;
      if (chunk.length >= maxLines || size >= maxBytes) {
        yield chunk;
        chunk = [];
        size = 0;
      }
    }
  }
  if (chunk.length > 0) yield chunk;
}

/** Sends NDJSON lines to `POST /ingest`, chunk by chunk, and adds up the answers. */
export async function uploadNdjson(
  target: IngestTarget,
  lines: AsyncIterable<string>,
  options: UploadOptions = {},
): Promise<UploadResult> {
  const retries = options.retries ?? 8;
  const maxRejections = options.maxRejections ?? 1000;
  const result: UploadResult = { accepted: 0, rejected: [], rejectedCount: 0 };
  let sent = 0;
  const chunks = chunksOf(
    lines,
    options.chunkLines ?? DEFAULT_CHUNK_LINES,
    options.chunkBytes ?? 16 * 2 ** 20,
  );
  // One request at a time, so that a later line never overtakes an earlier one; the next chunk
  // is read while the server works on the current one.
  let upcoming = chunks.next();
  for (let current = await upcoming; !current.done; current = await upcoming) {
    const chunk = current.value;
    upcoming = chunks.next();
    // Handled when awaited; a source that fails while this chunk is refused must not crash.
    upcoming.catch(() => {});
    const body = `${chunk.join('\n')}\n`;
    let answer: ChunkAnswer | undefined;
    for (let attempt = 0; answer === undefined; attempt++) {
      try {
        answer = await postChunk(target, body, options.requestTimeoutMs ?? 300_000, options.signal);
      } catch (error) {
        if (error instanceof IngestUploadError) {
          throw new IngestUploadError(
            `${error.message} (lines ${sent + 1}-${sent + chunk.length})`,
            error.status,
            {
              ...result,
            },
          );
        }
        if (!(error instanceof Retryable)) throw error;
        const delayMs = retryDelay(
          { retries, baseDelayMs: RETRY_BASE_DELAY_MS, maxDelayMs: RETRY_MAX_DELAY_MS },
          attempt,
          error.retryAfterMs,
        );
        if (delayMs === undefined) {
          throw new IngestUploadError(
            `giving up after ${attempt + 1} attempts (lines ${sent + 1}-${sent + chunk.length}): ${error.message}`,
            error.status,
            { ...result },
          );
        }
        options.onRetry?.({ attempt: attempt + 1, delayMs, reason: error.message });
        await sleep(delayMs, options.signal);
      }
    }
    result.accepted += answer.accepted;
    result.rejectedCount += answer.rejectedCount ?? answer.rejected.length;
    for (const rejection of answer.rejected) {
      if (result.rejected.length >= maxRejections) break;
      result.rejected.push({ line: sent + rejection.line, error: rejection.error });
    }
    sent += chunk.length;
    options.onProgress?.({ lines: sent, accepted: result.accepted, rejected: result.rejectedCount });
  }
  return result;
}
