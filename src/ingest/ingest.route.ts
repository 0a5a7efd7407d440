/**
 * `POST /ingest` (contract section 3): an operator endpoint that streams an NDJSON body into the
 * database in batches and answers once every batch is committed.
 */
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { AppError, isDatabaseUnavailable, sendError, unavailable } from '../errors.js';
import { operatorGuard } from '../modules/auth/operator-token.js';
import type { RateLimiter } from '../modules/auth/rate-limit.js';
import { gunzipBody } from './gzip-body.js';
import type { IngestObserver } from './ingest.store.js';
import {
  BATCH_BYTES,
  type BodyRefusedError,
  type IngestBatchOutcome,
  IngestInterruptedError,
  type IngestProgress,
  ingestNdjson,
} from './ingest-stream.js';
import { WriteSlots } from './write-slots.js';

export interface IngestRouteDeps {
  readonly config: Config;
  readonly db: Database;
  readonly rateLimiter: RateLimiter;
  /** Steps each batch runs inside its transaction (app.ts: the change feed, the alert outbox). */
  readonly observers: readonly IngestObserver[];
  /** Told each committed batch (metrics). */
  readonly onBatch?: (outcome: IngestBatchOutcome) => void;
  /** Told once a request has stored at least one record (app.ts: reads see the new freshness mark at once). */
  readonly afterStored?: () => void;
}

export const NDJSON = 'application/x-ndjson';
/** Rejections listed in one answer; `rejectedCount` counts them all. */
export const MAX_LISTED_REJECTIONS = 1000;

/** `application/x-ndjson`, optionally with `charset=utf-8`: the only body this endpoint reads. */
function checkMediaType(request: FastifyRequest): void {
  const [type, ...params] = (request.headers['content-type'] ?? '').toLowerCase().split(';');
  const charset = params.map((p) => p.trim()).find((p) => p.startsWith('charset='));
  const utf8 = charset === undefined || /^charset="?utf-8"?$/.test(charset);
  if (type?.trim() !== NDJSON || !utf8) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Unsupported Content-Type; send ${NDJSON} (UTF-8)`);
  }
  const encoding = (request.headers['content-encoding'] ?? 'identity').toLowerCase().trim();
  if (encoding !== 'identity' && encoding !== 'gzip') {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Unsupported Content-Encoding ${encoding}; send identity or gzip`,
    );
  }
}

const isGzip = (request: FastifyRequest) =>
  request.headers['content-encoding']?.toLowerCase().trim() === 'gzip';

/** The NDJSON a body may hold: a gzip body's decompressed size has its own, lower, bound. */
const maxNdjsonBytes = (config: Config, gzip: boolean) =>
  gzip
    ? Math.min(config.limits.ingestMaxBodyBytes, config.limits.ingestMaxDecompressedBytes)
    : config.limits.ingestMaxBodyBytes;

function bodyTooLarge(config: Config, gzip = false): string {
  return gzip
    ? `The decompressed body exceeds ${maxNdjsonBytes(config, true)} bytes`
    : `The request body exceeds ${config.limits.ingestMaxBodyBytes} bytes`;
}

/** What an answer cut short says is stored. */
const stored = (progress: IngestProgress) =>
  progress.committedThroughLine === 0
    ? 'nothing was stored'
    : `the lines through ${progress.committedThroughLine} are stored`;

/** Error answers that stop mid-stream also say what is already durable. */
function interrupted(progress: IngestProgress): Record<string, unknown> {
  return {
    accepted: progress.accepted,
    rejected: progress.rejected,
    rejectedCount: progress.rejectedCount,
    committedThroughLine: progress.committedThroughLine,
  };
}

/**
 * The body's chunks, with at most `ms` of waiting for each: a client that stops sending (or sends
 * a byte now and then, slower than that) has its connection closed. Time the server spends
 * writing a batch is not counted, since nothing is awaited from the client then.
 */
async function* withIdleTimeout(
  body: AsyncIterable<Uint8Array>,
  ms: number,
  onIdle: () => void,
): AsyncGenerator<Uint8Array> {
  const chunks = body[Symbol.asyncIterator]();
  for (;;) {
    const timer = setTimeout(onIdle, ms);
    let next: IteratorResult<Uint8Array>;
    try {
      next = await chunks.next();
    } finally {
      clearTimeout(timer);
    }
    if (next.done) return;
    yield next.value;
  }
}

