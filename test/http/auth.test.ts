import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  createApiKey,
  createMember,
  revokeKey,
  setDeployAccess,
  setOrganizationActiveStatus,
} from '../../src/admin/admin.service.js';
import { composeApiKey, generateApiKey } from '../../src/modules/auth/api-key.js';
import { createTenant } from '../harness/fixtures.js';
import { ManualClock } from '../harness/manual-clock.js';
import { useServer } from '../harness/suite.js';
import { apikey, errorCode, postGraphql } from './http-client.js';

const QUERY = { query: '{ getOrganization { displayName } }' };

/** Changes the character at `index` to another one of the same alphabet. */
function withCharChanged(key: string, index: number): string {
  const replacement = key[index] === 'a' ? 'b' : 'a';
  return key.slice(0, index) + replacement + key.slice(index + 1);
}

describe('authentication over HTTP', () => {
  // Key expiry is read from this clock, which moves only when a test says.
  const clock = new ManualClock(Date.now());
  // Failed authentications are throttled per address; these tests send many on purpose.
  const ctx = useServer({ authFailureLimit: { burst: 10_000, perSecond: 10_000 } }, { now: clock.read });
  const ask = (authorization: string | undefined) => postGraphql(ctx.server.url, authorization, QUERY);

  it('answers 401 with WWW-Authenticate: Apikey and one identical body for every kind of bad credential', async () => {
    const tenant = await createTenant(ctx.db);
    const revoked = await createApiKey(ctx.db, { memberId: tenant.memberId, name: 'revoked' });
    await revokeKey(ctx.db, { id: revoked.row.id });
    const expired = await createApiKey(
      ctx.db,
      { memberId: tenant.memberId, name: 'expired', expiresAt: new Date(Date.now() - 60_000) },
      new Date(Date.now() - 120_000),
    );
    const wrongSecret = await createApiKey(ctx.db, { memberId: tenant.memberId, name: 'wrong secret' });
    await ctx.db.query('update api_keys set secret_hash = $1 where id = $2', [
      createHash('sha256').update('another secret').digest(),
      wrongSecret.row.id,
    ]);
    const cases: Record<string, string | undefined> = {
      'no header': undefined,
      'empty header': '',
      'the scheme alone': 'Apikey',
      'the Bearer scheme with a valid key': `Bearer ${tenant.key}`,
      'the Basic scheme': `Basic ${Buffer.from(`user:${tenant.key}`).toString('base64')}`,
      'a key without a scheme': tenant.key,
      'a malformed key': 'Apikey not-a-key',
      'a key with a wrong checksum': apikey(withCharChanged(tenant.key, 50)),
      'a well-formed key that was never issued': apikey(generateApiKey().key),
      'a known key id with the wrong secret': apikey(wrongSecret.key),
      'a revoked key': apikey(revoked.key),
      'an expired key': apikey(expired.key),
      'two keys': `Apikey ${tenant.key} ${tenant.key}`,
    };
    const answers = await Promise.all(Object.values(cases).map(ask));
    const reference = answers[0]!;
    Object.keys(cases).forEach((name, i) => {
      const answer = answers[i]!;
      assert.equal(answer.status, 401, name);
      assert.equal(answer.headers.get('www-authenticate'), 'Apikey', name);
      assert.equal(answer.text, reference.text, name);
    });
    assert.equal(errorCode(reference), 'UNAUTHENTICATED');
    // The one message names the expected form, so `Bearer <key>` learns its scheme.
    assert.match(reference.body.errors[0].message, /Authorization: Apikey <key>/);
    assert.equal(reference.body.data, undefined);
    // The same key still works: only the bad credentials were refused.
    assert.equal((await ask(apikey(tenant.key))).status, 200);
  });

  it('accepts the Apikey scheme word in any letter case', async () => {
    const tenant = await createTenant(ctx.db);
    for (const scheme of ['Apikey', 'apikey', 'APIKEY', 'ApiKey']) {
      const answer = await ask(`${scheme} ${tenant.key}`);
      assert.equal(answer.status, 200, scheme);
      assert.equal(answer.body.data.getOrganization.displayName, 'Acme');
    }
  });

  it('answers 403 FORBIDDEN for a member without deploy access, and lets the key in as soon as access is granted', async () => {
    const tenant = await createTenant(ctx.db);
    const member = await createMember(ctx.db, {
      organizationId: tenant.organizationId,
      emailAddress: 'viewer@acme.example',
      displayName: 'Viewer',
      deployAccess: false,
    });
    const { key } = await createApiKey(ctx.db, { memberId: member.id, name: 'viewer' });
    const refused = await ask(apikey(key));
    assert.equal(refused.status, 403);
    assert.equal(errorCode(refused), 'FORBIDDEN');
    assert.match(refused.body.errors[0].message, /deploy access/);

    await setDeployAccess(ctx.db, { memberId: member.id, approved: true });
    const admitted = await ask(apikey(key));
    assert.equal(admitted.status, 200);
    assert.equal(admitted.body.data.getOrganization.displayName, 'Acme');

    await setDeployAccess(ctx.db, { memberId: member.id, approved: false });
    assert.equal((await ask(apikey(key))).status, 403);
  });

  it('answers 403 FORBIDDEN for a valid key once its organization is deleted', async () => {
    const tenant = await createTenant(ctx.db);
    assert.equal((await ask(apikey(tenant.key))).status, 200);
    await setOrganizationActiveStatus(ctx.db, {
      organizationId: tenant.organizationId,
      activeStatus: 'DELETED',
    });
    const refused = await ask(apikey(tenant.key));
    assert.equal(refused.status, 403);
    assert.equal(errorCode(refused), 'FORBIDDEN');
    assert.match(refused.body.errors[0].message, /organization/);
  });

  it('refuses a revoked key on the very next request', async () => {
    const tenant = await createTenant(ctx.db);
    assert.equal((await ask(apikey(tenant.key))).status, 200);
    await revokeKey(ctx.db, { id: tenant.keyId });
    const refused = await ask(apikey(tenant.key));
    assert.equal(refused.status, 401);
    assert.equal(errorCode(refused), 'UNAUTHENTICATED');
  });

  it('lets a key in until its expiry and refuses it from then on', async () => {
    const tenant = await createTenant(ctx.db);
    // In the future by the wall clock too, which createApiKey checks.
    const expiresAt = Date.now() + 60_000;
    const { key } = await createApiKey(ctx.db, {
      memberId: tenant.memberId,
      name: 'short-lived',
      expiresAt: new Date(expiresAt),
    });
    // The server's clock a minute before the expiry, then a millisecond before it, then at it.
    clock.advance(expiresAt - 60_000 - clock.now());
    assert.equal((await ask(apikey(key))).status, 200);
    clock.advance(59_999);
    assert.equal((await ask(apikey(key))).status, 200);
    clock.advance(1);
    const refused = await ask(apikey(key));
    assert.equal(refused.status, 401);
    assert.equal(errorCode(refused), 'UNAUTHENTICATED');
  });

  it('authenticates GET requests the same way as POST', async () => {
    const tenant = await createTenant(ctx.db);
    const url = `${ctx.server.url}/graphql?query=${encodeURIComponent(QUERY.query)}`;
    const withKey = await fetch(url, { headers: { authorization: apikey(tenant.key) } });
    assert.equal(withKey.status, 200);
    const withoutKey = await fetch(url);
    assert.equal(withoutKey.status, 401);
    assert.equal(withoutKey.headers.get('www-authenticate'), 'Apikey');
    assert.equal(await withoutKey.text(), (await ask(undefined)).text);
  });
});

