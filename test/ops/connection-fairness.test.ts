// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { describe, it } from 'node:test';
import { useServer } from '../harness/suite.js';

/**
 * A connection from the loopback address `from` (Linux routes all of 127.0.0.0/8 to loopback)
 * that sends the start of a request's headers and never the rest.
 */
async function slowHeaders(url: string, from: string) {
  const { hostname, port } = new URL(url);
  const socket = net.connect({ port: Number(port), host: hostname, localAddress: from });
  socket.on('error', () => {});
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString();
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
  return { socket, closed, received: () => received };
}

/** GET /healthz from the loopback address `from`, on a new connection. */
function healthFrom(url: string, from: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${url}/healthz`, { localAddress: from, agent: false }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    });
    request.on('error', reject);
  });
}

describe('connections shared between addresses', () => {
  const ctx = useServer({
    connections: { maxConnections: 12, maxConnectionsPerAddress: 4, headersTimeoutMs: 60_000 },
  });

  it('answers a request from a new address while a few addresses hold every connection with slow headers', async (t) => {
    const attackers = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'];
    const held: Array<Awaited<ReturnType<typeof slowHeaders>>> = [];
    t.after(() => {
      for (const { socket } of held) socket.destroy();
    });
    // Each address up to its cap: 16 connections for 12 places.
    for (const from of attackers) {
      for (let i = 0; i < 4; i++) held.push(await slowHeaders(ctx.server.url, from));
    }
    // And beyond: refused, past the address's cap (429) or with no place it may take (503); so the
    // server has taken in every connection before.
    for (const from of attackers) {
      for (let i = 0; i < 2; i++) {
        const extra = await slowHeaders(ctx.server.url, from);
        held.push(extra);
        await extra.closed;
        assert.match(extra.received(), /^HTTP\/1\.1 (429|503) /, from);
      }
    }
    const answer = await healthFrom(ctx.server.url, '127.0.0.9');
    assert.equal(answer.status, 200);
    assert.deepEqual(JSON.parse(answer.body), { status: 'ok' });
    // The places are shared out: no address lost all of its connections.
    const open = held.filter(({ socket }) => !socket.destroyed && !socket.readableEnded);
    for (const from of attackers) {
      const left = open.filter(({ socket }) => socket.localAddress === from).length;
      assert.ok(left >= 2 && left <= 4, `${from} holds ${left}`);
    }
  });

  it('answers 503 to a new connection when every address already holds no more than the newcomer would', async (t) => {
    const held: Array<Awaited<ReturnType<typeof slowHeaders>>> = [];
    t.after(() => {
      for (const { socket } of held) socket.destroy();
    });
    // Twelve addresses with one connection each: nobody has more than a newcomer would.
    for (let i = 20; i < 32; i++) held.push(await slowHeaders(ctx.server.url, `127.0.0.${i}`));
    const late = await slowHeaders(ctx.server.url, '127.0.0.40');
    await late.closed;
    assert.match(late.received(), /^HTTP\/1\.1 503 /);
    assert.match(late.received(), /"code":"SERVICE_UNAVAILABLE"/);
  });
});
