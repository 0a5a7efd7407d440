import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTenant, execution, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { INGEST_TOKEN, postIngest } from '../ingest/http.js';
import { find, METRICS_TOKEN, samples, scrape } from './scrape.js';

/** A line of the text format: a comment, a sample, or blank. */
const LINE = /^(#.*|[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? \S+|)$/;

describe('GET /metrics label values', () => {
  const ctx = useServer({ ingestToken: INGEST_TOKEN, metrics: { token: METRICS_TOKEN } });

  it('writes a carriage return in a workflow name as an escaped line feed, so every line of the answer parses', async () => {
    const tenant = await createTenant(ctx.db);
    const name = 'price\rfeed\r\n"quoted" back\\slash\nend';
    const flow = workflow(tenant.organizationId, { name });
    const run = execution(tenant.organizationId, flow.uuid as string, { status: 'SUCCESS' });
    const ingested = await postIngest(ctx.server.url, [flow, run]);
    assert.equal(ingested.body.accepted, 2, JSON.stringify(ingested.body));

    const answer = await scrape(ctx.server.url);
    assert.equal(answer.status, 200);
    assert.equal(answer.text.includes('\r'), false, 'no raw carriage return');
    // Split as the most permissive line readers do: every piece is a whole line of the format.
    for (const line of answer.text.split(/\r\n|\r|\n/)) assert.match(line, LINE);
    const [info] = find(samples(answer.text), 'wfapi_workflow_info', { workflow: flow.uuid as string });
    assert.equal(info?.labels.workflow_name, 'price\\nfeed\\n\\"quoted\\" back\\\\slash\\nend');
  });
});
