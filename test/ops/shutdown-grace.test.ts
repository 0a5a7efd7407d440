import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../harness/eventually.js';
import {
  exitWithin,
  logLines,
  prepareServedDatabase,
  type ServedDatabase,
  spawnServe,
} from './serve-process.js';

const INGEST_TOKEN = 'shutdown-ingest-token';

describe('shutdown', () => {
  let database: ServedDatabase;
  before(async () => {
    database = await prepareServedDatabase();
  });
  after(async () => {
    await database?.close();
  });

  it('exits within WFAPI_SHUTDOWN_GRACE_MS of SIGTERM although an /ingest upload never ends', async (t) => {
    const serve = spawnServe({
      ...database.env,
      WFAPI_INGEST_TOKEN: INGEST_TOKEN,
      WFAPI_SHUTDOWN_GRACE_MS: '1000',
    });
    t.after(() => serve.kill());
    const url = await serve.ready;
    const upload = http.request(`${url}/ingest`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson', authorization: `Bearer ${INGEST_TOKEN}` },
    });
    upload.on('error', () => {});
    upload.flushHeaders();
    // A slow uploader: a blank line every 100 ms, for ever.
    const drip = setInterval(() => upload.write('\n'), 100);
    t.after(() => clearInterval(drip));
    // SIGTERM once the server has the upload in hand.
    await eventually(
      () =>
        logLines(serve.stdout()).some(
          (l) => l.msg === 'incoming request' && (l.req as { url?: string })?.url === '/ingest',
        ),
      () => `the upload never arrived: ${serve.stdout()}`,
    );
    const started = performance.now();
    serve.child.kill('SIGTERM');
    const exit = await exitWithin(serve, 10_000);
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 1000 + 1500, `exited ${elapsed.toFixed(0)} ms after SIGTERM`);
    assert.equal(exit.code, 0);
  });

  it('fails no accepted request when SIGTERM arrives under a 16-connection read load', async (t) => {
    const serve = spawnServe(database.env);
    t.after(() => serve.kill());
    const url = await serve.ready;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    t.after(() => agent.destroy());
    const path = `/graphql?query=${encodeURIComponent('{ getOrganization { displayName } }')}`;
    const statuses: number[] = [];
    const refusals: string[] = [];
    const get = () =>
      new Promise<void>((resolve) => {
        const request = http.get(
          `${url}${path}`,
          { agent, headers: { authorization: `Apikey ${database.tenant.key}` } },
          (response) => {
            response.resume();
            response.on('end', () => {
              statuses.push(response.statusCode!);
              resolve();
            });
            response.on('error', () => {
              statuses.push(-1);
              resolve();
            });
          },
        );
        // No answer at all: the connection was refused or closed before the request was read.
        request.on('error', (error: NodeJS.ErrnoException) => {
          refusals.push(error.code ?? error.message);
          resolve();
        });
      });
    let stopped = false;
    const loops = Array.from({ length: 16 }, async () => {
      while (!stopped) {
        const before = refusals.length;
        await get();
        if (refusals.length > before) break;
      }
    });
    // Under load: every connection busy when the signal arrives.
    await eventually(
      () => statuses.length >= 40,
      () => `only ${statuses.length} answers before SIGTERM`,
      {
        timeoutMs: 60_000,
      },
    );
    serve.child.kill('SIGTERM');
    const exit = await exitWithin(serve, 15_000);
    stopped = true;
    await Promise.all(loops);
    assert.equal(exit.code, 0);
    assert.ok(statuses.length >= 40, `only ${statuses.length} requests answered`);
    assert.deepEqual(
      statuses.filter((status) => status !== 200),
      [],
      'every answered request succeeded',
    );
    for (const code of refusals) assert.match(code, /ECONNREFUSED|ECONNRESET|socket hang up/);
    // Server side: every request that arrived was completed with 200.
    const lines = logLines(serve.stdout());
    const arrived = new Set(lines.filter((l) => l.msg === 'incoming request').map((l) => l.reqId));
    const completed = lines.filter((l) => l.msg === 'request completed');
    assert.equal(completed.length, arrived.size);
    assert.ok(completed.every((l) => (l.res as { statusCode: number }).statusCode === 200));
    assert.equal(completed.length, statuses.length);
  });
});
