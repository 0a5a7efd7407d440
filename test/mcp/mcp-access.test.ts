import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { createApiKey, createMember } from '../../src/admin/admin.service.js';
import { MemoryRateLimiter } from '../../src/modules/auth/rate-limit.js';
import { createTenant, execution, ingest, log, workflow } from '../harness/fixtures.js';
import { ManualClock } from '../harness/manual-clock.js';
import { startServer, type TestServer } from '../harness/server.js';
import { useServer, useServerBeside } from '../harness/suite.js';
import { answerSize, callError, callOk, connectHttp } from './mcp-client.js';
import { buildIncident, iso, T0, WINDOW } from './mcp-data.js';

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** One JSON-RPC message posted to /mcp as a client would, with or without a key. */
async function post(
  url: string,
  key: string | undefined,
  body: string,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...(key === undefined ? {} : { authorization: `Apikey ${key}` }), ...headers },
    body,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text };
}

const toolsList = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

describe('MCP over Streamable HTTP: access as on /graphql', () => {
  const ctx = useServer({ rateLimit: { burst: 1_000_000, perSecond: 1_000_000 } });
  // The rate limiter's clock is the test's: the bucket refills only when the test says.
  const clock = new ManualClock(Date.now());
  let limited: TestServer;
  before(async () => {
    limited = await startServer(
      ctx.db,
      { rateLimit: { burst: 2, perSecond: 1 } },
      { rateLimiter: new MemoryRateLimiter(1000, clock.read) },
    );
  });
  after(async () => {
    await limited?.close();
  });
  const off = useServerBeside(ctx, { mcp: false });
  const hosted = useServerBeside(ctx, { schema: 'hosted' });

  it('refuses a missing, malformed or unknown key with the 401 of /graphql, and a key without deploy access with its 403', async () => {
    const tenant = await createTenant(ctx.db);
    for (const authorization of [undefined, 'Bearer x', `Apikey wfk_unknown`]) {
      const headers: Record<string, string> = authorization ? { authorization } : {};
      const mcp = await post(ctx.server.url, undefined, toolsList, headers);
      const graphql = await ctx.server.gql(undefined, '{ __typename }', undefined, headers);
      assert.equal(mcp.status, 401);
      assert.equal(mcp.headers.get('www-authenticate'), 'Apikey');
      assert.deepEqual(JSON.parse(mcp.text), graphql.body);
    }
    const member = await createMember(ctx.db, {
      organizationId: tenant.organizationId,
      emailAddress: 'viewer@acme.example',
      displayName: 'Viewer',
      memberType: 'ADMIN',
      deployAccess: false,
    });
    const { key } = await createApiKey(ctx.db, { memberId: member.id, name: 'viewer' });
    const mcp = await post(ctx.server.url, key, toolsList);
    assert.equal(mcp.status, 403);
    assert.deepEqual(JSON.parse(mcp.text), (await ctx.server.gql(key, '{ __typename }')).body);
    // GET and DELETE are admitted first too, then refused: the server keeps no sessions.
    const get = await fetch(`${ctx.server.url}/mcp`, { headers: { accept: 'text/event-stream' } });
    assert.equal(get.status, 401);
    const deleted = await fetch(`${ctx.server.url}/mcp`, {
      method: 'DELETE',
      headers: { authorization: `Apikey ${tenant.key}` },
    });
    assert.equal(deleted.status, 405);
    assert.equal(deleted.headers.get('allow'), 'POST');
  });

  it('charges the key one request per message, with the rate-limit headers of /graphql', async () => {
    const tenant = await createTenant(ctx.db);
    const first = await post(limited.url, tenant.key, toolsList);
    assert.equal(first.status, 200);
    assert.match(first.headers.get('ratelimit') ?? '', /^"per-key";r=1;t=\d+$/);
    assert.equal(first.headers.get('ratelimit-policy'), '"per-key";q=2;w=2');
    await post(limited.url, tenant.key, toolsList);
    const refused = await post(limited.url, tenant.key, toolsList);
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.equal(JSON.parse(refused.text).errors[0].extensions.code, 'RATE_LIMITED');
    const graphql = await limited.gql(tenant.key, '{ __typename }');
    assert.equal(graphql.status, 429, "/graphql and /mcp share the key's bucket");
    clock.advance(1000);
    assert.equal(
      (await post(limited.url, tenant.key, toolsList)).status,
      200,
      'a second refills one request',
    );
  });

  it('is switched off by WFAPI_MCP=off', async () => {
    const tenant = await createTenant(ctx.db);
    assert.equal((await post(off.server.url, tenant.key, toolsList)).status, 404);
  });

  it('offers only the tools the hosted schema can answer under WFAPI_SCHEMA=hosted', async () => {
    const tenant = await createTenant(ctx.db);
    const client = await connectHttp(hosted.server.url, tenant.key);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((tool) => tool.name),
        ['list_workflows', 'find_executions'],
      );
      assert.equal((await callOk(client, 'list_workflows')).structured.count, 0);
    } finally {
      await client.close();
    }
  });

  it("never shows another organization's workflows, executions, error groups or lines, by uuid, name or search", async () => {
    const mine = await createTenant(ctx.db, 'Mine');
    const theirs = await createTenant(ctx.db, 'Theirs');
    await buildIncident(ctx.db, mine, 'mine');
    const other = await buildIncident(ctx.db, theirs, 'theirs');
    const client = await connectHttp(ctx.server.url, mine.key);
    try {
      assert.match(
        await callError(client, 'workflow_health', { workflow: other.workflowUuid }),
        /No workflow .* in this organization/,
      );
      assert.match(
        await callError(client, 'workflow_health', { workflow: other.workflowName }),
        /No workflow named "price-feed-theirs"/,
      );
      assert.match(
        await callError(client, 'find_executions', { workflow: other.workflowUuid }),
        /No workflow/,
      );
      assert.match(
        await callError(client, 'get_execution', { uuid: other.firstFailureUuid }),
        /No execution/,
      );
      const names = await callOk(client, 'list_workflows', { search: 'theirs' });
      assert.equal(names.structured.count, 0);
      const searched = await callOk(client, 'find_executions', { search: 'theirs', ...WINDOW });
      assert.equal(searched.structured.count, 0);
      const lines = await callOk(client, 'search_logs', { query: 'theirs', ...WINDOW });
      assert.equal(lines.structured.count, 0);
      const groups = await callOk(client, 'error_groups', { ...WINDOW, pageSize: 100 });
      assert.ok(groups.structured.groups.length > 0);
      assert.ok(groups.structured.groups.every((g: { pattern: string }) => !g.pattern.includes('theirs')));
      const capabilities = await callOk(client, 'capability_stats', { ...WINDOW, pageSize: 100 });
      assert.ok(
        capabilities.structured.capabilities.every(
          (c: { capabilityID: string }) => !c.capabilityID.includes('theirs'),
        ),
      );
      const byGroup = await callOk(client, 'find_executions', {
        errorFingerprint: groups.structured.groups[0].fingerprint,
      });
      assert.ok(
        byGroup.structured.executions.every(
          (e: { workflowName: string }) => e.workflowName === 'price-feed-mine',
        ),
      );
      await assert.rejects(
        client.readResource({ uri: `wfapi://executions/${other.firstFailureUuid}` }),
        /No execution/,
      );
      const { resources } = await client.listResources();
      assert.ok(resources.every((r) => !r.name.includes('theirs')));
    } finally {
      await client.close();
    }
  });

  it('keeps every answer of a large organization under 20,000 characters, saying what it left out and how to read it', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const long = (i: number) => `${'w'.repeat(180)}-${String(i).padStart(3, '0')}`;
    const flows = Array.from({ length: 120 }, (_, i) => workflow(org, { name: long(i) }));
    const run = execution(org, flows[0]!.uuid as string, {
      status: 'FAILURE',
      startedAt: iso(T0),
      finishedAt: iso(T0 + 1000),
    });
    const lines = Array.from({ length: 300 }, (_, i) =>
      log(org, run.uuid as string, { message: `error ${i}: ${'x'.repeat(2000)}`, timestamp: iso(T0 + i) }),
    );
    await ingest(ctx.db, [...flows, run, ...lines]);
    const client = await connectHttp(ctx.server.url, tenant.key);
    try {
      const listed = await callOk(client, 'list_workflows', { pageSize: 100 });
      assert.ok(answerSize(listed.result) <= 20_000, `${answerSize(listed.result)} characters`);
      assert.ok(listed.structured.workflows.length < 100);
      assert.match(
        listed.structured.more,
        /workflows of this page were left out .* ask with pageSize=\d+ or less/,
      );
      assert.match(listed.structured.more, /20 more workflows after this page: pass page=1/);
      const searched = await callOk(client, 'search_logs', { query: 'error', ...WINDOW, pageSize: 100 });
      assert.ok(answerSize(searched.result) <= 20_000);
      assert.equal(searched.structured.count, 300);
      assert.match(searched.structured.more, /lines of this page were left out/);
      const detail = await callOk(client, 'get_execution', { uuid: run.uuid });
      assert.ok(answerSize(detail.result) <= 20_000);
      assert.equal(detail.structured.logs.errorLineCount, 300);
      assert.equal(detail.structured.logs.errorLines.length, 20);
      assert.equal(detail.structured.logs.last.at(-1).message.slice(0, 10), 'error 299:');
    } finally {
      await client.close();
    }
  });

  it('answers malformed JSON-RPC with protocol errors only: never a 5xx, and the server keeps answering', async () => {
    const tenant = await createTenant(ctx.db);
    const message = fc.oneof(
      fc.string(),
      fc.json(),
      fc
        .record({
          jsonrpc: fc.oneof(fc.constant('2.0'), fc.string()),
          id: fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.object()),
          method: fc.oneof(
            fc.constantFrom(
              'initialize',
              'tools/list',
              'tools/call',
              'resources/read',
              'prompts/get',
              'ping',
            ),
            fc.string(),
          ),
          params: fc.oneof(
            fc.object(),
            fc.anything(),
            fc.record({ name: fc.string(), arguments: fc.anything() }),
          ),
        })
        .map((m) => JSON.stringify(m)),
      fc.array(fc.json(), { maxLength: 3 }).map((parts) => `[${parts.join(',')}]`),
    );
    await fc.assert(
      fc.asyncProperty(
        message,
        fc.constantFrom('application/json', 'text/plain', 'application/json; charset=utf-8'),
        async (body, type) => {
          const answer = await post(ctx.server.url, tenant.key, body, { 'content-type': type });
          assert.ok(
            answer.status < 500,
            `${answer.status} for ${body.slice(0, 200)}: ${answer.text.slice(0, 200)}`,
          );
        },
      ),
      { numRuns: 150 },
    );
    const calls = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_execution', arguments: { uuid: 42 } },
      },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'find_executions', arguments: { status: ['NOPE'] } },
      },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_workflows', arguments: 'x' } },
    ];
    for (const call of calls) {
      const answer = await post(ctx.server.url, tenant.key, JSON.stringify(call));
      assert.equal(answer.status, 200, answer.text);
    }
    assert.equal((await post(ctx.server.url, tenant.key, '{not json')).status, 400);
    assert.equal(JSON.parse((await post(ctx.server.url, tenant.key, '{not json')).text).error.code, -32700);
    assert.equal((await fetch(`${ctx.server.url}/healthz`)).status, 200);
  });
});
