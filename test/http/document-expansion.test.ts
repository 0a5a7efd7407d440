// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getIntrospectionQuery } from 'graphql';
import { createTenant } from '../harness/fixtures.js';
import { assertBystanderServed, trivialQueryOf } from '../harness/latency.js';
import { useServer } from '../harness/suite.js';
import { fragmentChain } from './fragment-chain.js';
import { apikey, errorCode, GRAPHQL_RESPONSE, postGraphql } from './http-client.js';

describe('documents that expand past their size', () => {
  const ctx = useServer();

  async function ask(key: string, query: string) {
    return postGraphql(ctx.server.url, apikey(key), { query }, { accept: GRAPHQL_RESPONSE });
  }

  it('refuses a 22-fragment chain (4 million fields expanded) at once, with the expanded counts', async () => {
    const tenant = await createTenant(ctx.db);
    // CPU time, not wall time: the server runs in this process, and other processes share the machine.
    const cpu = process.cpuUsage();
    const answer = await ask(tenant.key, fragmentChain(22));
    const used = process.cpuUsage(cpu);
    const cpuMs = (used.user + used.system) / 1000;
    assert.equal(answer.status, 400);
    assert.equal(errorCode(answer), 'GRAPHQL_VALIDATION_FAILED');
    const messages = answer.body.errors.map((e: { message: string }) => e.message);
    assert.ok(
      messages.includes('The operation expands to 8388607 fragment spreads, more than the maximum of 500'),
    );
    assert.ok(messages.includes('The operation expands to 4194304 fields, more than the maximum of 1000'));
    assert.ok(cpuMs < 1000, `${cpuMs.toFixed(0)} ms of CPU`);
  });

  it('refuses a 60-fragment chain without freezing the server: /healthz answers right after', async () => {
    const tenant = await createTenant(ctx.db);
    const answer = await ask(tenant.key, fragmentChain(60));
    assert.equal(answer.status, 400);
    assert.equal(errorCode(answer), 'GRAPHQL_VALIDATION_FAILED');
    assert.match(answer.body.errors[0].message, /expands to over 2\^53 fragment spreads/);
    const health = await fetch(`${ctx.server.url}/healthz`, { signal: AbortSignal.timeout(1000) });
    assert.equal(health.status, 200);
  });

  it('refuses a fragment chain even when no operation uses it', async () => {
    const tenant = await createTenant(ctx.db);
    const unused = fragmentChain(40).replace('query{...F0}', '{ __typename }');
    const answer = await ask(tenant.key, unused);
    assert.equal(answer.status, 400);
    assert.equal(errorCode(answer), 'GRAPHQL_VALIDATION_FAILED');
  });

  it('refuses hundreds of same-named fields before graphql-js compares them pairwise', async () => {
    const tenant = await createTenant(ctx.db);
    const repeated = `{ ${Array.from({ length: 400 }, () => 'getOrganization { displayName }').join(' ')} }`;
    const answer = await ask(tenant.key, repeated);
    assert.equal(answer.status, 400);
    assert.equal(errorCode(answer), 'GRAPHQL_VALIDATION_FAILED');
    assert.match(
      answer.body.errors[0].message,
      /repeats fields under the same response names too often: checking that they merge would take 319200 comparisons, more than the maximum of 20000/,
    );
  });

  it('still answers the full introspection query and fragments spread a few times', async () => {
    const tenant = await createTenant(ctx.db, 'Introspecting');
    const introspection = await ask(tenant.key, getIntrospectionQuery({ descriptions: true }));
    assert.equal(introspection.status, 200, introspection.text);
    const shared = await ask(
      tenant.key,
      `fragment Org on Query { getOrganization { displayName } } { ...Org ...Org ... on Query { ...Org } }`,
    );
    assert.equal(shared.status, 200, shared.text);
    assert.deepEqual(shared.body.data, { getOrganization: { displayName: 'Introspecting' } });
  });

  // The bystander's latency figures while fragment bombs arrive are bench/bystander.ts's.
  it("refuses 40 fragment bombs from one organization while another's trivial query is answered all along, never stalled", async (t) => {
    const attacker = await createTenant(ctx.db, 'Attacker');
    const bystander = await createTenant(ctx.db, 'Bystander');
    const probe = trivialQueryOf(ctx.server.url, bystander.key);
    // Chains of 22 to 61 fragments; each document is new (its operation name carries the request's
    // index), so no cache answers for it.
    const requests = Array.from({ length: 40 }, (_, k) => ({
      url: `${ctx.server.url}/graphql`,
      headers: {
        'content-type': 'application/json',
        accept: GRAPHQL_RESPONSE,
        authorization: `Apikey ${attacker.key}`,
      },
      body: JSON.stringify({ query: fragmentChain(22 + k, 'Bomb{{i}}') }),
    }));
    await assertBystanderServed(t, {
      hostile: { requests, concurrency: 4, total: 40 },
      probe,
      refusedWith: ['400 GRAPHQL_VALIDATION_FAILED'],
    });
  });
});
