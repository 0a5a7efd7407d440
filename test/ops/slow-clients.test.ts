// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import { eventually } from '../harness/eventually.js';
import { createTenant } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';

const INGEST_TOKEN = 'slow-ingest-token';

/** A raw connection that records what it receives and when it is closed. */
async function connect(url: string) {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  await new Promise((resolve) => socket.once('connect', resolve));
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString();
  });
  socket.on('error', () => {});
  const closed = new Promise<number>((resolve) => {
    const opened = performance.now();
    socket.once('close', () => resolve(performance.now() - opened));
  });
  return { socket, closed, received: () => received };
}

/** Resolves with the close time, or 'open' if the connection still lives after `ms`. */
const closedWithin = (closed: Promise<number>, ms: number) =>
  Promise.race([closed, new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), ms))]);

describe('slow clients', () => {
  const ctx = useServer({
    ingestToken: INGEST_TOKEN,
    connections: {
      maxConnectionsPerAddress: 8,
      headersTimeoutMs: 600,
      bodyTimeoutMs: 800,
      keepAliveTimeoutMs: 500,
      ingestIdleTimeoutMs: 600,
    },
  });

  it('closes connections whose body or headers trickle in a byte at a time', async () => {
    const tenant = await createTenant(ctx.db);
    const body = JSON.stringify({ query: '{ __typename }' });
    const slowBodies = await Promise.all(Array.from({ length: 3 }, () => connect(ctx.server.url)));
    for (const { socket } of slowBodies) {
      socket.write(
        `POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Apikey ${tenant.key}\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
    }
    const slowHeaders = await connect(ctx.server.url);
    slowHeaders.socket.write('POST /graphql HTTP/1.1\r\nHost: x\r\n');
    let i = 0;
    const drip = setInterval(() => {
      for (const { socket } of slowBodies) if (!socket.destroyed) socket.write(body[i % body.length]!);
      if (!slowHeaders.socket.destroyed) slowHeaders.socket.write('X');
      i += 1;
    }, 100);
    try {
      for (const connection of slowBodies) {
        assert.notEqual(await closedWithin(connection.closed, 3000), 'open', 'a slow body was never cut');
        assert.match(connection.received(), /^HTTP\/1\.1 408 /);
      }
      assert.notEqual(await closedWithin(slowHeaders.closed, 3000), 'open', 'slow headers were never cut');
    } finally {
      clearInterval(drip);
    }
  });

  it('cuts a late body only once its time limit has passed, and answers a body completed inside it', async () => {
    const tenant = await createTenant(ctx.db);
    const body = JSON.stringify({ query: '{ __typename }' });
    const head = `POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Apikey ${tenant.key}\r\nContent-Length: ${body.length}\r\n\r\n`;
    const late = await connect(ctx.server.url);
    const inTime = await connect(ctx.server.url);
    late.socket.write(head + body.slice(0, 5));
    inTime.socket.write(head + body.slice(0, 5));
    // Five eighths of the 800 ms limit: the body is checked by sweeps, never cut before the limit.
    // Kept: a client slow in real time is what is tested, and the limit is Node's connection's and
    // the sweeper's, which take no clock (the bound below allows the wait to overrun by 300 ms).
    await new Promise((resolve) => setTimeout(resolve, 500));
    inTime.socket.write(body.slice(5));
    const lateClosedAfter = await closedWithin(late.closed, 3000);
    assert.notEqual(lateClosedAfter, 'open', 'a late body was never cut');
    assert.ok(
      Number(lateClosedAfter) >= 800,
      `cut ${Number(lateClosedAfter).toFixed(0)} ms after connecting, before the limit`,
    );
    assert.match(late.received(), /^HTTP\/1\.1 408 /);
    assert.match(
      inTime.received(),
      /^HTTP\/1\.1 200 /,
      'the body that completed inside the limit was not answered',
    );
    assert.match(inTime.received(), /"__typename":"Query"/);
    inTime.socket.destroy();
  });

  it('closes an /ingest upload that stops sending, after the idle timeout and not before', async () => {
    const upload = await connect(ctx.server.url);
    upload.socket.write(
      `POST /ingest HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\nAuthorization: Bearer ${INGEST_TOKEN}\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    // Chunks every 300 ms for 1.5 s, longer than the idle timeout in all: the upload lives on.
    // Kept: the idle timeout is the socket's own (Node's), with no clock to move instead.
    for (let n = 0; n < 5; n++) {
      upload.socket.write('1\r\n\n\r\n');
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    assert.equal(upload.socket.destroyed, false, 'an upload sending in time was cut');
    // Then nothing: cut after about 600 ms.
    assert.notEqual(await closedWithin(upload.closed, 3000), 'open', 'an idle upload was never cut');
  });

  it('refuses connections past the per-address cap with 429, and admits again once they close', async () => {
    const held = await Promise.all(Array.from({ length: 8 }, () => connect(ctx.server.url)));
    const extra = await connect(ctx.server.url);
    assert.notEqual(await closedWithin(extra.closed, 2000), 'open');
    assert.match(extra.received(), /^HTTP\/1\.1 429 /);
    assert.match(extra.received(), /"code":"RATE_LIMITED"/);
    for (const { socket } of held) socket.destroy();
    await Promise.all(held.map((connection) => connection.closed));
    // Admitted again once the server has seen the closes too: the first answer after them that is
    // not a refusal, within a deadline.
    await eventually(
      () =>
        fetch(`${ctx.server.url}/healthz`).then(
          (response) => response.status === 200,
          () => false,
        ),
      'no connection admitted after the held ones closed',
      { timeoutMs: 5_000 },
    );
  });
});
