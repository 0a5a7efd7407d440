import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openPostgres } from '../../src/db/postgres.js';
import { createTenant } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { logLines, prepareServedDatabase, spawnServe } from '../ops/serve-process.js';
import { apikey, call, errorCode, postGraphql } from './http-client.js';

/** node:http, since fetch refuses methods such as TRACE. */
function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

describe('methods a path does not serve', () => {
  const ctx = useServer({ adminToken: 'admin-token', ingestToken: 'ingest-token' });

  it('answers 405 with Allow to TRACE, PROPFIND, PUT and an OPTIONS that is no preflight', async () => {
    for (const method of ['TRACE', 'PROPFIND', 'PUT', 'OPTIONS']) {
      const answer = await rawRequest(`${ctx.server.url}/graphql`, method);
      assert.equal(answer.status, 405, `${method}: ${answer.body}`);
      assert.equal(answer.headers.allow, 'GET, POST');
      assert.equal(JSON.parse(answer.body).errors[0].extensions.code, 'BAD_USER_INPUT');
    }
    for (const path of ['/admin/graphql', '/ingest']) {
      const answer = await rawRequest(`${ctx.server.url}${path}`, 'PROPFIND');
      assert.equal(answer.status, 405);
      assert.equal(answer.headers.allow, 'POST');
    }
    assert.equal((await rawRequest(`${ctx.server.url}/healthz`, 'TRACE')).headers.allow, 'GET');
  });

  it('still answers a CORS preflight with 204 and an unknown path with 404', async () => {
    const preflight = await rawRequest(`${ctx.server.url}/graphql`, 'OPTIONS', {
      origin: 'https://app.example',
      'access-control-request-method': 'POST',
    });
    assert.equal(preflight.status, 204);
    const unknown = await rawRequest(`${ctx.server.url}/nowhere`, 'TRACE');
    assert.equal(unknown.status, 404);
  });

  it('answers 405 with Allow: POST to a mutation sent with GET, on both GraphQL endpoints', async () => {
    const tenant = await createTenant(ctx.db);
    const query = encodeURIComponent('mutation { createApiKey(input: {}) { key } }');
    const answer = await call(`${ctx.server.url}/graphql?query=${query}`, {
      method: 'GET',
      headers: { authorization: apikey(tenant.key) },
    });
    assert.equal(answer.status, 405, answer.text);
    assert.equal(answer.headers.get('allow'), 'POST');
    assert.equal(errorCode(answer), 'BAD_USER_INPUT');
    const admin = await call(`${ctx.server.url}/admin/graphql?query=${query}`, { method: 'GET' });
    assert.equal(admin.status, 405);
    assert.equal(admin.headers.get('allow'), 'POST');
    // A query over GET still works.
    const read = await call(`${ctx.server.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
      method: 'GET',
      headers: { authorization: apikey(tenant.key) },
    });
    assert.equal(read.status, 200);
    assert.equal(
      (await postGraphql(ctx.server.url, apikey(tenant.key), { query: '{ __typename }' })).status,
      200,
    );
  });
});

describe('readiness against a database that never answers', () => {
  let blackHole: net.Server;
  const held: net.Socket[] = [];
  before(async () => {
    // Accepts connections and never says a word, as a partitioned database looks.
    blackHole = net.createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => blackHole.close(resolve));
  });

  it('answers /readyz with 503 within 2 s, and /healthz with 200', async () => {
    const port = (blackHole.address() as net.AddressInfo).port;
    const db = openPostgres(`postgres://postgres@127.0.0.1:${port}/none`, {
      poolSize: 2,
      statementTimeoutMs: 30_000,
    });
    const app = await buildApp(loadConfig({}, { port: 0, logLevel: 'silent' }), { db });
    const url = await app.listen();
    try {
      const started = performance.now();
      const ready = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(10_000) });
      const elapsed = performance.now() - started;
      assert.equal(ready.status, 503);
      assert.equal((await ready.json()).errors[0].extensions.code, 'SERVICE_UNAVAILABLE');
      assert.ok(elapsed < 2000, `took ${elapsed.toFixed(0)} ms`);
      assert.equal((await fetch(`${url}/healthz`)).status, 200);
    } finally {
      // The pool's connection attempts to the black hole end with their own timeout.
      await Promise.race([app.close(), new Promise((resolve) => setTimeout(resolve, 100))]);
      void db.close().catch(() => {});
    }
  });
});

/** A port nobody listens on. */
async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('an unreachable Redis', () => {
  it('is warned about once per outage, not once per request', async (t) => {
    const database = await prepareServedDatabase();
    t.after(() => database.close());
    const port = await closedPort();
    const serve = spawnServe({ ...database.env, REDIS_URL: `redis://127.0.0.1:${port}` });
    t.after(() => serve.kill());
    const url = await serve.ready;
    for (let i = 0; i < 10; i++) {
      const answer = await postGraphql(url, apikey(database.tenant.key), { query: '{ __typename }' });
      assert.equal(answer.status, 200, answer.text);
    }
    const warnings = logLines(serve.stdout()).filter((line) =>
      String(line.msg).startsWith('rate limiter unavailable'),
    );
    assert.equal(warnings.length, 1);
  });

  it('is warned about with the organization and key of the request, also at level warn', async (t) => {
    const database = await prepareServedDatabase();
    t.after(() => database.close());
    const port = await closedPort();
    // Above info a request logs nothing by itself: its logger is bound to it only when it logs.
    const serve = spawnServe({
      ...database.env,
      REDIS_URL: `redis://127.0.0.1:${port}`,
      WFAPI_LOG_LEVEL: 'warn',
    });
    t.after(() => serve.kill());
    const url = await serve.ready;
    const answer = await postGraphql(url, apikey(database.tenant.key), { query: '{ __typename }' });
    assert.equal(answer.status, 200, answer.text);
    // The line is written before the answer, but may reach this process's end of the pipe after it.
    const warned = (line: Record<string, unknown>) => String(line.msg).startsWith('rate limiter unavailable');
    for (let waited = 0; waited < 5_000 && !logLines(serve.stdout()).some(warned); waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const lines = logLines(serve.stdout());
    const warning = lines.find(warned);
    assert.equal(warning?.organizationId, database.tenant.organizationId);
    assert.equal(typeof warning?.keyId, 'string');
    assert.equal(
      lines.some((line) => line.msg === 'request completed'),
      false,
    );
  });
});