describe('credentials cached between requests', () => {
  const CACHE_MS = 400;
  // The cache's interval is measured with this clock, which moves only when a test says.
  const clock = new ManualClock(Date.now());
  const ctx = useServer({ authCacheMs: CACHE_MS }, { now: clock.read });
  const ask = (key: string) => postGraphql(ctx.server.url, apikey(key), QUERY);
  /** A change made behind this server's back, as another server process or an operator's SQL would. */
  const revokeInDatabase = (keyId: string) =>
    ctx.db.query('update api_keys set revoked_at = now() where id = $1', [keyId]);

  it('applies a revocation made outside this server within the cache interval, not before', async () => {
    const tenant = await createTenant(ctx.db);
    assert.equal((await ask(tenant.key)).status, 200);
    await revokeInDatabase(tenant.keyId);
    // Still the cached credentials: this request needed no database read to authenticate.
    assert.equal((await ask(tenant.key)).status, 200);
    clock.advance(CACHE_MS);
    assert.equal((await ask(tenant.key)).status, 200);
    clock.advance(1);
    assert.equal((await ask(tenant.key)).status, 401);
  });

  it('applies a revocation made through this server to the very next request', async () => {
    const tenant = await createTenant(ctx.db);
    assert.equal((await ask(tenant.key)).status, 200);
    await revokeKey(ctx.db, { id: tenant.keyId });
    assert.equal((await ask(tenant.key)).status, 401);
  });

  it('still checks the secret of a cached key on every request', async () => {
    const tenant = await createTenant(ctx.db);
    assert.equal((await ask(tenant.key)).status, 200);
    // The same key id with another secret (and a valid checksum): well formed, but not the key.
    const otherSecret = generateApiKey().key.slice(36, 76);
    const forged = composeApiKey(tenant.key.slice(4, 36), otherSecret);
    assert.notEqual(forged, tenant.key);
    assert.equal((await ask(forged)).status, 401);
    assert.equal((await ask(tenant.key)).status, 200);
  });

  it('checks a repeated Authorization header again against credentials read anew', async () => {
    const tenant = await createTenant(ctx.db);
    assert.equal((await ask(tenant.key)).status, 200);
    assert.equal((await ask(tenant.key)).status, 200);
    // The stored hash replaced behind this server's back: the exact header admitted twice
    // before no longer matches once the credentials are read again.
    const otherHash = createHash('sha256').update('another secret').digest();
    await ctx.db.query('update api_keys set secret_hash = $2 where id = $1', [tenant.keyId, otherHash]);
    clock.advance(CACHE_MS + 1);
    assert.equal((await ask(tenant.key)).status, 401);
  });

  describe('with the cache turned off', () => {
    const uncached = useServer({ authCacheMs: 0 });
    it('applies a revocation made in the database to the next request', async () => {
      const tenant = await createTenant(uncached.db);
      assert.equal((await postGraphql(uncached.server.url, apikey(tenant.key), QUERY)).status, 200);
      await uncached.db.query('update api_keys set revoked_at = now() where id = $1', [tenant.keyId]);
      assert.equal((await postGraphql(uncached.server.url, apikey(tenant.key), QUERY)).status, 401);
    });
  });
});
