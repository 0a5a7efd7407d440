import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { createTenant, execution, log, workflow } from '../harness/fixtures.js';
import { startServer, type TestServer } from '../harness/server.js';
import { useServer } from '../harness/suite.js';
import { snapshotTables } from './dataset.js';
import { INGEST_TOKEN, ndjson, postIngest } from './http.js';

const count = async (ctx: { db: { query: <R>(q: string) => Promise<R[]> } }, table: string) =>
  (await ctx.db.query<{ n: number }>(`select count(*)::int as n from ${table}`))[0]!.n;

/** A request body that arrives in pieces, without a Content-Length. */
function streamed(source: readonly string[]): ReadableStream<Uint8Array> {
  const pieces = [...source];
  const encoder = new TextEncoder();
  return new ReadableStream({
    pull(controller) {
      const piece = pieces.shift();
      if (piece === undefined) controller.close();
      else controller.enqueue(encoder.encode(piece));
    },
  });
}

describe('POST /ingest', () => {
  const ctx = useServer({ ingestToken: INGEST_TOKEN, limits: { ingestBatchSize: 3 } });

  it('answers 404 like an unknown route when no ingest token is configured', async () => {
    const server = await startServer(ctx.db, {});
    try {
      const answer = await postIngest(server.url, []);
      assert.equal(answer.status, 404);
      assert.equal(answer.body.errors[0].extensions.code, 'NOT_FOUND');
      assert.equal(answer.body.errors[0].message, 'No route POST /ingest');
    } finally {
      await server.close();
    }
  });

  it('answers 401 with WWW-Authenticate: Bearer and the same body for a missing, wrong or misnamed token', async () => {
    const bodies = [];
    for (const authorization of [
      undefined,
      `Bearer ${INGEST_TOKEN}x`,
      `Apikey ${INGEST_TOKEN}`,
      'Bearer',
      '',
    ]) {
      const answer = await fetch(`${ctx.server.url}/ingest`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-ndjson',
          ...(authorization === undefined ? {} : { authorization }),
        },
        body: '{}\n',
      });
      assert.equal(answer.status, 401, String(authorization));
      assert.equal(answer.headers.get('www-authenticate'), 'Bearer');
      bodies.push(await answer.json());
    }
    for (const body of bodies) assert.deepEqual(body, bodies[0]);
    assert.equal(bodies[0].errors[0].extensions.code, 'UNAUTHENTICATED');
  });

  it('checks the token before the content type', async () => {
    const answer = await postIngest(ctx.server.url, '{}', {
      authorization: 'Bearer nope',
      'content-type': 'text/csv',
    });
    assert.equal(answer.status, 401);
  });

  it('answers 415 for any content type but application/x-ndjson in UTF-8', async () => {
    for (const contentType of [
      'application/json',
      'text/plain',
      'application/x-ndjson; charset=latin1',
      '',
    ]) {
      const answer = await postIngest(ctx.server.url, '{}\n', { 'content-type': contentType });
      assert.equal(answer.status, 415, contentType);
      assert.equal(answer.body.errors[0].extensions.code, 'BAD_USER_INPUT');
      assert.match(answer.body.errors[0].message, /application\/x-ndjson/);
    }
    const withCharset = await postIngest(ctx.server.url, '\n', {
      'content-type': 'application/x-ndjson; charset=UTF-8',
    });
    assert.equal(withCharset.status, 200);
  });

  it('leaves /graphql with its own body parsing', async () => {
    const tenant = await createTenant(ctx.db);
    const ndjsonQuery = await fetch(`${ctx.server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson', authorization: `Apikey ${tenant.key}` },
      body: '{"query":"{ getOrganization { tenantId } }"}\n',
    });
    assert.equal(ndjsonQuery.status, 415);
    const answer = await ctx.server.gql(tenant.key, '{ getOrganization { displayName } }');
    assert.equal(answer.body.data.getOrganization.displayName, 'Acme');
  });

  it('answers an empty body with nothing accepted', async () => {
    const answer = await postIngest(ctx.server.url, '');
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { accepted: 0, rejected: [], rejectedCount: 0 });
  });

  it('numbers lines from 1 over the whole body, counting blank lines and CRLF endings, and skips blank lines', async () => {
    const tenant = await createTenant(ctx.db);
    const wf = workflow(tenant.organizationId);
    const body = `\r\n${JSON.stringify(wf)}\r\n   \n\n{"type":"log"}\r\nnot json\n${JSON.stringify(wf)}`;
    const answer = await postIngest(ctx.server.url, body);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.accepted, 2);
    assert.deepEqual(
      answer.body.rejected.map((r: { line: number }) => r.line),
      [5, 6],
    );
    assert.match(answer.body.rejected[0].error, /organizationId is required/);
    assert.match(answer.body.rejected[1].error, /^invalid JSON/);
    assert.equal(answer.body.rejectedCount, 2);
  });

  it('stores the valid lines of a batch that also holds malformed ones', async () => {
    const tenant = await createTenant(ctx.db);
    const wf = workflow(tenant.organizationId);
    const ex = execution(tenant.organizationId, wf.uuid as string);
    // Batches of 3 lines: every batch has a broken line between valid ones.
    const answer = await postIngest(ctx.server.url, [
      wf,
      '{"type":',
      ex,
      log(tenant.organizationId, ex.uuid as string, { message: 'one' }),
      { ...ex, status: 'DONE' },
      log(tenant.organizationId, ex.uuid as string, { message: 'two' }),
    ]);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.accepted, 4);
    assert.deepEqual(
      answer.body.rejected.map((r: { line: number }) => r.line),
      [2, 5],
    );
    assert.equal(await count(ctx, 'workflows'), 1);
    assert.equal(await count(ctx, 'executions'), 1);
    assert.equal(await count(ctx, 'execution_logs'), 2);
    const read = await ctx.server.gql(tenant.key, '{ workflows(input: {}) { data { executionCount } } }');
    assert.equal(read.body.data.workflows.data[0].executionCount, 1);
  });

  it('rejects a line longer than 1 MiB, or not UTF-8, and goes on with the next line', async () => {
    const tenant = await createTenant(ctx.db);
    const wf = workflow(tenant.organizationId);
    const huge = JSON.stringify(workflow(tenant.organizationId, { name: 'x'.repeat(2 * 1024 * 1024) }));
    const encoder = new TextEncoder();
    const body = new Uint8Array([
      ...encoder.encode(`${huge}\n`),
      0xff,
      0xfe,
      0x0a,
      ...encoder.encode(`${JSON.stringify(wf)}\n`),
    ]);
    const answer = await postIngest(ctx.server.url, body);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.accepted, 1);
    assert.deepEqual(answer.body.rejected, [
      { line: 1, error: 'line is longer than 1048576 bytes' },
      { line: 2, error: 'line is not valid UTF-8' },
    ]);
    assert.equal(await count(ctx, 'workflows'), 1);
  });

  it('lists the first 1000 rejections and counts all of them', async () => {
    const answer = await postIngest(
      ctx.server.url,
      Array.from({ length: 1500 }, () => '[]'),
    );
    assert.equal(answer.status, 200);
    assert.equal(answer.body.rejected.length, 1000);
    assert.equal(answer.body.rejectedCount, 1500);
    assert.equal(answer.body.rejected[999].line, 1000);
    assert.equal(answer.body.rejected[0].error, 'a record must be a JSON object');
  });

  it('reads a gzip-encoded body, and refuses a broken one with 400', async () => {
    const tenant = await createTenant(ctx.db);
    const records = [workflow(tenant.organizationId), workflow(tenant.organizationId)];
    const answer = await postIngest(ctx.server.url, gzipSync(ndjson(records)), {
      'content-encoding': 'gzip',
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.accepted, 2);
    const broken = await postIngest(ctx.server.url, 'not gzip at all', { 'content-encoding': 'gzip' });
    assert.equal(broken.status, 400);
    assert.match(broken.body.errors[0].message, /gzip/);
    const other = await postIngest(ctx.server.url, 'x', { 'content-encoding': 'br' });
    assert.equal(other.status, 415);
  });

  it('answers only once every batch is committed, so what it accepted is readable at once', async () => {
    const tenant = await createTenant(ctx.db);
    const wf = workflow(tenant.organizationId);
    const executions = Array.from({ length: 20 }, () => execution(tenant.organizationId, wf.uuid as string));
    const answer = await postIngest(ctx.server.url, [wf, ...executions]);
    assert.equal(answer.body.accepted, 21);
    const read = await ctx.server.gql(tenant.key, '{ workflows(input: {}) { data { executionCount } } }');
    assert.equal(read.body.data.workflows.data[0].executionCount, 20);
  });

  describe('with a body limit', () => {
    let limited: TestServer;
    before(async () => {
      limited = await startServer(ctx.db, {
        ingestToken: INGEST_TOKEN,
        limits: { ingestMaxBodyBytes: 4000, ingestBatchSize: 2 },
      });
    });
    after(() => limited.close());

    it('answers 413 before reading a body whose Content-Length is over the limit, storing nothing', async () => {
      const tenant = await createTenant(ctx.db);
      const before = await snapshotTables(ctx.db);
      const records = Array.from({ length: 30 }, () => workflow(tenant.organizationId));
      const answer = await postIngest(limited.url, records);
      assert.equal(answer.status, 413);
      assert.equal(answer.body.errors[0].extensions.code, 'BAD_USER_INPUT');
      assert.match(answer.body.errors[0].message, /exceeds 4000 bytes; nothing was stored/);
      assert.equal(await snapshotTables(ctx.db), before);
    });

    it('answers 413 when a streamed body crosses the limit, having stored the complete lines within it', async () => {
      const tenant = await createTenant(ctx.db);
      const lines = Array.from({ length: 30 }, () => `${JSON.stringify(workflow(tenant.organizationId))}\n`);
      const perLine = lines[0]!.length;
      const response = await fetch(`${limited.url}/ingest`, {
        method: 'POST',
        headers: { authorization: `Bearer ${INGEST_TOKEN}`, 'content-type': 'application/x-ndjson' },
        body: streamed(lines),
        duplex: 'half',
      } as RequestInit);
      assert.equal(response.status, 413);
      const body = await response.json();
      const within = Math.floor(4000 / perLine);
      assert.equal(body.committedThroughLine, within);
      assert.equal(body.accepted, within);
      assert.match(body.errors[0].message, new RegExp(`the lines through ${within} are stored`));
      assert.equal(await count(ctx, 'workflows'), within);
    });
  });
});