export function registerIngestRoutes(app: FastifyInstance, deps: IngestRouteDeps): void {
  const { config, db, rateLimiter } = deps;
  // Without a token the endpoint does not exist: it answers like any unknown route.
  if (!config.ingestToken) return;
  const guard = operatorGuard({
    token: config.ingestToken,
    name: 'ingest',
    rateLimiter,
    failureLimit: config.authFailureLimit,
  });
  // PGlite has one connection and queues by itself; a PostgreSQL pool keeps half for reads.
  const slots = new WriteSlots(Math.floor(config.dbPoolSize / 2));

  // An encapsulated scope: the NDJSON parser and the hooks apply to this route only.
  app.register(async (scope) => {
    scope.addContentTypeParser(NDJSON, (_request, payload, done) => done(null, payload));

    scope.addHook('onRequest', async (request, reply) => {
      try {
        await guard.admit(request.headers.authorization, request.ip);
        checkMediaType(request);
        // The limit is on the NDJSON itself: a gzip body's length says nothing about it.
        const length = Number(request.headers['content-length']);
        if (!isGzip(request) && length > config.limits.ingestMaxBodyBytes) {
          throw new AppError('PAYLOAD_TOO_LARGE', `${bodyTooLarge(config)}; nothing was stored`);
        }
      } catch (error) {
        // A refused body is not read: closing beats draining up to gigabytes of it. Without a
        // body (e.g. a token guess) the connection stays usable.
        const bodyless = request.headers['content-length'] === '0' && !request.headers['transfer-encoding'];
        if (!bodyless) reply.header('connection', 'close');
        throw error;
      }
    });

    scope.post('/ingest', async (request: FastifyRequest, reply: FastifyReply) => {
      const payload = request.body as Readable | undefined;
      const gzip = isGzip(request);
      const raw: AsyncIterable<Uint8Array> = !payload
        ? (async function* () {})()
        : gzip
          ? gunzipBody(payload, config.limits.ingestMaxGzipRatio)
          : payload;
      const body = withIdleTimeout(raw, config.connections.ingestIdleTimeoutMs, () => {
        request.log.info('the client sent nothing for the ingest idle timeout; closing');
        request.raw.destroy();
      });
      try {
        const progress = await ingestNdjson(db, body, {
          batchSize: config.limits.ingestBatchSize,
          batchBytes: BATCH_BYTES,
          maxBodyBytes: maxNdjsonBytes(config, gzip),
          maxRejections: MAX_LISTED_REJECTIONS,
          runBatch: (write) => slots.run(write),
          observers: deps.observers,
          onBatch: deps.onBatch,
        });
        if (progress.accepted > 0) deps.afterStored?.();
        return reply.code(200).send({
          accepted: progress.accepted,
          rejected: progress.rejected,
          rejectedCount: progress.rejectedCount,
        });
      } catch (error) {
        if (!(error instanceof IngestInterruptedError)) {
          const code = (error as { code?: unknown }).code;
          if (gzip && typeof code === 'string' && code.startsWith('Z_')) {
            throw new AppError('BAD_USER_INPUT', 'The request body is not a valid gzip stream');
          }
          if (request.raw.destroyed || request.raw.aborted) {
            // Nobody is left to answer; what was committed stays, and a re-send is safe.
            request.log.info('the client closed the connection before the end of the body');
            return sendError(reply, new AppError('BAD_USER_INPUT', 'Connection closed'));
          }
          throw error;
        }
        // The rest of the body is not read: close the connection rather than drain it.
        reply.header('connection', 'close');
        if (error.reason === 'refused') {
          const refusal = (error.cause as BodyRefusedError).error;
          const message = `${refusal.message}; ${stored(error.progress)}`;
          return sendError(reply, new AppError(refusal.kind, message), interrupted(error.progress));
        }
        if (error.reason === 'body-too-large') {
          const message = gzip
            ? `${bodyTooLarge(config, true)}; ${stored(error.progress)}`
            : `${bodyTooLarge(config)}; the lines through ${error.progress.committedThroughLine} are stored`;
          return sendError(reply, new AppError('PAYLOAD_TOO_LARGE', message), interrupted(error.progress));
        }
        if (!isDatabaseUnavailable(error.cause)) throw error.cause;
        request.log.warn({ err: error.cause }, 'ingestion interrupted: database unavailable');
        const message = `The database is unavailable; the lines through ${error.progress.committedThroughLine} are stored, and re-sending everything is safe`;
        return sendError(reply, unavailable(message), interrupted(error.progress));
      }
    });
  });
}
