import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { parseApiKey } from '../../src/modules/auth/api-key.js';
import { eventually } from '../harness/eventually.js';
import {
  exitWithin,
  logLines,
  prepareServedDatabase,
  type ServedDatabase,
  spawnServe,
} from './serve-process.js';

const ADMIN_TOKEN = 'admin-token-4f1c9a7e2b6d8053a1c4e9f7';
const INGEST_TOKEN = 'ingest-token-9d2e7b4c1a6f8035e2d7c4b9';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function post(url: string, path: string, headers: Record<string, string>, body: string) {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe('wfapi serve at run time', () => {
  let database: ServedDatabase;
  before(async () => {
    database = await prepareServedDatabase();
  });
  after(async () => {
    await database?.close();
  });

  it('answers /healthz and /readyz with 200 while the database answers', async (t) => {
    const serve = spawnServe(database.env);
    t.after(() => serve.kill());
    const url = await serve.ready;
    const health = await fetch(`${url}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok' });
    const ready = await fetch(`${url}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), { status: 'ready' });
  });

  it('finishes a request in flight on SIGTERM, answering 200, then exits with code 0', async (t) => {
    const serve = spawnServe(database.env);
    t.after(() => serve.kill());
    const url = await serve.ready;
    const body = JSON.stringify({ query: '{ getOrganization { displayName } }' });
    // A keep-alive client, as browsers and SDKs are: the drain must not wait for its idle socket.
    const agent = new http.Agent({ keepAlive: true });
    t.after(() => agent.destroy());
    const request = http.request(`${url}/graphql`, {
      method: 'POST',
      agent,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        authorization: `Apikey ${database.tenant.key}`,
        'x-request-id': 'drain-1',
      },
    });
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      request.on('response', (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        response.on('end', () => resolve({ status: response.statusCode!, text }));
      });
      request.on('error', reject);
    });
    request.write(body.slice(0, 10));
    // The server has routed the request once it logged its arrival.
    await eventually(() => serve.stdout().includes('"reqId":"drain-1"'), 'the request to arrive', {
      timeoutMs: 10_000,
    });

    serve.child.kill('SIGTERM');
    await eventually(
      async () => {
        try {
          await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
          return false;
        } catch {
          return true;
        }
      },
      'the server to stop accepting connections',
      { timeoutMs: 10_000, everyMs: 50 },
    );
    assert.equal(serve.child.exitCode, null, 'the process exited with a request in flight');

    request.end(body.slice(10));
    const response = await answered;
    assert.equal(response.status, 200);
    assert.deepEqual(JSON.parse(response.text).data, { getOrganization: { displayName: 'Served Org' } });
    // The client keeps its connection alive: the server must close it rather than wait it out.
    assert.deepEqual(await exitWithin(serve, 5_000), { code: 0, signal: null });
  });

  it('logs JSON lines with the request id and organizationId, and never an API key or operator token', async (t) => {
    const serve = spawnServe({
      ...database.env,
      WFAPI_ADMIN_TOKEN: ADMIN_TOKEN,
      WFAPI_INGEST_TOKEN: INGEST_TOKEN,
    });
    t.after(() => serve.kill());
    const url = await serve.ready;
    const key = database.tenant.key;
    const query = JSON.stringify({ query: '{ getOrganization { displayName } }' });

    const named = await post(
      url,
      '/graphql',
      { authorization: `Apikey ${key}`, 'x-request-id': 'ops-log-1' },
      query,
    );
    assert.equal(named.status, 200);
    assert.equal(named.headers.get('x-request-id'), 'ops-log-1');

    const unnamed = await post(url, '/graphql', { authorization: `Apikey ${key}` }, query);
    assert.match(unnamed.headers.get('x-request-id') ?? '', UUID);
    const invalid = await post(
      url,
      '/graphql',
      { authorization: `Apikey ${key}`, 'x-request-id': 'no spaces allowed' },
      query,
    );
    assert.match(invalid.headers.get('x-request-id') ?? '', UUID);

    // Credentials in every place a careless log could pick them up from.
    await post(url, '/graphql', { authorization: `Apikey ${key}` }, JSON.stringify({ query: '{ nope }' }));
    await post(url, '/graphql', { authorization: `Bearer ${key}` }, query);
    await post(url, '/graphql', { authorization: `Apikey ${key}x` }, query);
    await post(
      url,
      '/admin/graphql',
      { authorization: `Bearer ${ADMIN_TOKEN}` },
      JSON.stringify({ query: '{ __typename }' }),
    );
    await post(
      url,
      '/ingest',
      { authorization: `Bearer ${INGEST_TOKEN}`, 'content-type': 'application/x-ndjson' },
      '{}\n',
    );

    serve.child.kill('SIGTERM');
    assert.deepEqual(await exitWithin(serve, 5_000), { code: 0, signal: null });
    const output = serve.stdout() + serve.stderr();
    const lines = logLines(serve.stdout());

    const ofNamed = lines.filter((line) => line.reqId === 'ops-log-1');
    assert.ok(ofNamed.length >= 2, 'expected the arrival and the completion of ops-log-1 to be logged');
    const completed = ofNamed.find((line) => line.msg === 'request completed');
    assert.equal(completed?.organizationId, database.tenant.organizationId);
    assert.ok(lines.some((line) => line.reqId === unnamed.headers.get('x-request-id')));

    for (const secret of [key, parseApiKey(key)!.secret, ADMIN_TOKEN, INGEST_TOKEN]) {
      assert.equal(output.includes(secret), false, `the log contains a secret: ${secret.slice(0, 8)}…`);
    }
  });
});
