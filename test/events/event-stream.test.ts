// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { EventStream } from '../../src/events/event-stream.js';
import { eventually } from '../harness/eventually.js';

/** A real HTTP response to a client that reads only when told to. */
async function streamToIdleClient(): Promise<{ stream: EventStream; client: Socket; close: () => void }> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const client = connect(port, '127.0.0.1');
  client.pause();
  client.write('GET / HTTP/1.1\r\nHost: test\r\n\r\n');
  const [, response] = (await once(server, 'request')) as [unknown, ServerResponse];
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const stream = new EventStream('org', 'key', { workflowUuid: undefined, statuses: undefined }, 0, response);
  return {
    stream,
    client,
    close: () => {
      client.destroy();
      server.close();
    },
  };
}

/** Writes until the socket takes no more: the stream is then paused. */
function fill(stream: EventStream): void {
  const chunk = `data: ${'x'.repeat(1 << 20)}\n\n`;
  for (let i = 0; i < 64 && !stream.paused; i++) stream.write([chunk]);
  assert.ok(stream.paused, 'the stream is paused once the socket is full');
}

describe('an event stream whose client stops reading', () => {
  let idle: Awaited<ReturnType<typeof streamToIdleClient>>;
  before(async () => {
    idle = await streamToIdleClient();
  });
  after(() => idle?.close());

  it('is judged stalled only by a heartbeat check after the one that first found it paused', async () => {
    const { stream, client } = idle;
    fill(stream);
    const late = Date.now() + 60_000;
    // The first check finds it paused long ago (this process may have kept its client from reading).
    assert.equal(stream.checkStalled(late, 300), false);
    // A later check finds it still paused: its client had the loop's turns in between.
    assert.equal(stream.checkStalled(late, 300), true);

    // Once it drains, it starts over: paused anew, it again needs two checks.
    client.resume();
    await eventually(() => !stream.paused, 'the stream never drained', { everyMs: 5 });
    assert.equal(stream.checkStalled(late, 300), false);
    client.pause();
    fill(stream);
    assert.equal(stream.checkStalled(Date.now(), 300), false);
    assert.equal(stream.checkStalled(Date.now(), 300), false, 'not before its time is up');
    assert.equal(stream.checkStalled(Date.now() + 60_000, 300), true);
  });
});
