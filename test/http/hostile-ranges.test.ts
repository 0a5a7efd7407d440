import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTenant } from '../harness/fixtures.js';
import { assertBystanderServed, trivialQueryOf } from '../harness/latency.js';
import { useServer } from '../harness/suite.js';
import { apikey, errorCode, GRAPHQL_RESPONSE, postGraphql } from './http-client.js';

const WIDEST = '{ from: "0001-01-01T00:00:00Z", to: "9999-12-31T23:59:59Z" }';
const HUGE_RANGES = [
  `{ workflowActivity(input: ${WIDEST}) { data { from successCount } } }`,
  `{ errorGroups(input: ${WIDEST}) { count data { activity { occurrences } } } }`,
];

describe('aggregates over huge ranges', () => {
  const ctx = useServer();

  it('refuses workflowActivity over 0001..9999 (521,000 weeks) from arithmetic, at a few ms of CPU each', async () => {
    const tenant = await createTenant(ctx.db);
    // Warm up the document cache: what is measured is the resolver's work.
    await postGraphql(ctx.server.url, apikey(tenant.key), { query: HUGE_RANGES[0] });
    // CPU time, not wall time: the server runs in this process, and other processes share the machine.
    // A few ms on a quiet machine; the bound is generous because the embedded database shares this
    // process and a loaded machine has put it at 50 ms (bench/bystander.ts --attack ranges times it).
    const cpu = process.cpuUsage();
    for (let i = 0; i < 20; i++) {
      const answer = await postGraphql(ctx.server.url, apikey(tenant.key), { query: HUGE_RANGES[0] });
      assert.equal(errorCode(answer), 'BAD_USER_INPUT');
      assert.match(
        answer.body.errors[0].message,
        /the range from\.\.to must cover at most 1000 buckets of 7 days/,
      );
    }
    const used = process.cpuUsage(cpu);
    const perRequestMs = (used.user + used.system) / 1000 / 20;
    assert.ok(perRequestMs < 100, `${perRequestMs.toFixed(1)} ms of CPU per refusal`);
  });

  // The bystander's latency figures while hostile requests arrive are bench/bystander.ts's (`--attack ranges`).
  it("refuses 200 huge ranges from one organization while another's trivial query is answered all along, never stalled", async (t) => {
    const attacker = await createTenant(ctx.db, 'Attacker');
    const bystander = await createTenant(ctx.db, 'Bystander');
    const probe = trivialQueryOf(ctx.server.url, bystander.key);
    const requests = HUGE_RANGES.map((query) => ({
      url: `${ctx.server.url}/graphql`,
      headers: {
        'content-type': 'application/json',
        accept: GRAPHQL_RESPONSE,
        authorization: `Apikey ${attacker.key}`,
      },
      body: JSON.stringify({ query }),
    }));
    await assertBystanderServed(t, {
      hostile: { requests, concurrency: 4, total: 200 },
      probe,
      refusedWith: ['200 BAD_USER_INPUT'],
    });
  });
});
