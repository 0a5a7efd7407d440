import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { eventually } from '../harness/eventually.js';
import { useServer } from '../harness/suite.js';
import {
  ADMIN_TOKEN,
  API_KEYS,
  adminGql,
  adminTenant,
  CREATE_API_KEY,
  CREATE_MEMBER,
  REVOKE_API_KEY,
} from './admin-request.js';

const ACCOUNT = '{ getAccountDetails { memberId } }';
const NOBODY = '00000000-0000-4000-8000-000000000000';

describe('POST /admin/graphql: API keys', () => {
  const ctx = useServer({ adminToken: ADMIN_TOKEN, keyUsageFlushMs: 20 });
  const admin = (query: string, variables?: Record<string, unknown>) =>
    adminGql(ctx.server.url, query, variables);

  it('creates a key that works on /graphql at once, as its member', async () => {
    const tenant = await adminTenant(ctx.server.url);
    assert.match(tenant.key, /^wfk_[0-9a-f]{32}[0-9A-Za-z]{46}$/);
    const answer = await ctx.server.gql(tenant.key, ACCOUNT);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.data.getAccountDetails.memberId, tenant.memberId);
  });

  it('answers createApiKey with id, name, key and the expiry normalised to UTC', async () => {
    const tenant = await adminTenant(ctx.server.url);
    const answer = await admin(CREATE_API_KEY, {
      input: { memberId: tenant.memberId, name: ' deploy bot ', expiresAt: '2099-01-01T02:00:00+02:00' },
    });
    const created = answer.body.data.createApiKey;
    assert.deepEqual(Object.keys(created), ['id', 'name', 'key', 'expiresAt']);
    assert.equal(created.name, 'deploy bot');
    assert.equal(created.expiresAt, '2099-01-01T00:00:00Z');
    assert.equal(created.key.slice(4, 36), created.id.replace(/-/g, ''));
  });

  it('revokes a key: /graphql refuses it at once with the body of an unknown key', async () => {
    const tenant = await adminTenant(ctx.server.url);
    assert.equal((await ctx.server.gql(tenant.key, ACCOUNT)).status, 200);
    const revoked = await admin(REVOKE_API_KEY, { input: { id: tenant.keyId } });
    const key = revoked.body.data.revokeApiKey;
    assert.equal(key.id, tenant.keyId);
    assert.equal(key.name, 'ci');
    assert.equal(key.memberId, tenant.memberId);
    assert.ok(Date.parse(key.revokedAt) >= Date.parse(key.createdAt));
    const refused = await ctx.server.gql(tenant.key, ACCOUNT);
    const unknown = await ctx.server.gql(`${tenant.key.slice(0, 10)}0${tenant.key.slice(11)}`, ACCOUNT);
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('www-authenticate'), 'Apikey');
    assert.deepEqual(refused.body, unknown.body);
  });

  it('keeps the first revocation time when a key is revoked twice', async () => {
    const tenant = await adminTenant(ctx.server.url);
    const first = await admin(REVOKE_API_KEY, { input: { id: tenant.keyId } });
    // A later millisecond than the first revocation's, so that a second time would show.
    await eventually(
      () => Date.now() > Date.parse(first.body.data.revokeApiKey.revokedAt),
      'the clock stood still',
      {
        everyMs: 1,
      },
    );
    const second = await admin(REVOKE_API_KEY, { input: { id: tenant.keyId } });
    assert.equal(second.body.data.revokeApiKey.revokedAt, first.body.data.revokeApiKey.revokedAt);
  });

  it('lists the keys of one organization only, oldest first, with their state and never a secret', async () => {
    const acme = await adminTenant(ctx.server.url, 'Acme');
    const other = await adminTenant(ctx.server.url, 'Other');
    const second = await admin(CREATE_API_KEY, {
      input: { memberId: acme.memberId, name: 'second', expiresAt: '2099-01-01T00:00:00Z' },
    });
    await admin(REVOKE_API_KEY, { input: { id: acme.keyId } });
    const answer = await admin(API_KEYS, { input: { organizationId: acme.organizationId } });
    const keys = answer.body.data.apiKeys;
    assert.deepEqual(
      keys.map((k: Record<string, unknown>) => [k.id, k.name, k.memberId, k.expiresAt, k.revokedAt !== null]),
      [
        [acme.keyId, 'ci', acme.memberId, null, true],
        [second.body.data.createApiKey.id, 'second', acme.memberId, '2099-01-01T00:00:00Z', false],
      ],
    );
    assert.ok(!JSON.stringify(answer.body).includes(other.keyId));
    const secretField = await admin(`query($input: ApiKeysInput!) { apiKeys(input: $input) { key } }`, {
      input: { organizationId: acme.organizationId },
    });
    assert.equal(secretField.body.errors[0].extensions.code, 'GRAPHQL_VALIDATION_FAILED');
  });

  it('records when a key was last used', async () => {
    const tenant = await adminTenant(ctx.server.url);
    const before = await admin(API_KEYS, { input: { organizationId: tenant.organizationId } });
    assert.equal(before.body.data.apiKeys[0].lastUsedAt, null);
    await ctx.server.gql(tenant.key, ACCOUNT);
    const lastUsedAt: string = await eventually(async () => {
      const after = await admin(API_KEYS, { input: { organizationId: tenant.organizationId } });
      return after.body.data.apiKeys[0].lastUsedAt;
    }, 'lastUsedAt was never written');
    assert.ok(Math.abs(Date.parse(lastUsedAt) - Date.now()) < 60_000);
  });

  it('stores only a SHA-256 of the secret: no table holds the key or its secret in clear', async () => {
    const tenant = await adminTenant(ctx.server.url);
    const secret = tenant.key.slice(36, 76);
    const [row] = await ctx.db.query<{ secret_hash: Uint8Array }>(
      'select secret_hash from api_keys where id = $1',
      [tenant.keyId],
    );
    assert.deepEqual(Buffer.from(row!.secret_hash), createHash('sha256').update(secret).digest());
    const tables = await ctx.db.query<{ tablename: string }>(
      `select tablename from pg_tables where schemaname = 'public'`,
    );
    for (const { tablename } of tables) {
      const rows = await ctx.db.query<{ t: string }>(`select t::text as t from "${tablename}" t`);
      for (const { t } of rows) {
        assert.ok(!t.includes(secret) && !t.includes(tenant.key), `${tablename} holds the key in clear`);
      }
    }
  });

  it('refuses an expiry in the past or not in RFC 3339, and a blank name, with BAD_USER_INPUT', async () => {
    const tenant = await adminTenant(ctx.server.url);
    const input = (fields: Record<string, unknown>) => ({
      input: { memberId: tenant.memberId, name: 'k', ...fields },
    });
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [input({ expiresAt: '2001-01-01T00:00:00Z' }), /^expiresAt must be in the future$/],
      [input({ expiresAt: 'tomorrow' }), /Time must be an RFC 3339 date-time/],
      [input({ expiresAt: '2099-01-01T00:00:00' }), /Time must be an RFC 3339 date-time with an offset/],
      [input({ name: ' ' }), /^name must not be empty$/],
      [input({ memberId: 'me' }), /^memberId must be a uuid$/],
    ];
    for (const [variables, message] of cases) {
      const answer = await admin(CREATE_API_KEY, variables);
      assert.equal(answer.body.errors[0].extensions.code, 'BAD_USER_INPUT', JSON.stringify(answer.body));
      assert.match(answer.body.errors[0].message, message);
    }
    const keys = await admin(API_KEYS, { input: { organizationId: tenant.organizationId } });
    assert.equal(keys.body.data.apiKeys.length, 1);
  });

  it('answers NOT_FOUND for an unknown member, key or organization', async () => {
    const answers = await Promise.all([
      admin(CREATE_API_KEY, { input: { memberId: NOBODY, name: 'k' } }),
      admin(REVOKE_API_KEY, { input: { id: NOBODY } }),
      admin(API_KEYS, { input: { organizationId: NOBODY } }),
    ]);
    assert.deepEqual(
      answers.map((a) => [a.body.data, a.body.errors[0].extensions.code, a.body.errors[0].message]),
      [
        [null, 'NOT_FOUND', 'member not found'],
        [null, 'NOT_FOUND', 'API key not found'],
        [null, 'NOT_FOUND', 'organization not found'],
      ],
    );
  });

  it('ties a key to the organization of its member', async () => {
    const acme = await adminTenant(ctx.server.url, 'Acme');
    const other = await adminTenant(ctx.server.url, 'Other');
    const member = await admin(CREATE_MEMBER, {
      input: {
        organizationId: other.organizationId,
        emailAddress: 'x@other.example',
        displayName: 'X',
        deployAccess: true,
      },
    });
    const key = await admin(CREATE_API_KEY, {
      input: { memberId: member.body.data.createMember.memberId, name: 'x' },
    });
    const answer = await ctx.server.gql(
      key.body.data.createApiKey.key,
      '{ getOrganization { organizationId } }',
    );
    assert.equal(answer.body.data.getOrganization.organizationId, other.organizationId);
    assert.notEqual(answer.body.data.getOrganization.organizationId, acme.organizationId);
  });
});
