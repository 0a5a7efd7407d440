import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { IngestUploadError, type UploadProgress, uploadNdjson } from '../../src/client/ingest-client.js';
import { createTenant, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { INGEST_TOKEN } from './http.js';

async function* linesOf(items: readonly unknown[]): AsyncGenerator<string> {
  for (const item of items) yield typeof item === 'string' ? item : JSON.stringify(item);
}

/**
 * A real HTTP server in front of the ingestion server: it answers the first requests with the
 * scripted statuses, then passes requests through. It counts every request it receives.
 */
async function frontServer(
  target: string,
  script: Array<{ status: number; headers?: Record<string, string> }>,
) {
  let requests = 0;
  const server: Server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    requests++;
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const step = script.shift();
    if (step) {
      response.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
      response.end(
        JSON.stringify({ errors: [{ message: `scripted ${step.status}`, extensions: { code: 'X' } }] }),
      );
      return;
    }
    const passed = await fetch(`${target}${request.url}`, {
      method: 'POST',
      headers: request.headers as Record<string, string>,
      body: Buffer.concat(chunks),
    });
    response.writeHead(passed.status, { 'content-type': 'application/json' });
    response.end(await passed.text());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return requests;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('uploadNdjson', () => {
  const ctx = useServer({ ingestToken: INGEST_TOKEN });
  const target = () => ({ url: ctx.server.url, token: INGEST_TOKEN });

  it('sends chunks and numbers rejected lines over the whole input', async () => {
    const tenant = await createTenant(ctx.db);
    const good = () => workflow(tenant.organizationId);
    const input = [good(), '{oops', good(), good(), '[]', good(), '', good(), { type: 'x' }, good()];
    const progress: UploadProgress[] = [];
    const result = await uploadNdjson(target(), linesOf(input), {
      chunkLines: 3,
      onProgress: (p) => progress.push(p),
    });
    assert.equal(result.accepted, 6);
    assert.equal(result.rejectedCount, 3);
    assert.deepEqual(
      result.rejected.map((r) => r.line),
      [2, 5, 9],
    );
    assert.deepEqual(
      progress.map((p) => p.lines),
      [3, 6, 9, 10],
    );
    assert.deepEqual(progress.at(-1), { lines: 10, accepted: 6, rejected: 3 });
  });

  it('retries a chunk after 503 and 429, waiting at least the Retry-After delay', async () => {
    const tenant = await createTenant(ctx.db);
    const front = await frontServer(ctx.server.url, [
      { status: 503 },
      { status: 429, headers: { 'retry-after': '1' } },
    ]);
    try {
      const retries: number[] = [];
      const started = performance.now();
      const result = await uploadNdjson(
        { url: front.url, token: INGEST_TOKEN },
        linesOf([workflow(tenant.organizationId), workflow(tenant.organizationId)]),
        { onRetry: ({ delayMs }) => retries.push(delayMs) },
      );
      assert.equal(result.accepted, 2);
      assert.equal(front.requests, 3);
      assert.equal(retries.length, 2);
      assert.ok(retries[1]! >= 1000);
      assert.ok(performance.now() - started >= 1000);
    } finally {
      await front.close();
    }
  });

  it('never retries a 4xx answer other than 429', async () => {
    const front = await frontServer(ctx.server.url, [{ status: 400 }, { status: 400 }]);
    try {
      await assert.rejects(
        uploadNdjson({ url: front.url, token: INGEST_TOKEN }, linesOf(['{}'])),
        (error: unknown) =>
          error instanceof IngestUploadError && error.status === 400 && /scripted 400/.test(error.message),
      );
      assert.equal(front.requests, 1);
    } finally {
      await front.close();
    }
    await assert.rejects(
      uploadNdjson({ url: ctx.server.url, token: 'wrong' }, linesOf(['{}'])),
      (error: unknown) => error instanceof IngestUploadError && error.status === 401,
    );
  });

  it('gives up after the retries when the server cannot be reached, saying what was stored', async () => {
    const closed = await frontServer(ctx.server.url, []);
    await closed.close();
    await assert.rejects(
      uploadNdjson({ url: closed.url, token: INGEST_TOKEN }, linesOf(['{}']), { retries: 2 }),
      (error: unknown) =>
        error instanceof IngestUploadError &&
        error.status === undefined &&
        /giving up after 3 attempts \(lines 1-1\): cannot reach/.test(error.message) &&
        error.partial.accepted === 0,
    );
  });

  it('stops when its signal is aborted', async () => {
    const front = await frontServer(ctx.server.url, [{ status: 503, headers: { 'retry-after': '30' } }]);
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('stop')), 200);
      await assert.rejects(
        uploadNdjson({ url: front.url, token: INGEST_TOKEN }, linesOf(['{}']), { signal: controller.signal }),
        /stop/,
      );
    } finally {
      await front.close();
    }
  });
});

describe('uploadNdjson to a server without an ingest token', () => {
  const ctx = useServer({ ingestToken: undefined });

  it('stops at the first 404 and says the server needs WFAPI_INGEST_TOKEN', async () => {
    const retries: string[] = [];
    await assert.rejects(
      uploadNdjson({ url: ctx.server.url, token: INGEST_TOKEN }, linesOf(['{}']), {
        onRetry: ({ reason }) => retries.push(reason),
      }),
      (error: unknown) =>
        error instanceof IngestUploadError &&
        error.status === 404 &&
        /no ingest endpoint .*WFAPI_INGEST_TOKEN/.test(error.message),
    );
    assert.deepEqual(retries, []);
  });
});
