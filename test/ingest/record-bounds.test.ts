/**
 * Ingestion refuses, line by line, what the code after it cannot hold: times before 2000 or more
 * than a day past the server's clock (year 9999 stopped partition maintenance), and error counts
 * beyond 32 bits (2^53-1 voided errorGroups and made a batch of two such executions fail whole).
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { INGEST_OBSERVERS } from '../../src/app.js';
import { ingestNdjson } from '../../src/ingest/ingest-stream.js';
import { createTenant, event, execution, ingest, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { INGEST_TOKEN, ndjson, postIngest } from './http.js';

const DAY = 86_400_000;
const MAX_INT = 2 ** 31 - 1;

describe('ingestion bounds on times and error counts', () => {
  const ctx = useServer({ ingestToken: INGEST_TOKEN, limits: { ingestBatchSize: 3 } });

  it('rejects each out-of-bounds line with its line number and reason and stores the valid lines of the same batch', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const wf = workflow(org);
    const w = wf.uuid as string;
    const soon = new Date(Date.now() + 3_600_000).toISOString();
    const late = new Date(Date.now() + 3 * DAY).toISOString();
    const huge = Number.MAX_SAFE_INTEGER;
    const good = [execution(org, w), execution(org, w, { startedAt: soon })];
    const lines = [
      wf,
      good[0],
      execution(org, w, { startedAt: '1999-12-31T23:59:59.999Z' }),
      execution(org, w, { startedAt: '9999-12-31T00:00:00Z' }),
      execution(org, w, { startedAt: '2026-01-02T00:00:00Z', finishedAt: late }),
      workflow(org, { registeredAt: late }),
      execution(org, w, { status: 'FAILURE', errors: [{ error: 'out of gas', count: huge }] }),
      execution(org, w, { status: 'FAILURE', errors: [{ error: 'out of gas', count: huge }] }),
      execution(org, w, {
        status: 'FAILURE',
        errors: [
          { error: 'a', count: 1 },
          { error: 'b', count: MAX_INT + 1 },
        ],
      }),
      event(org, good[0]!.uuid as string, {
        status: 'FAILURE',
        errors: [{ error: 'rpc down', count: huge }],
      }),
      event(org, good[0]!.uuid as string, { startedAt: '1970-01-01T00:00:00Z' }),
      good[1],
      execution(org, w, { status: 'FAILURE', errors: [{ error: 'out of gas', count: MAX_INT }] }),
    ];
    const answer = await postIngest(ctx.server.url, lines);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(
      answer.body.rejected.map((r: { line: number }) => r.line),
      [3, 4, 5, 6, 7, 8, 9, 10, 11],
    );
    const reasons = answer.body.rejected.map((r: { error: string }) => r.error);
    assert.match(reasons[0], /^startedAt must not be before 2000-01-01T00:00:00\.000Z$/);
    assert.match(reasons[1], /^startedAt must not be more than a day past the server's clock/);
    assert.match(reasons[2], /^finishedAt must not be more than a day past the server's clock/);
    assert.match(reasons[3], /^registeredAt must not be more than a day past/);
    assert.match(reasons[4], /^errors\[0\]\.count must be at most 2147483647$/);
    assert.match(reasons[5], /^errors\[0\]\.count must be at most 2147483647$/);
    assert.match(reasons[6], /^errors\[1\]\.count must be at most 2147483647$/);
    assert.match(reasons[7], /^errors\[0\]\.count must be at most 2147483647$/);
    assert.match(reasons[8], /^startedAt must not be before 2000/);
    assert.equal(answer.body.accepted, 4);
    const [stored] = await ctx.db.query<{ n: number }>(
      'select count(*)::int as n from executions where organization_id = $1',
      [org],
    );
    assert.equal(stored!.n, 3);
  });

  it('measures "a day past" against the clock it is given', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const wf = workflow(org, { registeredAt: '2030-06-01T00:00:00Z' });
    const body = async function* () {
      yield new TextEncoder().encode(ndjson([wf]));
    };
    const limits = {
      batchSize: 10,
      batchBytes: 2 ** 20,
      maxBodyBytes: 2 ** 20,
      maxRejections: 10,
      observers: INGEST_OBSERVERS,
    };
    const now2026 = await ingestNdjson(ctx.db, body(), {
      ...limits,
      now: () => Date.parse('2026-06-01T00:00:00Z'),
    });
    assert.equal(now2026.rejectedCount, 1);
    const now2030 = await ingestNdjson(ctx.db, body(), {
      ...limits,
      now: () => Date.parse('2030-05-31T00:00:01Z'),
    });
    assert.equal(now2030.accepted, 1, JSON.stringify(now2030.rejected));
  });

  it('keeps answering errorGroups when the counts of one group add up past 32 bits', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const wf = workflow(org);
    const w = wf.uuid as string;
    const answer = await postIngest(ctx.server.url, [
      wf,
      execution(org, w, { status: 'FAILURE', errors: [{ error: 'out of gas', count: MAX_INT }] }),
      execution(org, w, { status: 'FAILURE', errors: [{ error: 'out of gas', count: MAX_INT }] }),
      execution(org, w, { status: 'FAILURE', errors: [{ error: 'rpc down', count: 2 }] }),
    ]);
    assert.equal(answer.body.accepted, 4, JSON.stringify(answer.body));
    const { body: result } = await ctx.server.gql(
      tenant.key,
      `{ errorGroups(input: { from: "2026-01-01T00:00:00Z", to: "2026-01-03T00:00:00Z" }) {
          count data { sampleMessage occurrences executionCount activity { occurrences } } } }`,
    );
    assert.equal(result.errors, undefined, JSON.stringify(result.errors));
    const groups = result.data.errorGroups.data;
    assert.equal(result.data.errorGroups.count, 2);
    assert.deepEqual(
      groups.map((g: { sampleMessage: string; occurrences: number; executionCount: number }) => [
        g.sampleMessage,
        g.occurrences,
        g.executionCount,
      ]),
      [
        ['out of gas', MAX_INT],
        ['rpc down', 2],
      ].map(([message, occurrences]) => [message, occurrences, message === 'out of gas' ? 2 : 1]),
    );
    assert.ok(groups[0].activity.every((b: { occurrences: number }) => b.occurrences <= MAX_INT));
  });

  it('still reads the rows an older version stored with times beyond the bounds', async () => {
    const tenant = await createTenant(ctx.db);
    const org = tenant.organizationId;
    const wf = workflow(org);
    await ingest(ctx.db, [wf, execution(org, wf.uuid as string, { startedAt: '1970-01-01T00:00:00Z' })]);
    const { body: result } = await ctx.server.gql(
      tenant.key,
      `{ workflowExecutions(input: { from: "1970-01-01T00:00:00Z" }) { count } }`,
    );
    assert.equal(result.data.workflowExecutions.count, 1, JSON.stringify(result));
  });
});
