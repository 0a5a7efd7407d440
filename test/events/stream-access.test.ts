import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createApiKey } from '../../src/admin/admin.service.js';
import { AuthenticationError, Client } from '../../src/client/index.js';
import type { Database } from '../../src/db/database.js';
import { openPostgres } from '../../src/db/postgres.js';
import {
  ADMIN_TOKEN,
  adminGql,
  REVOKE_API_KEY,
  SET_DEPLOY_ACCESS,
  SET_ORGANIZATION_STATUS,
} from '../admin/admin-request.js';
import { TEST_DB } from '../harness/database.js';
import { createTenant, execution, ingest, type Tenant, workflow } from '../harness/fixtures.js';
import { startServer, type TestServer } from '../harness/server.js';
import { useServer } from '../harness/suite.js';
import { openEvents, type SseReader } from './sse-reader.js';

/** Generous: the bound promised is a second or two, the machine may be loaded. */
const CLOSE_WITHIN_MS = 30_000;
const SERVER = { adminToken: ADMIN_TOKEN, events: { pollMs: 20, heartbeatMs: 200 } } as const;

/**
 * Issue 44, finding 1: an open stream is held to the checks every request passes. On PostgreSQL
 * a second instance, with a database pool of its own, serves a stream of the same key: it hears
 * of the change only through the database, as another server process would.
 */
