import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createApiKey } from '../../src/admin/admin.service.js';
import { API_KEY_PREFIX, generateApiKey, parseApiKey } from '../../src/modules/auth/api-key.js';
import { eventually } from '../harness/eventually.js';
import { createTenant } from '../harness/fixtures.js';
import { startServer } from '../harness/server.js';
import { useServer } from '../harness/suite.js';
import { apikey, postGraphql } from './http-client.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const QUERY = { query: '{ getOrganization { displayName } }' };

describe('API keys', () => {
  const ctx = useServer();

  async function lastUsedAt(keyId: string): Promise<Date | null> {
    const [row] = await ctx.db.query<{ last_used_at: Date | null }>(
      'select last_used_at from api_keys where id = $1',
      [keyId],
    );
    return row!.last_used_at;
  }

  it('have the wfk_ prefix, a fixed length and parse back to their id', () => {
    const generated = generateApiKey();
    assert.ok(generated.key.startsWith(API_KEY_PREFIX));
    assert.equal(generated.key.length, 82);
    assert.match(generated.key, /^wfk_[0-9A-Za-z]+$/);
    assert.equal(parseApiKey(generated.key)?.id, generated.id);
  });

  it('detect any single changed character through their checksum', () => {
    const { key } = generateApiKey();
    for (let index = API_KEY_PREFIX.length; index < key.length; index++) {
      for (const replacement of ['0', 'f', 'Z', 'z']) {
        if (key[index] === replacement) continue;
        const changed = key.slice(0, index) + replacement + key.slice(index + 1);
        assert.equal(parseApiKey(changed), undefined, `change at ${index} to ${replacement} went unnoticed`);
      }
    }
    assert.equal(parseApiKey(key.slice(0, -1)), undefined);
    assert.equal(parseApiKey(`${key}0`), undefined);
    assert.equal(parseApiKey(key.replace(API_KEY_PREFIX, 'wfx_')), undefined);
  });

  it('are unique and use their whole alphabet evenly across many generations', () => {
    const keys = new Set<string>();
    const ids = new Set<string>();
    const counts = new Map<string, number>();
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const generated = generateApiKey();
      keys.add(generated.key);
      ids.add(generated.id);
      // The secret: 40 characters after the 32 hex digits of the id.
      for (const char of generated.key.slice(36, 76)) counts.set(char, (counts.get(char) ?? 0) + 1);
    }
    assert.equal(keys.size, n);
    assert.equal(ids.size, n);
    assert.deepEqual([...counts.keys()].sort(), [...BASE62].sort());
    // 800,000 secret characters over 62 symbols: each appears about 12,900 times; a biased or
    // short-cycled generator would stray far from that.
    const expected = (n * 40) / 62;
    for (const [char, count] of counts) {
      assert.ok(Math.abs(count - expected) < expected * 0.05, `${char} appears ${count} times`);
    }
  });

  it('are stored only as a hash: the database never holds the key or its secret', async () => {
    const tenant = await createTenant(ctx.db);
    const created = await createApiKey(ctx.db, { memberId: tenant.memberId, name: 'ci' });
    const secret = parseApiKey(created.key)!.secret;
    assert.equal((await postGraphql(ctx.server.url, apikey(created.key), QUERY)).status, 200);

    const [row] = await ctx.db.query<Record<string, unknown>>('select * from api_keys where id = $1', [
      created.row.id,
    ]);
    const hash = Buffer.from(row!.secret_hash as Uint8Array);
    assert.equal(hash.length, 32);
    const stored = [
      JSON.stringify(row),
      hash.toString('hex'),
      hash.toString('latin1'),
      hash.toString('base64'),
    ].join('\n');
    assert.ok(!stored.includes(secret), 'the secret is stored');
    assert.ok(!stored.includes(created.key), 'the key is stored');

    // Nowhere else either: every row of every table, as text.
    const tables = await ctx.db.query<{ tablename: string }>(
      `select tablename from pg_tables where schemaname = 'public'`,
    );
    for (const { tablename } of tables) {
      const rows = await ctx.db.query<{ t: string }>(`select t::text as t from "${tablename}" t`);
      for (const { t } of rows) {
        assert.ok(!t.includes(secret), `${tablename} holds the secret`);
      }
    }
  });

  it('record their last use once the usage recorder flushes', async () => {
    const tenant = await createTenant(ctx.db);
    const server = await startServer(ctx.db, { keyUsageFlushMs: 50 });
    try {
      assert.equal(await lastUsedAt(tenant.keyId), null);
      const before = Date.now();
      assert.equal((await postGraphql(server.url, apikey(tenant.key), QUERY)).status, 200);
      const used = await eventually(() => lastUsedAt(tenant.keyId), 'last_used_at was never written', {
        timeoutMs: 5_000,
      });
      assert.ok(used.getTime() >= before - 1000 && used.getTime() <= Date.now() + 1000);
    } finally {
      await server.close();
    }
  });

  it('do not cost a database write per request: last use stays unwritten until the flush', async () => {
    const tenant = await createTenant(ctx.db);
    const server = await startServer(ctx.db, { keyUsageFlushMs: 3_600_000 });
    let closed = false;
    try {
      for (let i = 0; i < 5; i++) {
        assert.equal((await postGraphql(server.url, apikey(tenant.key), QUERY)).status, 200);
      }
      const lastRequest = Date.now();
      // Kept, short: a write per request would be sent after the answer, and nothing announces it
      // (the recorder has no seam to observe); a tenth of a second lets it land.
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(await lastUsedAt(tenant.keyId), null);
      // Shutting down flushes what was recorded, in one write holding the latest use.
      await server.close();
      closed = true;
      const used = await lastUsedAt(tenant.keyId);
      assert.ok(used, 'the shutdown flush did not write last_used_at');
      assert.ok(used.getTime() >= lastRequest - 1000);
    } finally {
      if (!closed) await server.close();
    }
  });
});
