import { createReadStream, statSync } from 'node:fs';
import {
  DEFAULT_CHUNK_LINES,
  type IngestTarget,
  IngestUploadError,
  type UploadProgress,
  type UploadResult,
  uploadNdjson,
} from '../../../client/ingest-client.js';
import { type NdjsonLine, ndjsonLines } from '../../../ingest/ndjson-lines.js';
import { CliError, EXIT, exitCodeOf } from '../../exit-codes.js';
import {
  DEFAULT_NATS_CHUNK_LINES,
  NatsPublishError,
  type NatsPublishResult,
  type NatsTarget,
  publishNdjson,
} from './nats-publish.js';

export interface IngestFlags {
  url?: string | undefined;
  token?: string | undefined;
  retries?: string | undefined;
  chunkLines?: string | undefined;
  nats?: string | undefined;
  organization?: string | undefined;
  wait?: string | undefined;
}

export interface IngestSettings extends IngestTarget {
  retries: number;
  chunkLines: number;
}

export interface IngestCommandInput extends IngestSettings {
  /** A file path, or `-` for standard input. */
  source: string;
  stdin: NodeJS.ReadableStream;
  signal?: AbortSignal;
  onProgress?: (progress: IngestCommandProgress) => void;
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
}

export interface IngestCommandProgress extends UploadProgress {
  /** Bytes read from the source so far. */
  bytes: number;
  /** Size of the file, when the source is one. */
  totalBytes: number | undefined;
}

export interface IngestSummary extends UploadResult {
  lines: number;
  bytes: number;
  /** Size of the file, when the source is one. */
  totalBytes: number | undefined;
  seconds: number;
}

const DEFAULT_URL = 'http://127.0.0.1:4000';

function positiveInt(value: string | undefined, name: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > max) {
    throw new CliError(`${name} must be an integer between 0 and ${max}, got "${value}"`, EXIT.USAGE);
  }
  return parsed;
}

/** Flags win over the environment (WFAPI_URL, WFAPI_INGEST_TOKEN). */
export function ingestSettings(
  env: Readonly<Record<string, string | undefined>>,
  flags: IngestFlags,
): IngestSettings {
  const url = flags.url ?? (env.WFAPI_URL || DEFAULT_URL);
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new CliError(`--url must be an http(s) URL, got "${url}"`, EXIT.USAGE);
  }
  const token = flags.token ?? env.WFAPI_INGEST_TOKEN;
  if (!token) throw new CliError('an ingest token is required: --token or WFAPI_INGEST_TOKEN', EXIT.USAGE);
  return {
    url,
    token,
    retries: positiveInt(flags.retries, '--retries', 8, 100),
    chunkLines: Math.max(1, positiveInt(flags.chunkLines, '--chunk-lines', DEFAULT_CHUNK_LINES, 100_000)),
  };
}

/**
 * The source's bytes, counted as they are read, and its size when it is a file. The file is
 * opened when its first line is asked for: a command that fails before it reads (NATS
 * unreachable) leaves no file open, and no open still in flight after it has returned.
 */
function openSource(input: { source: string; stdin: NodeJS.ReadableStream }) {
  let totalBytes: number | undefined;
  if (input.source !== '-') {
    try {
      const stat = statSync(input.source);
      if (!stat.isFile()) throw new Error('not a regular file');
      totalBytes = stat.size;
    } catch (error) {
      throw new CliError(`cannot read ${input.source}: ${(error as Error).message}`);
    }
  }
  const counter = { bytes: 0, totalBytes };
  async function* counted(): AsyncGenerator<Uint8Array> {
    const source: AsyncIterable<Uint8Array> =
      input.source === '-' ? (input.stdin as AsyncIterable<Uint8Array>) : createReadStream(input.source);
    for await (const chunk of source) {
      counter.bytes += chunk.length;
      yield chunk;
    }
  }
  return { counter, lines: ndjsonLines(counted()) };
}

/**
 * Streams an NDJSON file (or standard input) to the server, line by line. A line the server
 * could never accept (too long, not UTF-8) is rejected here and sent as a blank line, so that
 * line numbers stay those of the source. Resolves with the totals; rejections are not failures.
 */
