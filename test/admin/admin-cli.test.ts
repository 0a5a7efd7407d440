// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { runCli } from '../harness/cli.js';
import type { CliResult } from '../harness/process.js';
import { startServer } from '../harness/server.js';
import { useServer } from '../harness/suite.js';
import { ADMIN_TOKEN } from './admin-request.js';

const ACCOUNT = '{ getAccountDetails { memberId } }';

/** Runs `wfapi <args>` from source as a child process, with only the given WFAPI_* variables. */
function wfapi(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runCli(args, { NO_COLOR: '1', ...env });
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('wfapi orgs / members / keys', () => {
  const ctx = useServer({ adminToken: ADMIN_TOKEN });
  const admin = (args: readonly string[], env: Record<string, string> = {}) =>
    wfapi(args, { WFAPI_URL: ctx.server.url, WFAPI_ADMIN_TOKEN: ADMIN_TOKEN, ...env });
  const json = (run: CliResult) => {
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout);
  };

  it('runs the whole flow: org, member, key that works on /graphql, revoke, then 401', async () => {
    const org = json(await admin(['orgs', 'create', '--name', 'Acme Corp', '--json']));
    assert.equal(org.displayName, 'Acme Corp');
    const member = json(
      await admin([
        'members',
        'create',
        '--org',
        org.organizationId,
        '--email',
        'ops@acme.example',
        '--name',
        'Ops',
        '--type',
        'ADMIN',
        '--deploy-access',
        '--json',
      ]),
    );
    assert.equal(member.memberStatus, 'JOINED');
    assert.equal(member.deployAccess, true);

    const created = await admin(['keys', 'create', '--member', member.memberId, '--name', 'ci']);
    assert.equal(created.code, 0, created.stderr);
    const keys = created.stdout.match(/wfk_[0-9A-Za-z]+/g) ?? [];
    assert.equal(keys.length, 1, 'the key is printed exactly once');
    assert.match(created.stdout, /cannot be shown again/);
    const key = keys[0]!;
    const keyId = /key id\s+(\S+)/.exec(created.stdout)?.[1];

    const allowed = await ctx.server.gql(key, ACCOUNT);
    assert.equal(allowed.status, 200);
    assert.equal(allowed.body.data.getAccountDetails.memberId, member.memberId);

    const list = await admin(['keys', 'list', '--org', org.organizationId]);
    assert.equal(list.code, 0, list.stderr);
    const [header, row, ...rest] = list.stdout.trimEnd().split('\n');
    assert.match(header!, /^KEY ID\s+NAME\s+MEMBER ID\s+STATUS\s+CREATED\s+EXPIRES\s+LAST USED$/);
    assert.match(row!, new RegExp(`^${keyId}\\s+ci\\s+${member.memberId}\\s+active\\s+.*never`));
    assert.deepEqual(rest, []);
    assert.ok(!list.stdout.includes(key));

    const revoked = await admin(['keys', 'revoke', keyId!]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, /revoked/);
    const refused = await ctx.server.gql(key, ACCOUNT);
    assert.equal(refused.status, 401);
    const listed = json(await admin(['keys', 'list', '--org', org.organizationId, '--json']));
    assert.equal(listed.length, 1);
    assert.equal(listed[0].id, keyId);
    assert.notEqual(listed[0].revokedAt, null);
  });

  it('shows a member without a role as having none, and its status on a row of its own', async () => {
    const org = json(await admin(['orgs', 'create', '--name', 'Roleless Org', '--json']));
    const created = await admin([
      'members',
      'create',
      '--org',
      org.organizationId,
      '--email',
      'plain@roleless.example',
      '--name',
      'Plain',
    ]);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /^\s*role\s+none \(neither ROOT nor ADMIN\)$/m);
    assert.match(created.stdout, /^\s*status\s+JOINED$/m);
    assert.doesNotMatch(created.stdout, /role\s+JOINED/);
  });

  it('switches deploy access (403 / 200) and deletes an organization (403)', async () => {
    const org = json(await admin(['orgs', 'create', '--name', 'Beta', '--restriction', 'GATED', '--json']));
    assert.equal(org.restrictionStatus, 'GATED');
    const member = json(
      await admin([
        'members',
        'create',
        '--org',
        org.organizationId,
        '--email',
        'a@b.example',
        '--name',
        'A',
        '--json',
      ]),
    );
    assert.equal(member.deployAccess, false);
    const created = json(
      await admin([
        'keys',
        'create',
        '--member',
        member.memberId,
        '--name',
        'k',
        '--expires-at',
        '2099-01-01T00:00:00Z',
        '--json',
      ]),
    );
    assert.deepEqual(Object.keys(created), ['id', 'name', 'key', 'expiresAt']);
    assert.equal(created.expiresAt, '2099-01-01T00:00:00Z');
    assert.equal((await ctx.server.gql(created.key, ACCOUNT)).status, 403);

    const approved = await admin(['members', 'deploy-access', member.memberId, '--approve']);
    assert.equal(approved.code, 0, approved.stderr);
    assert.match(approved.stdout, /approved/);
    assert.equal((await ctx.server.gql(created.key, ACCOUNT)).status, 200);

    const revoked = json(await admin(['members', 'deploy-access', member.memberId, '--revoke', '--json']));
    assert.equal(revoked.deployAccess, false);
    assert.equal((await ctx.server.gql(created.key, ACCOUNT)).status, 403);
    await admin(['members', 'deploy-access', member.memberId, '--approve']);

    const deleted = await admin(['orgs', 'delete', org.organizationId]);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.match(deleted.stdout, /is deleted/);
    const forbidden = await ctx.server.gql(created.key, ACCOUNT);
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.body.errors[0].extensions.code, 'FORBIDDEN');
  });

  it('lists organizations and the members of one, as tables and as JSON, so that ids can be found', async () => {
    const empty = await admin(['orgs', 'list']);
    assert.equal(empty.code, 0, empty.stderr);
    assert.match(empty.stdout, /No organizations yet/);
    const org = json(await admin(['orgs', 'create', '--name', 'Listed Org', '--json']));
    const member = json(
      await admin([
        'members',
        'create',
        '--org',
        org.organizationId,
        '--email',
        'l@o.example',
        '--name',
        'Lee',
        '--json',
      ]),
    );
    const orgs = await admin(['orgs', 'list']);
    assert.equal(orgs.code, 0, orgs.stderr);
    const [orgHeader, orgRow, ...moreOrgs] = orgs.stdout.trimEnd().split('\n');
    assert.match(orgHeader!, /^ORGANIZATION ID\s+NAME\s+STATUS\s+RESTRICTION\s+TENANT\s+CREATED$/);
    assert.match(
      orgRow!,
      new RegExp(`^${org.organizationId}\\s+Listed Org\\s+ACTIVE\\s+FULL_ACCESS\\s+\\d+\\s+\\d{4}-`),
    );
    assert.deepEqual(moreOrgs, []);
    assert.deepEqual(
      json(await admin(['orgs', 'list', '--json'])).map((o: { organizationId: string }) => o.organizationId),
      [org.organizationId],
    );

    const members = await admin(['members', 'list', '--org', org.organizationId]);
    assert.equal(members.code, 0, members.stderr);
    const [memberHeader, memberRow, ...moreMembers] = members.stdout.trimEnd().split('\n');
    assert.match(memberHeader!, /^MEMBER ID\s+NAME\s+EMAIL\s+ROLE\s+DEPLOY ACCESS\s+CREATED$/);
    assert.match(
      memberRow!,
      new RegExp(`^${member.memberId}\\s+Lee\\s+l@o\\.example\\s+JOINED\\s+no \\(keys get 403\\)`),
    );
    assert.deepEqual(moreMembers, []);
    const listed = json(await admin(['members', 'list', '--org', org.organizationId, '--json']));
    assert.deepEqual(
      listed.map((m: { memberId: string; deployAccess: boolean }) => [m.memberId, m.deployAccess]),
      [[member.memberId, false]],
    );
    const unknown = await admin(['members', 'list', '--org', '00000000-0000-4000-8000-000000000000']);
    assert.equal(unknown.code, 4);
    assert.equal(unknown.stderr, 'wfapi: organization not found\n');
    const missing = await admin(['members', 'list']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--org <organizationId>/);
  });

  it('fails in one line with the exit code of the failure, never a stack trace', async () => {
    const port = await closedPort();
    const unknownId = '00000000-0000-4000-8000-000000000000';
    const bare = await startServer(ctx.db, {});
    try {
      const runs = await Promise.all([
        admin(['keys', 'revoke', unknownId]),
        admin(['keys', 'list', '--org', unknownId], { WFAPI_ADMIN_TOKEN: 'wrong' }),
        admin(['orgs', 'create', '--name', 'X'], { WFAPI_URL: `http://127.0.0.1:${port}` }),
        admin(['orgs', 'create', '--name', 'X'], { WFAPI_URL: bare.url }),
        wfapi(['orgs', 'create', '--name', 'X'], { WFAPI_URL: ctx.server.url }),
        admin(['members', 'create', '--org', unknownId, '--email', 'nope', '--name', 'N']),
        admin(['orgs', 'create', '--name', 'X', '--url', 'ftp://example.com']),
      ]);
      const outcome = runs.map((run) => [run.code, run.stdout, run.stderr.trimEnd().split('\n').length]);
      assert.deepEqual(outcome, [
        [4, '', 1],
        [3, '', 1],
        [5, '', 1],
        [2, '', 1],
        [2, '', 1],
        [2, '', 1],
        [2, '', 1],
      ]);
      const messages = runs.map((run) => run.stderr.trim());
      assert.equal(messages[0], 'wfapi: API key not found');
      assert.match(messages[1]!, /refused the admin token/);
      assert.match(messages[2]!, /cannot reach the wfapi server at .*connection refused/);
      assert.match(messages[3]!, /no admin interface at .*WFAPI_ADMIN_TOKEN/);
      assert.match(messages[4]!, /no admin token: set WFAPI_ADMIN_TOKEN or pass --admin-token/);
      assert.equal(messages[5], 'wfapi: emailAddress must be an email address');
      assert.match(messages[6]!, /--url must be an http\(s\) URL/);
      for (const message of messages) assert.doesNotMatch(message, /\n|at .*\.ts:\d+/);
    } finally {
      await bare.close();
    }
  });

  it('refuses bad flags as usage errors before sending anything', async () => {
    const runs = await Promise.all([
      admin(['keys', 'create', '--member', 'm', '--name', 'k', '--expires-at', 'tomorrow']),
      admin(['members', 'deploy-access', 'm']),
      admin(['members', 'deploy-access', 'm', '--approve', '--revoke']),
      admin(['orgs', 'create', '--name', 'X', '--restriction', 'OPEN']),
    ]);
    assert.deepEqual(
      runs.map((run) => run.code),
      [2, 2, 2, 2],
    );
    assert.match(runs[0]!.stderr, /RFC 3339/);
    assert.match(runs[1]!.stderr, /pass --approve or --revoke/);
    assert.match(runs[2]!.stderr, /cannot be used with/);
    assert.match(runs[3]!.stderr, /GATED, FULL_ACCESS/);
    assert.deepEqual(await ctx.db.query('select id from organizations'), []);
  });

  it('accepts the public /graphql URL in WFAPI_URL, shared with the read commands', async () => {
    const org = json(
      await admin(['orgs', 'create', '--name', 'Gamma', '--json'], {
        WFAPI_URL: `${ctx.server.url}/graphql`,
      }),
    );
    assert.equal(org.displayName, 'Gamma');
    const text = await admin(['orgs', 'create', '--name', 'Delta'], { WFAPI_URL: `${ctx.server.url}/` });
    assert.equal(text.code, 0, text.stderr);
    assert.match(
      text.stdout,
      /^Organization created\.\n\s*organization id\s+[0-9a-f-]{36}\n\s*name\s+Delta\n/,
    );
  });
});
