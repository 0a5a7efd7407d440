import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { createTenant } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { buildDataset, clearPlatformData, readEverything } from './dataset.js';
import { INGEST_TOKEN, postIngest } from './http.js';
import { rollupDrift } from './rollup-drift.js';

describe('ingestion in any order', () => {
  // Small batches, so one request spans many transactions and a record's states land in different ones.
  const ctx = useServer({ ingestToken: INGEST_TOKEN, limits: { ingestBatchSize: 7 } });

  it('gives identical answers to every read query whatever the order and duplicates of the records', async () => {
    const tenant = await createTenant(ctx.db);
    const dataset = buildDataset(tenant.organizationId, {
      workflows: 3,
      executionsPerWorkflow: 4,
      logsPerExecution: 2,
      eventsPerExecution: 2,
    });
    const send = async (records: readonly unknown[]) => {
      const answer = await postIngest(ctx.server.url, records);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(answer.body.rejected, []);
      assert.equal(answer.body.accepted, records.length);
    };

    await send(dataset.records);
    const canonical = await readEverything(ctx.server, tenant.key, dataset);

    const n = dataset.records.length;
    const indices = [...dataset.records.keys()];
    const arrival = fc.record({
      order: fc.shuffledSubarray(indices, { minLength: n, maxLength: n }),
      // Each duplicate: which record, and where in the stream it is sent again.
      duplicates: fc.array(fc.tuple(fc.nat({ max: n - 1 }), fc.nat()), { maxLength: n }),
      // Where the stream is cut into separate requests.
      cuts: fc.array(fc.nat({ max: 2 * n }), { maxLength: 4 }),
    });
    await fc.assert(
      fc.asyncProperty(arrival, async ({ order, duplicates, cuts }) => {
        await clearPlatformData(ctx.db);
        const sequence = [...order];
        for (const [i, at] of duplicates) sequence.splice(at % (sequence.length + 1), 0, i);
        const shuffled = sequence.map((i) => dataset.records[i]!);
        const bounds = [0, ...[...new Set(cuts)].filter((c) => c < shuffled.length).sort((a, b) => a - b)];
        for (const [k, start] of bounds.entries()) {
          const part = shuffled.slice(start, bounds[k + 1] ?? shuffled.length);
          if (part.length) await send(part);
        }
        assert.deepEqual(await readEverything(ctx.server, tenant.key, dataset), canonical);
        const drift = await rollupDrift(ctx.db);
        assert.equal(drift.actual, drift.expected);
      }),
      { numRuns: 20, seed: 20260301, endOnFailure: true },
    );
  });
});