describe('GET /events when its key stops admitting it', () => {
  const ctx = useServer(SERVER);
  let second: { db: Database; server: TestServer } | undefined;
  before(async () => {
    if (TEST_DB !== 'postgres') return;
    const db = openPostgres(ctx.database.url!, { poolSize: 2, statementTimeoutMs: 30_000 });
    second = { db, server: await startServer(db, SERVER) };
  });
  after(async () => {
    await second?.server.close();
    await second?.db.close();
  });

  /** A stream of `key` on every instance, each once it said it is connected. */
  async function openEverywhere(key: string): Promise<SseReader[]> {
    const urls = [ctx.server.url, ...(second ? [second.server.url] : [])];
    const streams = await Promise.all(urls.map((url) => openEvents(url, key)));
    for (const stream of streams) {
      assert.equal(stream.status, 200);
      await stream.next((frame) => frame.comments.includes('connected'));
    }
    return streams;
  }

  /** Each stream's `closed` event, then its end; the event's data. */
  async function closedEverywhere(streams: readonly SseReader[]) {
    // biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
    const closed: any[] = [];
    for (const stream of streams) {
      const frame = await stream.next((f) => f.event === 'closed', CLOSE_WITHIN_MS);
      assert.equal(frame.id, undefined, 'a closed event moves no cursor');
      closed.push(JSON.parse(frame.data!));
      await assert.rejects(
        stream.next(() => false, CLOSE_WITHIN_MS),
        /the stream ended/,
      );
    }
    return closed;
  }

  async function refusedWith(key: string, status: number): Promise<void> {
    const again = await openEvents(ctx.server.url, key);
    again.close();
    assert.equal(again.status, status);
  }

  async function adminOk(query: string, input: Record<string, unknown>): Promise<void> {
    const answer = await adminGql(ctx.server.url, query, { input });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.errors, undefined, JSON.stringify(answer.body));
  }

  it('ends the streams of a revoked key on every instance with a closed event naming the reason, and no other', async () => {
    const tenant = await createTenant(ctx.db);
    const other = await createApiKey(ctx.db, { memberId: tenant.memberId, name: 'other' });
    const streams = await openEverywhere(tenant.key);
    const bystanders = await openEverywhere(other.key);
    try {
      await adminOk(REVOKE_API_KEY, { id: tenant.keyId });
      for (const closed of await closedEverywhere(streams)) {
        assert.deepEqual(closed, {
          reason: 'KEY_REVOKED',
          errors: [{ message: 'The API key was revoked', extensions: { code: 'UNAUTHENTICATED' } }],
        });
      }
      await refusedWith(tenant.key, 401);
      // The member's other key keeps its streams.
      for (const bystander of bystanders) {
        await bystander.next((frame) => frame.comments.includes('keep-alive'), CLOSE_WITHIN_MS);
      }
    } finally {
      for (const stream of [...streams, ...bystanders]) stream.close();
    }
  });

  it('ends the streams of a key when it expires, on every instance', async () => {
    const tenant = await createTenant(ctx.db);
    // Long enough for the streams to open on a loaded machine; the close is awaited, not timed.
    const expiring = await createApiKey(ctx.db, {
      memberId: tenant.memberId,
      name: 'expiring',
      expiresAt: new Date(Date.now() + 3000),
    });
    const streams = await openEverywhere(expiring.key);
    try {
      for (const closed of await closedEverywhere(streams)) {
        assert.equal(closed.reason, 'KEY_EXPIRED');
        assert.equal(closed.errors[0].extensions.code, 'UNAUTHENTICATED');
      }
      assert.ok(Date.now() >= expiring.row.expires_at!.getTime(), 'closed before the key expired');
      await refusedWith(expiring.key, 401);
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  it("ends the streams of a member's keys when its deploy access is removed, on every instance", async () => {
    const tenant = await createTenant(ctx.db);
    const streams = await openEverywhere(tenant.key);
    try {
      await adminOk(SET_DEPLOY_ACCESS, { memberId: tenant.memberId, approved: false });
      for (const closed of await closedEverywhere(streams)) {
        assert.deepEqual(closed, {
          reason: 'DEPLOY_ACCESS_REMOVED',
          errors: [
            {
              message: 'The member of this API key does not have deploy access',
              extensions: { code: 'FORBIDDEN' },
            },
          ],
        });
      }
      await refusedWith(tenant.key, 403);
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  it("ends the streams of a deleted organization's keys on every instance, and not another organization's", async () => {
    const tenant: Tenant = await createTenant(ctx.db, 'Doomed');
    const bystander = await createTenant(ctx.db, 'Kept');
    const streams = await openEverywhere(tenant.key);
    const kept = await openEverywhere(bystander.key);
    try {
      await adminOk(SET_ORGANIZATION_STATUS, {
        organizationId: tenant.organizationId,
        activeStatus: 'DELETED',
      });
      for (const closed of await closedEverywhere(streams)) {
        assert.equal(closed.reason, 'ORGANIZATION_DELETED');
        assert.equal(closed.errors[0].extensions.code, 'FORBIDDEN');
      }
      await refusedWith(tenant.key, 403);
      for (const stream of kept) {
        await stream.next((frame) => frame.comments.includes('keep-alive'), CLOSE_WITHIN_MS);
      }
    } finally {
      for (const stream of [...streams, ...kept]) stream.close();
    }
  });

  it('makes the typed client throw the reason at once instead of reconnecting', async () => {
    const tenant = await createTenant(ctx.db);
    const flow = workflow(tenant.organizationId);
    const run = execution(tenant.organizationId, flow.uuid as string, {
      startedAt: new Date().toISOString(),
    });
    await ingest(ctx.db, [flow, run]);
    const client = new Client({ url: ctx.server.url, apiKey: tenant.key });
    const reconnects: unknown[] = [];
    // From the first change on: the first event says the stream is open.
    const events = client.events(
      { lastEventId: '0' },
      { onReconnect: (notice) => reconnects.push(notice), idleTimeoutMs: 60_000 },
    );
    try {
      assert.equal((await events.next()).done, false);
      await adminOk(REVOKE_API_KEY, { id: tenant.keyId });
      // The closed event's message, not a 401 to a reconnection's 'Invalid or missing API key'.
      await assert.rejects(events.next(), (error: unknown) => {
        assert.ok(error instanceof AuthenticationError, String(error));
        assert.equal(error.message, 'The API key was revoked');
        return true;
      });
      assert.deepEqual(reconnects, []);
    } finally {
      await events.return(undefined);
    }
  });
});
