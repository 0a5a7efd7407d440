import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { createTenant, execution, workflow } from '../harness/fixtures.js';
import { startServer, type TestServer } from '../harness/server.js';
import { useServer } from '../harness/suite.js';
import { snapshotTables } from './dataset.js';
import { INGEST_TOKEN, ndjson, postIngest } from './http.js';

const GZIP = { 'content-encoding': 'gzip' };
const count = async (ctx: { db: { query: <R>(q: string) => Promise<R[]> } }, table: string) =>
  (await ctx.db.query<{ n: number }>(`select count(*)::int as n from ${table}`))[0]!.n;

describe('POST /ingest with a gzip body', () => {
  const ctx = useServer({ ingestToken: INGEST_TOKEN });

  it('answers 413 at once to a gzip bomb (64 MiB of zeros in 64 KB), having stored nothing', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 2 ** 20), { level: 9 });
    assert.ok(bomb.length < 100_000, String(bomb.length));
    const before = await snapshotTables(ctx.db);
    const started = performance.now();
    const answer = await postIngest(ctx.server.url, bomb, GZIP);
    const elapsed = performance.now() - started;
    assert.equal(answer.status, 413, JSON.stringify(answer.body));
    assert.equal(answer.body.errors[0].extensions.code, 'BAD_USER_INPUT');
    assert.equal(
      answer.body.errors[0].message,
      'The gzip body decompresses to more than 100 times its size (WFAPI_INGEST_MAX_GZIP_RATIO); nothing was stored',
    );
    assert.equal(answer.body.committedThroughLine, 0);
    assert.equal(answer.headers.get('connection'), 'close');
    // Generous: reading all of it took 15 s here; the refusal comes after its first MiB.
    assert.ok(elapsed < 10_000, `answered after ${elapsed.toFixed(0)} ms`);
    assert.equal(await snapshotTables(ctx.db), before);
  });

  it('refuses a bomb of valid records past the ratio, saying which of its lines are stored', async () => {
    const tenant = await createTenant(ctx.db);
    const flow = workflow(tenant.organizationId);
    const line = `${JSON.stringify(flow)}\n`;
    const bomb = gzipSync(line.repeat(Math.ceil((32 * 2 ** 20) / line.length)), { level: 9 });
    const answer = await postIngest(ctx.server.url, bomb, GZIP);
    assert.equal(answer.status, 413, JSON.stringify(answer.body).slice(0, 500));
    const through = answer.body.committedThroughLine as number;
    assert.ok(through * line.length <= 2 * 2 ** 20, `${through} lines stored`);
    assert.match(
      answer.body.errors[0].message,
      through === 0 ? /; nothing was stored$/ : new RegExp(`; the lines through ${through} are stored$`),
    );
    assert.equal(answer.body.accepted, through);
    assert.equal(await count(ctx, 'workflows'), through === 0 ? 0 : 1);
  });

  it('accepts several MiB of gzip at the ratio of ordinary records', async () => {
    const tenant = await createTenant(ctx.db);
    const flow = workflow(tenant.organizationId);
    const runs = Array.from({ length: 8000 }, () =>
      execution(tenant.organizationId, flow.uuid as string, { status: 'SUCCESS' }),
    );
    const text = ndjson([flow, ...runs]);
    assert.ok(text.length > 2 * 2 ** 20, String(text.length));
    const answer = await postIngest(ctx.server.url, gzipSync(text), GZIP);
    assert.equal(answer.status, 200, JSON.stringify(answer.body).slice(0, 500));
    assert.equal(answer.body.accepted, 8001);
  });

  describe('with a decompressed size limit', () => {
    let limited: TestServer;
    before(async () => {
      limited = await startServer(ctx.db, {
        ingestToken: INGEST_TOKEN,
        limits: { ingestMaxDecompressedBytes: 4000, ingestBatchSize: 2 },
      });
    });
    after(() => limited.close());

    it('answers 413 once the NDJSON passes WFAPI_INGEST_MAX_DECOMPRESSED_BYTES, with the complete lines within stored; a plain body of that size is read', async () => {
      const tenant = await createTenant(ctx.db);
      const records = Array.from({ length: 30 }, () => workflow(tenant.organizationId));
      const perLine = JSON.stringify(records[0]).length + 1;
      const answer = await postIngest(limited.url, gzipSync(ndjson(records)), GZIP);
      assert.equal(answer.status, 413);
      const within = Math.floor(4000 / perLine);
      assert.equal(answer.body.committedThroughLine, within);
      assert.equal(
        answer.body.errors[0].message,
        `The decompressed body exceeds 4000 bytes; the lines through ${within} are stored`,
      );
      assert.equal(await count(ctx, 'workflows'), within);
      const plain = await postIngest(limited.url, records);
      assert.equal(plain.status, 200);
      assert.equal(plain.body.accepted, 30);
    });
  });
});
