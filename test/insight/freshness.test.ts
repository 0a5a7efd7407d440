import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTenant, execution, ingest, type Tenant, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { apikey, call, postGraphql } from '../http/http-client.js';
import { INGEST_TOKEN, postIngest } from '../ingest/http.js';

/** RFC 3339 in UTC as the API writes a Time: seconds, milliseconds only when not zero. */
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
const ORGANIZATION = '{ getOrganization { organizationId } }';

describe('extensions.dataAsOf', () => {
  const ctx = useServer({ ingestToken: INGEST_TOKEN, rateLimit: { burst: 1_000_000, perSecond: 1_000_000 } });

  /** The dataAsOf of an answer to `query` with the tenant's key (the answer must carry one). */
  async function dataAsOf(t: Tenant, query = ORGANIZATION, variables?: Record<string, unknown>) {
    const answer = await ctx.server.gql(t.key, query, variables);
    assert.ok(answer.body.extensions && 'dataAsOf' in answer.body.extensions, JSON.stringify(answer.body));
    return answer.body.extensions.dataAsOf as string | null;
  }

  async function send(records: readonly unknown[]) {
    const answer = await postIngest(ctx.server.url, records);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body.rejected, []);
  }

  it('is null before the first ingestion, then the time of the latest ingestion, shown at once through the same server', async () => {
    const t = await createTenant(ctx.db);
    assert.equal(await dataAsOf(t), null);
    const wf = workflow(t.organizationId);
    const before = Date.now();
    await send([wf]);
    const after = Date.now();
    // The key's credentials were read (and cached) before the ingestion: the answer still shows it.
    const first = await dataAsOf(t);
    assert.match(first ?? '', RFC3339_UTC);
    const ms = Date.parse(first!);
    assert.ok(ms >= before - 1 && ms <= after, `${first} lies within the ingestion (${before}..${after})`);

    // Another ingestion that changes something moves it forward.
    await sleep(5);
    await send([execution(t.organizationId, wf.uuid as string)]);
    const second = await dataAsOf(t);
    assert.ok(Date.parse(second!) > ms, `${second} is after ${first}`);
    assert.ok(Date.parse(second!) <= Date.now());

    // A re-send that changes nothing leaves it where it was.
    await sleep(5);
    await send([wf]);
    assert.equal(await dataAsOf(t), second);
  });

  it("is the organization's own: another organization's ingestion does not move it", async () => {
    const a = await createTenant(ctx.db, 'Acme');
    const b = await createTenant(ctx.db, 'Beta');
    await send([workflow(a.organizationId)]);
    const mark = await dataAsOf(a);
    assert.equal(await dataAsOf(b), null);
    await sleep(5);
    await send([workflow(b.organizationId)]);
    assert.equal(await dataAsOf(a), mark);
    assert.notEqual(await dataAsOf(b), null);
  });

  it('is the same on every kind of answer of an authenticated request, errors included', async () => {
    const t = await createTenant(ctx.db);
    await send([workflow(t.organizationId)]);
    const mark = await dataAsOf(t);
    assert.notEqual(mark, null);
    const answers = {
      notFound: await ctx.server.gql(
        t.key,
        '{ workflow(input: { uuid: "nope", from: "2026-01-01T00:00:00Z" }) { data { uuid } } }',
      ),
      validation: await ctx.server.gql(t.key, '{ workflows(input: {}) { nope } }'),
      parse: await ctx.server.gql(t.key, '{ workflows('),
      badInput: await ctx.server.gql(t.key, '{ workflows(input: { page: { size: 101 } }) { count } }'),
      variables: await ctx.server.gql(
        t.key,
        'query ($n: Int!) { workflows(input: { page: { size: $n } }) { count } }',
        {
          n: 'ten',
        },
      ),
      insight: await ctx.server.gql(t.key, '{ searchExecutionLogs(input: { query: "ab" }) { count } }'),
      emptyQuery: await ctx.server.gql(t.key, '  '),
    };
    const codes = Object.fromEntries(
      Object.entries(answers).map(([name, answer]) => [name, answer.body.errors?.[0]?.extensions?.code]),
    );
    assert.deepEqual(codes, {
      notFound: 'NOT_FOUND',
      validation: 'GRAPHQL_VALIDATION_FAILED',
      parse: 'GRAPHQL_PARSE_FAILED',
      badInput: 'BAD_USER_INPUT',
      variables: 'BAD_USER_INPUT',
      insight: 'BAD_USER_INPUT',
      emptyQuery: 'BAD_USER_INPUT',
    });
    for (const [name, answer] of Object.entries(answers)) {
      assert.deepEqual(answer.body.extensions, { dataAsOf: mark }, name);
    }
    // A GET whose variables are not JSON is refused before it is parsed, still for an authenticated caller.
    const badVariables = await call(`${ctx.server.url}/graphql?query=%7B__typename%7D&variables=%7Bnope`, {
      method: 'GET',
      headers: { authorization: apikey(t.key) },
    });
    assert.equal(badVariables.status, 400);
    assert.deepEqual(badVariables.body.extensions, { dataAsOf: mark });
  });

  it('is absent from the answers to unauthenticated requests', async () => {
    const t = await createTenant(ctx.db);
    await send([workflow(t.organizationId)]);
    for (const authorization of [undefined, 'Apikey wfk_nope', `Bearer ${t.key}`]) {
      const answer = await postGraphql(ctx.server.url, authorization, { query: ORGANIZATION });
      assert.equal(answer.status, 401);
      assert.equal(answer.body.extensions, undefined, String(authorization));
      assert.doesNotMatch(answer.text, /dataAsOf/);
    }
  });

  it('shows an ingestion made by another writer within the credential cache interval, never ahead of it', async () => {
    const t = await createTenant(ctx.db);
    assert.equal(await dataAsOf(t), null);
    // Straight into the database, as an ingest worker or another server would: this server is not told.
    const before = Date.now();
    await ingest(ctx.db, [workflow(t.organizationId)]);
    const started = Date.now();
    let mark: string | null = null;
    while (mark === null && Date.now() - started < 10_000) {
      mark = await dataAsOf(t);
      if (mark === null) await sleep(50);
    }
    const waited = Date.now() - started;
    assert.ok(mark !== null, 'the mark shows up');
    assert.ok(Date.parse(mark) >= before - 1 && Date.parse(mark) <= started, mark);
    // The cache holds a key's credentials for 1 s (WFAPI_AUTH_CACHE_MS); the margin is for a busy machine.
    assert.ok(waited < 5_000, `shown after ${waited} ms`);
  });
});
