// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, describe, it } from 'node:test';
import { exitWithin, spawnServe } from './serve-process.js';

/** Process start (tsx compiles the sources) plus the failure itself; a hang blows far past it. */
const PROMPT_EXIT_MS = 15_000;

/** The whole of stderr is one line naming the reason. */
function assertOneLineReason(stderr: string, reason: RegExp): void {
  assert.match(stderr, /^wfapi: [^\n]+\n$/, `stderr is not one line: ${JSON.stringify(stderr)}`);
  assert.match(stderr, reason);
}

async function listenOnFreePort(onConnection: (socket: net.Socket) => void = () => {}) {
  const server = net.createServer(onConnection);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

describe('wfapi serve startup failures', () => {
  const servers: net.Server[] = [];
  const sockets: net.Socket[] = [];
  after(async () => {
    for (const socket of sockets) socket.destroy();
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
  });

  it('ends at once with a one-line reason and a non-zero exit when the port is taken', async () => {
    const taken = await listenOnFreePort();
    servers.push(taken);
    const port = (taken.address() as net.AddressInfo).port;
    const serve = spawnServe({ WFAPI_DATA_DIR: 'memory://', PORT: String(port) });
    const exit = await exitWithin(serve, PROMPT_EXIT_MS);
    assert.notEqual(exit.code, 0);
    assert.notEqual(exit.code, null);
    assertOneLineReason(serve.stderr(), new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
  });

  it('ends at once with a one-line reason and a non-zero exit when the database refuses connections', async () => {
    const serve = spawnServe({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/postgres' });
    const exit = await exitWithin(serve, PROMPT_EXIT_MS);
    assert.notEqual(exit.code, 0);
    assert.notEqual(exit.code, null);
    assertOneLineReason(serve.stderr(), /cannot open the database/);
  });

  it('gives up within the connect bound on a database that accepts connections but never answers', async () => {
    // A silent peer: the TCP handshake succeeds, the PostgreSQL startup reply never comes.
    const silent = await listenOnFreePort((socket) => sockets.push(socket));
    servers.push(silent);
    const port = (silent.address() as net.AddressInfo).port;
    const serve = spawnServe({ DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres` });
    const exit = await exitWithin(serve, PROMPT_EXIT_MS);
    assert.notEqual(exit.code, 0);
    assert.notEqual(exit.code, null);
    assertOneLineReason(serve.stderr(), /cannot open the database/);
  });

  for (const [label, env, args, reason] of [
    ['PORT=abc', { PORT: 'abc' }, [], /PORT must be an integer between 0 and 65535, got "abc"/],
    ['--port abc', {}, ['--port', 'abc'], /PORT must be an integer between 0 and 65535, got "abc"/],
    ['WFAPI_LOG_LEVEL=loud', { WFAPI_LOG_LEVEL: 'loud' }, [], /WFAPI_LOG_LEVEL must be one of/],
    [
      'DATABASE_URL=mysql://x',
      { DATABASE_URL: 'mysql://x' },
      [],
      /DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL, got a mysql: URL/,
    ],
    [
      'WFAPI_DB_PREPARED_STATEMENTS=yes',
      { WFAPI_DB_PREPARED_STATEMENTS: 'yes' },
      [],
      /WFAPI_DB_PREPARED_STATEMENTS must be true or false, got "yes"/,
    ],
  ] as const) {
    it(`ends with a one-line message and exit code 2 on a configuration error (${label})`, async () => {
      const serve = spawnServe({ WFAPI_DATA_DIR: 'memory://', ...env }, args);
      const exit = await exitWithin(serve, PROMPT_EXIT_MS);
      assert.equal(exit.code, 2);
      assertOneLineReason(serve.stderr(), reason);
      assert.equal(serve.stdout(), '');
    });
  }
});
