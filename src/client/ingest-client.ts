/**
 * A producer's side of `POST /ingest`: sends lines in chunks, one request each, and retries a
 * failed chunk with exponential backoff. Retrying is always safe because ingestion is idempotent,
 * so a chunk cut short by a timeout, a crash or a dropped connection is simply sent again.
 * Uses only web-platform APIs (fetch, AbortSignal), so it runs wherever fetch does.
 */
import { RateLimitError, ServerError, UnavailableError, WfapiError } from './errors.js';
import { parseRetryAfter } from './retry.js';
import { type Answer, Transport } from './transport.js';

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

const NDJSON = 'application/x-ndjson';

function errorMessage({ text, statusText }: Answer): string {
  try {
    const message = (JSON.parse(text) as { errors?: Array<{ message?: unknown }> }).errors?.[0]?.message;
    if (typeof message === 'string') return message;
  } catch {}
  return text.slice(0, 200) || statusText;
}

/**
 * The server's answer to one chunk. A 429 or a 5xx, or a success whose answer was cut short,
 * is worth retrying (the SDK's retryable errors); any other refusal is final.
 */
function readChunkAnswer(answer: Answer): ChunkAnswer {
  const { status, headers } = answer;
  const details = {
    code: `HTTP_${status}`,
    status,
    retryAfterMs: parseRetryAfter(headers.get('retry-after')),
  };
  if (status >= 200 && status < 300) {
    try {
      return JSON.parse(answer.text) as ChunkAnswer;
    } catch (error) {
      throw new UnavailableError(`the answer was cut short: ${error}`, details);
    }
  }
  const message = `${status} ${errorMessage(answer)}`;
  if (status === 429) throw new RateLimitError(message, details);
  if (status >= 500) throw new ServerError(message, details);
  // wfapi serves POST /ingest only with an ingest token configured (contract section 3).
  if (status === 404) {
    throw new WfapiError(
      `the server has no ingest endpoint (${message}): start it with WFAPI_INGEST_TOKEN set to enable POST /ingest, or check the URL`,
      details,
    );
  }
  throw new WfapiError(`the server refused the upload: ${message}`, details);
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
  // Backoff of one chunk: full jitter from 250 ms, doubling; a long Retry-After is still honoured.
  const transport = new Transport({
    endpoint: `${target.url.replace(/\/+$/, '')}/ingest`,
    authorization: `Bearer ${target.token}`,
    contentType: NDJSON,
    accept: 'application/json',
    retries: options.retries ?? 8,
    retryDelayMs: 250,
    maxRetryDelayMs: 300_000,
    timeoutMs: options.requestTimeoutMs ?? 300_000,
  });
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
    let attempts = 1;
    let answer: ChunkAnswer;
    try {
      answer = await transport.send(body, readChunkAnswer, {
        ...(options.signal ? { signal: options.signal } : {}),
        onRetry: ({ attempt, delayMs, error }) => {
          attempts = attempt + 1;
          options.onRetry?.({ attempt, delayMs, reason: error.message });
        },
      });
    } catch (error) {
      if (!(error instanceof WfapiError)) throw error;
      const lines = `lines ${sent + 1}-${sent + chunk.length}`;
      const message = error.retryable
        ? `giving up after ${attempts} attempts (${lines}): ${error.message}`
        : `${error.message} (${lines})`;
      throw new IngestUploadError(message, error.status, { ...result });
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
