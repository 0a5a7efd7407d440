// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import {
  Client,
  NetworkError,
  RateLimitError,
  ServerError,
  TimeoutError,
  UnavailableError,
} from '../../src/client/index.js';
import { retryDelay } from '../../src/client/retry.js';
import { createTenant } from '../harness/fixtures.js';
import { freePort } from '../harness/process.js';
import { type ProxyAction, type ScriptedProxy, startScriptedProxy } from '../harness/scripted-proxy.js';
import { useServer } from '../harness/suite.js';

const UNAVAILABLE_BODY = JSON.stringify({
  errors: [
    { message: 'The database is unavailable; retry later', extensions: { code: 'SERVICE_UNAVAILABLE' } },
  ],
});
const json = { 'content-type': 'application/json' };

describe('the SDK retrying, timing out and cancelling', () => {
  // One request per second per key, so that the second request in a row is refused with 429.
  const ctx = useServer({ rateLimit: { burst: 1, perSecond: 1 } });
  const proxies: ScriptedProxy[] = [];
  after(async () => {
    for (const proxy of proxies) await proxy.close();
  });
  const proxy = async (script: (n: number) => ProxyAction) => {
    const started = await startScriptedProxy(ctx.server.url, script);
    proxies.push(started);
    return started;
  };

  it('retries after a 429, waiting at least the Retry-After the server sent', async () => {
    const t = await createTenant(ctx.db);
    const counting = await proxy(() => 'forward');
    const client = new Client({ url: counting.url, apiKey: t.key, retryDelayMs: 10 });
    await client.getOrganization();
    const started = Date.now();
    const organization = await client.getOrganization();
    assert.equal(organization?.organizationId, t.organizationId);
    assert.ok(Date.now() - started >= 1000, `waited only ${Date.now() - started} ms`);
    assert.equal(counting.requests, 3);
  });

  it('throws RateLimitError with the Retry-After when retries are off', async () => {
    const t = await createTenant(ctx.db);
    const client = new Client({ url: ctx.server.url, apiKey: t.key, retries: 0 });
    await client.getOrganization();
    const error = await client.getOrganization().catch((e: unknown) => e);
    assert.ok(error instanceof RateLimitError, String(error));
    assert.equal(error.status, 429);
    assert.equal(error.retryAfterMs, 1000);
    assert.equal(error.retryable, true);
  });

  it('does not wait for a Retry-After longer than its longest wait', async () => {
    const limited = await proxy(() => ({
      status: 429,
      headers: { ...json, 'retry-after': '120' },
      body: JSON.stringify({ errors: [{ message: 'slow down', extensions: { code: 'RATE_LIMITED' } }] }),
    }));
    const client = new Client({ url: limited.url, apiKey: 'k', maxRetryDelayMs: 5000 });
    const started = Date.now();
    const error = await client.getOrganization().catch((e: unknown) => e);
    assert.ok(error instanceof RateLimitError, String(error));
    assert.equal(error.retryAfterMs, 120_000);
    assert.equal(limited.requests, 1);
    assert.ok(Date.now() - started < 1000);
  });

  it('retries after the connection is dropped without an answer', async () => {
    const t = await createTenant(ctx.db);
    const dropping = await proxy((n) => (n === 1 ? 'drop' : 'forward'));
    const client = new Client({ url: dropping.url, apiKey: t.key, retryDelayMs: 10 });
    const account = await client.getAccountDetails();
    assert.equal(account?.memberId, t.memberId);
    assert.equal(dropping.requests, 2);
  });

  it('throws NetworkError for a dropped connection when retries are off', async () => {
    const dropping = await proxy(() => 'drop');
    const client = new Client({ url: dropping.url, apiKey: 'k', retries: 0 });
    const error = await client.getOrganization().catch((e: unknown) => e);
    assert.ok(error instanceof NetworkError, String(error));
    assert.ok(error instanceof UnavailableError);
    assert.equal(error.code, 'NETWORK_ERROR');
    assert.ok(error.message.startsWith(`cannot reach ${dropping.url}/graphql`), error.message);
  });

  it('throws NetworkError naming the cause when nothing listens at the URL', async () => {
    const port = await freePort();
    const client = new Client({ url: `http://127.0.0.1:${port}`, apiKey: 'k', retries: 0 });
    const error = await client.getOrganization().catch((e: unknown) => e);
    assert.ok(error instanceof NetworkError, String(error));
    assert.match(error.message, /ECONNREFUSED/);
  });

  it('retries a 503 and a 500 and then answers', async () => {
    const t = await createTenant(ctx.db);
    const flaky = await proxy((n): ProxyAction => {
      if (n === 1) return { status: 503, headers: { ...json, 'retry-after': '0' }, body: UNAVAILABLE_BODY };
      if (n === 2) return { status: 500, headers: { 'content-type': 'text/html' }, body: '<h1>oops</h1>' };
      return 'forward';
    });
    const client = new Client({ url: flaky.url, apiKey: t.key, retryDelayMs: 10 });
    assert.equal((await client.getOrganization())?.organizationId, t.organizationId);
    assert.equal(flaky.requests, 3);
  });

  it('gives up after its retries with the last error', async () => {
    const down = await proxy(() => ({ status: 503, headers: json, body: UNAVAILABLE_BODY }));
    const client = new Client({ url: down.url, apiKey: 'k', retries: 2, retryDelayMs: 10 });
    const error = await client.getOrganization().catch((e: unknown) => e);
    assert.ok(error instanceof UnavailableError, String(error));
    assert.equal(error.code, 'SERVICE_UNAVAILABLE');
    assert.equal(error.message, 'The database is unavailable; retry later');
    assert.equal(down.requests, 3);
  });

  it('classifies an answer without a GraphQL body by its HTTP status', async () => {
    const gateway = await proxy(() => ({
      status: 502,
      headers: { 'content-type': 'text/html' },
      body: '<html>',
    }));
    const error = await new Client({ url: gateway.url, apiKey: 'k', retries: 0 })
      .getOrganization()
      .catch((e: unknown) => e);
    assert.ok(error instanceof UnavailableError, String(error));
    assert.equal(error.message, 'HTTP 502 (text/html)');
    const broken = await proxy(() => ({ status: 500, headers: json, body: '{"errors":[]}' }));
    const serverError = await new Client({ url: broken.url, apiKey: 'k', retries: 0 })
      .getOrganization()
      .catch((e: unknown) => e);
    assert.ok(serverError instanceof ServerError, String(serverError));
  });

  it('times out an attempt that gets no answer', async () => {
    const silent = await proxy(() => 'hang');
    const client = new Client({ url: silent.url, apiKey: 'k', retries: 0, timeoutMs: 200 });
    const started = Date.now();
    const error = await client.getOrganization().catch((e: unknown) => e);
    assert.ok(error instanceof TimeoutError, String(error));
    assert.equal(error.code, 'TIMEOUT');
    assert.ok(Date.now() - started < 2000);
  });

  it('cancels a request in flight with the signal and rejects with its reason', async () => {
    const silent = await proxy(() => 'hang');
    const client = new Client({ url: silent.url, apiKey: 'k' });
    const controller = new AbortController();
    const request = client.getOrganization({ signal: controller.signal }).catch((e: unknown) => e);
    // Cancelled once the server holds the request, which it never answers.
    await silent.arrived(1);
    controller.abort();
    const error = await request;
    assert.equal((error as Error).name, 'AbortError');
    assert.equal(silent.requests, 1);
  });

  it('cancels while waiting to retry', async () => {
    const down = await proxy(() => ({
      status: 503,
      headers: { ...json, 'retry-after': '20' },
      body: UNAVAILABLE_BODY,
    }));
    const client = new Client({ url: down.url, apiKey: 'k' });
    const controller = new AbortController();
    const waits: number[] = [];
    const started = Date.now();
    const error = await client
      .getOrganization({
        signal: controller.signal,
        // The client is about to wait the 20 s the server asked for: cancelled once that wait has begun.
        onRetry: ({ delayMs }) => {
          waits.push(delayMs);
          setImmediate(() => controller.abort(new Error('user gave up')));
        },
      })
      .catch((e: unknown) => e);
    assert.equal((error as Error).message, 'user gave up');
    assert.ok(waits.length === 1 && waits[0]! >= 20_000, `waits: ${waits}`);
    assert.ok(Date.now() - started < 2000);
    assert.equal(down.requests, 1);
  });

  it('backs off exponentially with full jitter, and never waits less than Retry-After', () => {
    const policy = { retries: 5, baseDelayMs: 100, maxDelayMs: 1000 };
    assert.equal(
      retryDelay(policy, 0, undefined, () => 0.999),
      99,
    );
    assert.equal(
      retryDelay(policy, 3, undefined, () => 0.999),
      799,
    );
    assert.equal(
      retryDelay(policy, 4, undefined, () => 0.999),
      999,
    );
    assert.equal(
      retryDelay(policy, 2, undefined, () => 0),
      0,
    );
    assert.equal(
      retryDelay(policy, 0, 700, () => 0),
      700,
    );
    assert.ok(retryDelay(policy, 0, 700, () => 0.999)! < 800);
    assert.equal(retryDelay(policy, 0, 2000), undefined);
    assert.equal(retryDelay(policy, 5, undefined), undefined);
  });
});