export async function ingestMain(input: IngestCommandInput): Promise<IngestSummary> {
  const started = performance.now();
  const { counter, lines: sourceLines } = openSource(input);
  let lines = 0;
  const local: UploadResult['rejected'] = [];
  async function* texts(): AsyncGenerator<string> {
    for await (const line of sourceLines) {
      lines = line.line;
      if ('error' in line) {
        local.push({ line: line.line, error: line.error });
        yield '';
      } else {
        yield line.text;
      }
    }
  }

  let result: UploadResult;
  try {
    result = await uploadNdjson(input, texts(), {
      retries: input.retries,
      chunkLines: input.chunkLines,
      ...(input.signal ? { signal: input.signal } : {}),
      ...(input.onRetry ? { onRetry: input.onRetry } : {}),
      onProgress: (progress) =>
        input.onProgress?.({
          ...progress,
          rejected: progress.rejected + local.length,
          bytes: counter.bytes,
          totalBytes: counter.totalBytes,
        }),
    });
  } catch (error) {
    if (error instanceof IngestUploadError) {
      const stored = error.partial.accepted;
      const note =
        stored > 0
          ? `\n${stored === 1 ? '1 line was' : `${stored} lines were`} stored; running the same command again is safe`
          : '';
      throw new CliError(`${error.message}${note}`, exitCodeOf({ status: error.status }));
    }
    throw error;
  }
  return {
    accepted: result.accepted,
    rejected: [...local, ...result.rejected].sort((a, b) => a.line - b.line),
    rejectedCount: result.rejectedCount + local.length,
    lines,
    bytes: counter.bytes,
    totalBytes: counter.totalBytes,
    seconds: (performance.now() - started) / 1000,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** How long `wfapi ingest --nats` waits for the worker's reports unless --wait says otherwise. */
export const DEFAULT_NATS_WAIT_SECONDS = 30;

/**
 * `--nats` and `--organization` (the subject's organization), with --chunk-lines as lines per
 * message and --wait as the seconds to wait for the worker's reports.
 */
export function natsSettings(flags: IngestFlags): NatsTarget {
  const organizationId = flags.organization;
  if (!organizationId || !UUID.test(organizationId)) {
    throw new CliError(
      `--nats needs --organization <id>, the organization whose subject the lines are published to${organizationId ? `; "${organizationId}" is not a uuid` : ''}`,
      EXIT.USAGE,
    );
  }
  if (flags.url !== undefined || flags.token !== undefined) {
    throw new CliError('--nats publishes instead of POSTing: --url and --token do not apply', EXIT.USAGE);
  }
  return {
    natsUrl: flags.nats!,
    organizationId: organizationId.toLowerCase(),
    chunkLines: Math.max(
      1,
      positiveInt(flags.chunkLines, '--chunk-lines', DEFAULT_NATS_CHUNK_LINES, 100_000),
    ),
    waitMs: positiveInt(flags.wait, '--wait', DEFAULT_NATS_WAIT_SECONDS, 86_400) * 1000,
  };
}

export interface NatsIngestSummary extends NatsPublishResult {
  lines: number;
  bytes: number;
  totalBytes: number | undefined;
  seconds: number;
}

/**
 * Publishes an NDJSON file (or standard input) to the organization's ingest subject. The worker
 * stores the lines later and publishes what it rejects on `rejectedSubject`; with `waitMs` the
 * command waits for that and reports it (`worker`).
 */
export async function ingestNatsMain(
  input: NatsTarget & {
    source: string;
    stdin: NodeJS.ReadableStream;
    onProgress?: (progress: IngestCommandProgress) => void;
  },
): Promise<NatsIngestSummary> {
  const started = performance.now();
  const { counter, lines } = openSource(input);
  let read = 0;
  async function* numbered(): AsyncGenerator<NdjsonLine> {
    for await (const line of lines) {
      read = line.line;
      yield line;
    }
  }
  let result: NatsPublishResult;
  try {
    result = await publishNdjson(input, numbered(), (progress) =>
      input.onProgress?.({
        lines: progress.lines,
        accepted: 0,
        rejected: progress.rejected,
        bytes: counter.bytes,
        totalBytes: counter.totalBytes,
      }),
    );
  } catch (error) {
    if (error instanceof NatsPublishError) {
      const note =
        error.publishedLines > 0
          ? `\n${error.publishedLines} lines were published; running the same command again is safe`
          : '';
      throw new CliError(`${error.message}${note}`, EXIT.UNAVAILABLE);
    }
    throw error;
  }
  return {
    ...result,
    lines: read,
    bytes: counter.bytes,
    totalBytes: counter.totalBytes,
    seconds: (performance.now() - started) / 1000,
  };
}
