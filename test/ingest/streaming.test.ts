import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { freePort, type WfapiProcess } from '../harness/process.js';
import { memoryOf, serve, serverDatabase } from './child-server.js';
import { INGEST_TOKEN } from './http.js';

const BODY_BYTES = 200 * 1024 * 1024;
const DISTINCT_LINES = 2000;
/**
 * The server's old-space heap: under half the body, so a server that held the body would die.
 * The server runs from source through tsx, and about 42 MB stayed live after a full collection;
 * with 64 MB, one batch (held several times over while written) ran it out of memory in CI and
 * on a loaded machine, at this commit's parent as well.
 */
const HEAP_MB = 96;
/**
 * Peak resident memory growth allowed while the 200 MB body streams through. A server that holds
 * the body (its chunks are Buffers, outside the 96 MB heap) grows by the body: 207 MB when the
 * route collected the chunks before reading them. Streaming, it grew 37-60 MB on a quiet machine
 * and 105 MB once in CI beside three other test files (the embedded database's memory grows in
 * steps), which failed the bound of 100 MB this had before.
 */
const RSS_GROWTH_BOUND = 150 * 1024 * 1024;
const WARM_UP_BYTES = 30 * 1024 * 1024;

describe('a large streamed upload', () => {
  it('is processed in bounded memory by a server with a 96 MB heap', { timeout: 300_000 }, async (t) => {
    const database = await serverDatabase();
    const port = await freePort();
    const { organizationId } = database.tenant;
    let server: WfapiProcess | undefined;
    try {
      server = await serve(database.env, port, [`--max-old-space-size=${HEAP_MB}`]);
      const workflowUUID = '11111111-1111-4111-8111-111111111111';
      const executionUUID = '22222222-2222-4222-8222-222222222222';
      const head = [
        {
          type: 'workflow',
          organizationId,
          uuid: workflowUUID,
          workflowId: 'w',
          name: 'w',
          ownerAddress: '0x1',
          status: 'ACTIVE',
          registeredAt: '2026-01-01T00:00:00Z',
        },
        {
          type: 'execution',
          organizationId,
          uuid: executionUUID,
          id: 'e',
          workflowUUID,
          status: 'SUCCESS',
          startedAt: '2026-01-02T00:00:00Z',
        },
      ];
      // About 1 KB log lines, repeating: 200 MB of valid records while the database stays small.
      const encoder = new TextEncoder();
      const lines = [
        ...head,
        ...Array.from({ length: DISTINCT_LINES }, (_, i) => ({
          type: 'log',
          organizationId,
          workflowExecutionUUID: executionUUID,
          nodeID: `node-${i % 7}`,
          message: `line ${i} `.padEnd(900, 'x'),
          timestamp: new Date(Date.parse('2026-01-02T00:00:00Z') + i).toISOString(),
        })),
      ].map((record) => encoder.encode(`${JSON.stringify(record)}\n`));
      let sentBytes = 0;
      let sentLines = 0;
      const upload = async (bytes: number) => {
        sentBytes = 0;
        sentLines = 0;
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sentBytes >= bytes) return controller.close();
            const line = lines[sentLines++ % lines.length]!;
            sentBytes += line.length;
            controller.enqueue(line);
          },
        });
        return fetch(`http://127.0.0.1:${port}/ingest`, {
          method: 'POST',
          headers: { authorization: `Bearer ${INGEST_TOKEN}`, 'content-type': 'application/x-ndjson' },
          body,
          duplex: 'half',
        } as RequestInit);
      };
      // A first, smaller upload warms the database's own caches, which are not the body's doing.
      // A reset connection means the server answered early or died: say which, with its output.
      const uploadOrSay = (bytes: number) =>
        upload(bytes).catch((error: Error) => {
          throw new Error(
            `upload failed (${error.message}); server output: ${server?.output().slice(-3000)}`,
            {
              cause: error,
            },
          );
        });
      const warm = await uploadOrSay(WARM_UP_BYTES);
      assert.equal(warm.status, 200, await warm.clone().text());
      const pid = server.child.pid!;
      const baseline = memoryOf(pid).rss;
      let peak = baseline;
      const sampler = setInterval(() => {
        peak = Math.max(peak, memoryOf(pid).rss);
      }, 20);
      const started = performance.now();
      let response: Response;
      try {
        response = await uploadOrSay(BODY_BYTES);
      } finally {
        clearInterval(sampler);
      }
      const answer = await response.json();
      const seconds = (performance.now() - started) / 1000;
      t.diagnostic(
        `${(sentBytes / 2 ** 20).toFixed(0)} MB, ${sentLines} lines in ${seconds.toFixed(1)} s; server RSS ` +
          `${(baseline / 2 ** 20).toFixed(0)} MB before, peak ${(peak / 2 ** 20).toFixed(0)} MB during`,
      );
      assert.equal(response.status, 200, JSON.stringify(answer));
      assert.equal(answer.accepted, sentLines);
      assert.equal(answer.rejectedCount, 0);
      assert.ok(peak - baseline < RSS_GROWTH_BOUND, `server RSS grew by ${(peak - baseline) / 2 ** 20} MB`);
      await server.kill('SIGTERM');
      const db = await database.open();
      const [stored] = await db.query<{ n: number }>('select count(*)::int as n from execution_logs');
      assert.equal(stored!.n, DISTINCT_LINES);
    } finally {
      await server?.kill();
      await database.cleanup();
    }
  });
});
