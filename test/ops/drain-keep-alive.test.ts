// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { exitWithin, prepareServedDatabase, type ServedDatabase, spawnServe } from './serve-process.js';

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * A raw keep-alive connection: it sends a request whatever it has received (as a client does
 * that has not yet seen the server close), and reads one answer, or learns that none came.
 */
async function keepAlive(url: string) {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  let buffer = '';
  let waiting: (() => void) | undefined;
  let ended: string | undefined;
  socket.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    waiting?.();
  });
  socket.on('error', (error: NodeJS.ErrnoException) => {
    ended ??= error.code ?? error.message;
    waiting?.();
  });
  socket.on('close', () => {
    ended ??= 'closed';
    waiting?.();
  });
  await new Promise((resolve) => socket.once('connect', resolve));
  /** One answer, or what ended the connection without one (ECONNRESET, EPIPE, closed). */
  async function send(path: string, headers: Record<string, string>): Promise<Answer | string> {
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n${lines.join('')}\r\n`);
    for (;;) {
      const head = buffer.indexOf('\r\n\r\n');
      if (head !== -1) {
        const [statusLine, ...fields] = buffer.slice(0, head).split('\r\n');
        const parsed = Object.fromEntries(
          fields.map((field) => [
            field.slice(0, field.indexOf(':')).toLowerCase(),
            field.slice(field.indexOf(':') + 1).trim(),
          ]),
        );
        const length = Number(parsed['content-length']);
        if (buffer.length >= head + 4 + length) {
          const body = buffer.slice(head + 4, head + 4 + length);
          buffer = buffer.slice(head + 4 + length);
          return { status: Number(statusLine!.split(' ')[1]), headers: parsed, body };
        }
      }
      if (ended) return ended;
      await new Promise<void>((resolve) => {
        waiting = resolve;
      });
    }
  }
  return { socket, send };
}

/** Resolves once a new connection to `url` is refused (the server stopped listening). */
async function refusedAt(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  for (;;) {
    const outcome = await new Promise<string>((resolve) => {
      const socket = net.connect(Number(port), hostname);
      socket.once('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    });
    if (outcome !== 'connected') return outcome;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('draining keep-alive connections on SIGTERM', () => {
  let database: ServedDatabase;
  before(async () => {
    database = await prepareServedDatabase();
  });
  after(async () => {
    await database?.close();
  });

  it('answers every request sent on an idle keep-alive connection just after SIGTERM, with Connection: close, and refuses new connections', async (t) => {
    const serve = spawnServe({
      ...database.env,
      WFAPI_LOG_LEVEL: 'warn',
      // Generous, for a loaded machine: the requests below are sent once the listener has closed.
      WFAPI_DRAIN_IDLE_MS: '5000',
      WFAPI_KEEP_ALIVE_TIMEOUT_MS: '60000',
    });
    t.after(() => serve.kill());
    const url = await serve.ready;
    const path = `/graphql?query=${encodeURIComponent('{ getOrganization { displayName } }')}`;
    const headers = { authorization: `Apikey ${database.tenant.key}` };
    const clients = await Promise.all(Array.from({ length: 20 }, () => keepAlive(url)));
    for (const answer of await Promise.all(clients.map((client) => client.send(path, headers)))) {
      assert.equal(typeof answer === 'string' ? answer : answer.status, 200);
    }
    // Every connection is now idle, kept alive.
    serve.child.kill('SIGTERM');
    // A new connection is refused cleanly once the server drains...
    assert.equal(await refusedAt(url), 'ECONNREFUSED');
    // ...while a request sent on a connection kept alive, as its client cannot yet know, is answered.
    const answers = await Promise.all(clients.map((client) => client.send(path, headers)));
    for (const answer of answers) {
      assert.notEqual(typeof answer, 'string', `no answer: ${answer as string}`);
      const { status, headers: fields, body } = answer as Answer;
      if (status === 503) assert.equal(JSON.parse(body).errors[0].extensions.code, 'SERVICE_UNAVAILABLE');
      else {
        assert.equal(status, 200);
        assert.equal(JSON.parse(body).data.getOrganization.displayName, 'Served Org');
      }
      assert.equal(fields.connection, 'close');
    }
    const exit = await exitWithin(serve, 30_000);
    assert.equal(exit.code, 0);
  });
});
