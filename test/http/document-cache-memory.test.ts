// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createTenant } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { apikey, postGraphql } from './http-client.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A distinct document every time (inline values), of 25 aliased selections: about 700 kB compiled. */
const wide = (i: number) =>
  `{ ${Array.from({ length: 25 }, (_, j) => `a${j}: workflows(input: { search: "s${i}" }) { data { uuid name executedAt } }`).join(' ')} }`;

const heapMb = () => {
  for (let i = 0; i < 4; i++) gc();
  return process.memoryUsage().heapUsed / 1e6;
};

describe('the document cache under distinct documents', () => {
  const ctx = useServer({ limits: { documentCacheBytes: 8_000_000 } });

  it('keeps the heap within its byte bound however many distinct documents arrive', async () => {
    const tenant = await createTenant(ctx.db);
    await postGraphql(ctx.server.url, apikey(tenant.key), { query: wide(-1) });
    const before = heapMb();
    for (let i = 0; i < 120; i++) {
      const answer = await postGraphql(ctx.server.url, apikey(tenant.key), { query: wide(i) });
      assert.equal(answer.status, 200, answer.text);
    }
    const grown = heapMb() - before;
    // Unbounded, 120 such documents hold about 85 MB.
    assert.ok(grown < 30, `the heap grew by ${grown.toFixed(1)} MB`);
  });
});
