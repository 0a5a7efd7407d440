/**
 * A gzip `/ingest` body, decompressed under a ratio limit: a few kilobytes of gzip can expand to
 * gigabytes (a decompression bomb), and ingestion work follows the decompressed size, so a body
 * may decompress to at most `maxRatio` times the compressed bytes read so far. Below
 * RATIO_FREE_BYTES of output the ratio is not checked: a small body costs little whatever it
 * expands to. The decompressed size is bounded by the stream's maxBodyBytes (see ingest.route.ts).
 */
import { pipeline, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { AppError } from '../errors.js';
import { BodyRefusedError } from './ingest-stream.js';

/** Decompressed bytes read before the ratio applies. */
export const RATIO_FREE_BYTES = 2 ** 20;

export async function* gunzipBody(payload: Readable, maxRatio: number): AsyncGenerator<Uint8Array> {
  const gunzip = createGunzip();
  // pipeline (unlike pipe) passes a dropped connection on to the gunzip stream being read.
  pipeline(payload, gunzip, () => {});
  // Read by hand, not with for-await: a refusal must leave the request stream alone (ending the
  // iteration would destroy it, and with it the connection the 413 is answered on).
  const chunks = gunzip[Symbol.asyncIterator]();
  let decompressed = 0;
  for (;;) {
    const next = await chunks.next();
    if (next.done) return;
    decompressed += next.value.length;
    // bytesWritten: the compressed bytes the decompressor has consumed to produce this much.
    if (decompressed > RATIO_FREE_BYTES && decompressed > maxRatio * gunzip.bytesWritten) {
      throw new BodyRefusedError(
        new AppError(
          'PAYLOAD_TOO_LARGE',
          `The gzip body decompresses to more than ${maxRatio} times its size (WFAPI_INGEST_MAX_GZIP_RATIO)`,
        ),
      );
    }
    yield next.value;
  }
}
