import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { eventually } from '../harness/eventually.js';
import { createTenant, execution, workflow } from '../harness/fixtures.js';
import { startServer } from '../harness/server.js';
import { useServer } from '../harness/suite.js';
import { call } from '../http/http-client.js';
import { INGEST_TOKEN, postIngest } from '../ingest/http.js';
import { openEvents } from './sse-reader.js';

const EXECUTION_FIELDS = `uuid workflowUUID id workflowName workflowId status classifiedStatus startedAt finishedAt
  creditUsed errors { error count } executedInTee`;

describe('GET /events', () => {
  const ctx = useServer({
    ingestToken: INGEST_TOKEN,
    // The fixtures' executions are of January 2026: every change is live here (history.test.ts).
    events: { pollMs: 20, heartbeatMs: 150, maxStreamsPerKey: 2, liveWindowMs: 0 },
  });

  async function ingestOk(records: readonly Record<string, unknown>[]): Promise<void> {
    const answer = await postIngest(ctx.server.url, records);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.rejectedCount, 0, JSON.stringify(answer.body));
  }

  it('streams each execution ingested after it opened, with exactly the fields /graphql answers', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const flow = workflow(org, { name: 'price-feed' });
    await ingestOk([flow]);
    const stream = await openEvents(ctx.server.url, tenant.key);
    try {
      assert.equal(stream.status, 200);
      assert.match(stream.headers.get('content-type')!, /^text\/event-stream/);
      await stream.next((frame) => frame.comments.includes('connected'));
      const run = execution(org, flow.uuid as string, {
        status: 'FAILURE',
        classifiedStatus: 'USER_ERROR',
        startedAt: '2026-01-02T00:00:00.250Z',
        finishedAt: '2026-01-02T00:00:03Z',
        creditUsed: '1.50',
        errors: [{ error: 'index out of range [7]', count: 2 }],
        executedInTee: true,
      });
      await ingestOk([run]);
      const { id, execution: streamed } = await stream.nextExecution();
      assert.match(id, /^\d+$/);
      const read = await ctx.server.gql(
        tenant.key,
        `query ($uuid: String!) { workflowExecution(input: {uuid: $uuid}) { data { ${EXECUTION_FIELDS} } } }`,
        { uuid: run.uuid },
      );
      assert.deepEqual(streamed, read.body.data.workflowExecution.data);
      assert.equal(streamed.creditUsed, '1.5');
      assert.equal(streamed.startedAt, '2026-01-02T00:00:00.250Z');
    } finally {
      stream.close();
    }
  });

  it('sends only the executions of the filtered workflow and statuses', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const [one, two] = [workflow(org, { name: 'one' }), workflow(org, { name: 'two' })];
    await ingestOk([one, two]);
    const byWorkflow = await openEvents(ctx.server.url, tenant.key, { query: `workflowUUID=${one.uuid}` });
    const byStatus = await openEvents(ctx.server.url, tenant.key, { query: 'status=FAILURE,IN_PROGRESS' });
    try {
      await byWorkflow.next((frame) => frame.comments.includes('connected'));
      await byStatus.next((frame) => frame.comments.includes('connected'));
      // Each stream's matching execution comes last: the feed is ordered, so anything it let
      // through before would have arrived first.
      const runs = [
        execution(org, two.uuid as string, { status: 'SUCCESS' }),
        execution(org, two.uuid as string, { status: 'FAILURE' }),
        execution(org, one.uuid as string, { status: 'SUCCESS' }),
        execution(org, two.uuid as string, { status: 'IN_PROGRESS' }),
      ];
      for (const run of runs) await ingestOk([run]);
      assert.equal((await byWorkflow.nextExecution()).execution.uuid, runs[2]!.uuid);
      assert.equal((await byStatus.nextExecution()).execution.uuid, runs[1]!.uuid);
      assert.equal((await byStatus.nextExecution()).execution.uuid, runs[3]!.uuid);
    } finally {
      byWorkflow.close();
      byStatus.close();
    }
  });

  it('resumes after Last-Event-ID with every change made while disconnected, none repeated', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const flow = workflow(org);
    const first = execution(org, flow.uuid as string, { status: 'IN_PROGRESS' });
    const stream = await openEvents(ctx.server.url, tenant.key);
    await stream.next((frame) => frame.comments.includes('connected'));
    await ingestOk([flow, first]);
    const seen = await stream.nextExecution();
    assert.equal(seen.execution.uuid, first.uuid);
    stream.close();

    const second = execution(org, flow.uuid as string);
    const third = execution(org, flow.uuid as string);
    await ingestOk([second]);
    await ingestOk([third, { ...first, status: 'SUCCESS', finishedAt: '2026-01-02T00:00:05Z' }]);
    const resumed = await openEvents(ctx.server.url, tenant.key, { lastEventId: seen.id });
    try {
      const got: Array<{ id: string; execution: { uuid: string; status: string } }> = [];
      for (let i = 0; i < 3; i++) got.push(await resumed.nextExecution());
      const sentinel = execution(org, flow.uuid as string);
      await ingestOk([sentinel]);
      got.push(await resumed.nextExecution());
      assert.deepEqual(
        got.map((event) => event.execution.uuid),
        [second.uuid, third.uuid, first.uuid, sentinel.uuid],
      );
      assert.equal(got[2]!.execution.status, 'SUCCESS');
      const ids = got.map((event) => Number(event.id));
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
      );
      assert.ok(ids[0]! > Number(seen.id));
    } finally {
      resumed.close();
    }
  });

  it('sends nothing for an identical re-send, and the new state for a status change', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const flow = workflow(org);
    const run = execution(org, flow.uuid as string, { status: 'IN_PROGRESS' });
    const stream = await openEvents(ctx.server.url, tenant.key);
    try {
      await stream.next((frame) => frame.comments.includes('connected'));
      await ingestOk([flow, run]);
      assert.equal((await stream.nextExecution()).execution.uuid, run.uuid);
      const sentinel = execution(org, flow.uuid as string);
      await ingestOk([run]);
      await ingestOk([sentinel]);
      assert.equal((await stream.nextExecution()).execution.uuid, sentinel.uuid);
      await ingestOk([{ ...run, status: 'FAILURE' }]);
      const changed = await stream.nextExecution();
      assert.equal(changed.execution.uuid, run.uuid);
      assert.equal(changed.execution.status, 'FAILURE');
    } finally {
      stream.close();
    }
  });

  it('sends a comment line at the heartbeat interval while nothing happens', async () => {
    const tenant = await createTenant(ctx.db);
    const stream = await openEvents(ctx.server.url, tenant.key);
    try {
      const started = Date.now();
      await stream.next((frame) => frame.comments.includes('keep-alive'), 2000);
      await stream.next((frame) => frame.comments.includes('keep-alive'), 2000);
      assert.ok(Date.now() - started < 2000);
    } finally {
      stream.close();
    }
  });

  it('holds at most WFAPI_SSE_MAX_STREAMS streams per key, and a closed stream frees its slot', async () => {
    const tenant = await createTenant(ctx.db);
    const other = await createTenant(ctx.db, 'Other');
    const open = [await openEvents(ctx.server.url, tenant.key), await openEvents(ctx.server.url, tenant.key)];
    try {
      assert.deepEqual(
        open.map((stream) => stream.status),
        [200, 200],
      );
      const refused = await call(`${ctx.server.url}/events`, {
        method: 'GET',
        headers: { authorization: `Apikey ${tenant.key}`, accept: 'text/event-stream' },
      });
      assert.equal(refused.status, 429);
      assert.equal(refused.body.errors[0].extensions.code, 'RATE_LIMITED');
      assert.match(refused.body.errors[0].message, /at most 2/);
      // Another key is counted on its own.
      const elsewhere = await openEvents(ctx.server.url, other.key);
      assert.equal(elsewhere.status, 200);
      elsewhere.close();
      open.pop()!.close();
      // The server frees the slot once it sees the connection close.
      const again = await eventually(async () => {
        const stream = await openEvents(ctx.server.url, tenant.key);
        if (stream.status === 200) return stream;
        stream.close();
        return undefined;
      }, 'the closed stream never freed its slot');
      open.push(again);
      assert.equal(again.status, 200);
    } finally {
      for (const stream of open) stream.close();
    }
  });

  it('answers HEAD at once with the headers of a stream and no body, holding no slot (issue 44)', async () => {
    const tenant = await createTenant(ctx.db);
    const head = (authorization?: string) =>
      fetch(`${ctx.server.url}/events`, {
        method: 'HEAD',
        headers: { accept: 'text/event-stream', ...(authorization ? { authorization } : {}) },
        // Before the fix a HEAD was never answered: the test fails rather than hangs.
        signal: AbortSignal.timeout(30_000),
      });
    // 120 of them, 20 at a time (a client address may hold 100 connections): the key holds 2 slots.
    for (let sent = 0; sent < 120; sent += 20) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => head(`Apikey ${tenant.key}`)));
      for (const answer of answers) {
        assert.equal(answer.status, 200);
        assert.equal(answer.headers.get('content-type'), 'text/event-stream; charset=utf-8');
        assert.equal(answer.headers.get('cache-control'), 'no-store');
        assert.equal(await answer.text(), '');
      }
    }
    const refused = await head();
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('www-authenticate'), 'Apikey');
    const streams = [
      await openEvents(ctx.server.url, tenant.key),
      await openEvents(ctx.server.url, tenant.key),
    ];
    try {
      for (const stream of streams) {
        assert.equal(stream.status, 200);
        await stream.next((frame) => frame.comments.includes('connected'));
      }
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  it('cuts a client that stops reading instead of buffering for it, and serves the others in full', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const flow = workflow(org);
    await ingestOk([flow]);
    // Its own server on the same database, with heartbeats 1 s apart: the stalled client is cut
    // after two of them, while the reader, which shares this process's event loop with the
    // server and the ingestion, keeps well within that on a busy machine.
    const server = await startServer(ctx.db, {
      events: { pollMs: 20, heartbeatMs: 1000, maxStreamsPerKey: 2, liveWindowMs: 0 },
    });
    const { port } = new URL(server.url);
    // A client that sends its request and never reads: from the first change on (Last-Event-ID 0).
    const stalled = connect(Number(port), '127.0.0.1');
    stalled.pause();
    stalled.write(
      `GET /events HTTP/1.1\r\nHost: test\r\nAuthorization: Apikey ${tenant.key}\r\n` +
        'Accept: text/event-stream\r\nLast-Event-ID: 0\r\n\r\n',
    );
    const closed = new Promise<void>((resolve) => stalled.once('close', () => resolve()));
    const reader = await openEvents(server.url, tenant.key, { lastEventId: '0' });
    try {
      // About 20 MB of events, far more than the socket buffers hold.
      const big = Array.from({ length: 10 }, (_, i) => ({ error: `${i}`.repeat(10_000), count: 1 }));
      const runs = Array.from({ length: 200 }, () =>
        execution(org, flow.uuid as string, { status: 'FAILURE', errors: big }),
      );
      for (let i = 0; i < runs.length; i += 50) await ingestOk(runs.slice(i, i + 50));
      for (const run of runs) assert.equal((await reader.nextExecution(15_000)).execution.uuid, run.uuid);
      // The stalled one is cut after two heartbeat intervals without reading: its slot is free
      // again (with the reader, the key holds its two streams) while it still has not read a byte.
      const another = await eventually(async () => {
        const stream = await openEvents(server.url, tenant.key);
        stream.close();
        return stream.status === 200 ? stream : undefined;
      }, 'the stalled client was never cut');
      assert.equal(another.status, 200);
      // What it got before the cut is short of all.
      let received = 0;
      stalled.on('data', (chunk: Buffer) => {
        received += chunk.length;
      });
      stalled.resume();
      await closed;
      assert.ok(received < 20_000_000, `received ${received} bytes`);
    } finally {
      reader.close();
      stalled.destroy();
      await server.close();
    }
  });

  it('keeps a client that reads slowly but steadily, however long one poll of events takes it', async () => {
    // Its own server on the same database, with heartbeats 1.5 s apart: a client is cut after two
    // heartbeats in which it took nothing, so one that reads every 30 ms must never be.
    const heartbeatMs = 1500;
    const slowServer = await startServer(ctx.db, {
      events: { pollMs: 20, heartbeatMs, maxStreamsPerKey: 2, liveWindowMs: 0 },
    });
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const flow = workflow(org);
    await ingestOk([flow]);
    // A client on a slow link: one read (at most 64 KB) every 30 ms, at most about 2 MB/s.
    const slow = connect(Number(new URL(slowServer.url).port), '127.0.0.1');
    // The chunks are kept apart and only the newest bytes searched for the last execution: the
    // server runs in this process, and searching the whole text at every read (quadratic in it)
    // once kept its event loop from seeing the reads on a loaded machine.
    const chunks: string[] = [];
    let received = 0;
    let tail = '';
    slow.on('data', (chunk: Buffer) => {
      const part = chunk.toString('latin1');
      chunks.push(part);
      received += part.length;
      tail = (tail + part).slice(-(part.length + 100));
      slow.pause();
      setTimeout(() => slow.resume(), 30);
    });
    let closed = false;
    /** Called when the client has read more, or its connection closed. */
    let progress = () => {};
    slow.on('data', () => progress());
    slow.once('close', () => {
      closed = true;
      progress();
    });
    slow.write(
      `GET /events HTTP/1.1\r\nHost: test\r\nAuthorization: Apikey ${tenant.key}\r\n` +
        'Accept: text/event-stream\r\nLast-Event-ID: 0\r\n\r\n',
    );
    try {
      // About 12 MB in one poll: far more than the socket buffers, seconds to read at that pace.
      const big = Array.from({ length: 10 }, (_, i) => ({ error: `${i}`.repeat(10_000), count: 1 }));
      const runs = Array.from({ length: 120 }, () =>
        execution(org, flow.uuid as string, { status: 'FAILURE', errors: big }),
      );
      const startedAt = Date.now();
      await ingestOk(runs);
      const last = runs.at(-1)!.uuid as string;
      await new Promise<void>((resolve, reject) => {
        const limit = setTimeout(() => reject(new Error(`not read within 30 s: ${received} bytes`)), 30_000);
        progress = () => {
          if (!tail.includes(last) && !closed) return;
          clearTimeout(limit);
          resolve();
        };
        progress();
      });
      const tookMs = Date.now() - startedAt;
      assert.equal(closed, false, `cut after ${received} bytes and ${tookMs} ms`);
      // Reading took longer than two heartbeats: a stream judged by when it drains would have been cut.
      assert.ok(tookMs > 2 * heartbeatMs, `read in ${tookMs} ms`);
      const text = chunks.join('');
      for (const run of runs) assert.ok(text.includes(`"uuid":"${run.uuid}"`), `${run.uuid} is missing`);
    } finally {
      slow.destroy();
      await slowServer.close();
    }
  });

  it("never sends another organization's executions", async () => {
    const mine = await createTenant(ctx.db);
    const theirs = await createTenant(ctx.db, 'Other');
    const stream = await openEvents(ctx.server.url, mine.key);
    try {
      await stream.next((frame) => frame.comments.includes('connected'));
      const theirFlow = workflow(theirs.organizationId);
      await ingestOk([theirFlow, execution(theirs.organizationId, theirFlow.uuid as string)]);
      const myFlow = workflow(mine.organizationId);
      const mine1 = execution(mine.organizationId, myFlow.uuid as string);
      await ingestOk([myFlow, mine1]);
      assert.equal((await stream.nextExecution()).execution.uuid, mine1.uuid);
    } finally {
      stream.close();
    }
  });

  it('refuses a missing or bad key with 401 and bad parameters with 400, in the contract error shape', async () => {
    const tenant = await createTenant(ctx.db);
    const url = `${ctx.server.url}/events`;
    for (const authorization of [undefined, 'Apikey wfk_nope', `Bearer ${tenant.key}`]) {
      const answer = await call(url, {
        method: 'GET',
        headers: { accept: 'text/event-stream', ...(authorization ? { authorization } : {}) },
      });
      assert.equal(answer.status, 401);
      assert.equal(answer.headers.get('www-authenticate'), 'Apikey');
      assert.deepEqual(answer.body, {
        errors: [
          {
            message: 'Invalid or missing API key: send it as Authorization: Apikey <key>',
            extensions: { code: 'UNAUTHENTICATED' },
          },
        ],
      });
    }
    const bad: Array<[string, Record<string, string>, RegExp]> = [
      ['?workflowUUID=nope', {}, /workflowUUID must be a uuid/],
      ['?status=DONE', {}, /status must be one of/],
      ['?status=SUCCESS,', {}, /status must be one of/],
      ['?workflowUuid=x', {}, /Unknown query parameter "workflowUuid"/],
      ['?history=yes', {}, /history must be true or false/],
      ['', { 'last-event-id': 'abc' }, /Last-Event-ID/],
    ];
    for (const [query, headers, message] of bad) {
      const answer = await call(`${url}${query}`, {
        method: 'GET',
        headers: { authorization: `Apikey ${tenant.key}`, accept: 'text/event-stream', ...headers },
      });
      assert.equal(answer.status, 400, query);
      assert.equal(answer.body.errors[0].extensions.code, 'BAD_USER_INPUT');
      assert.match(answer.body.errors[0].message, message);
    }
    const json = await call(url, {
      method: 'GET',
      headers: { authorization: `Apikey ${tenant.key}`, accept: 'application/json' },
    });
    assert.equal(json.status, 406);
    assert.equal(json.body.errors[0].extensions.code, 'BAD_USER_INPUT');
  });
});

describe('GET /events with WFAPI_SCHEMA=hosted', () => {
  const ctx = useServer({ schema: 'hosted' });

  it('does not exist: the hosted schema serves section 1 alone', async () => {
    const tenant = await createTenant(ctx.db);
    const answer = await call(`${ctx.server.url}/events`, {
      method: 'GET',
      headers: { authorization: `Apikey ${tenant.key}`, accept: 'text/event-stream' },
    });
    assert.equal(answer.status, 404);
  });
});
