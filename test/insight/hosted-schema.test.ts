import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import {
  assertSchemaEquals,
  SECTION_1,
  SECTION_5_ADDITIONS,
  SECTION_7_ADDITIONS,
  SECTION_7_SERVICE_LEVELS,
  servedSchema,
  WFAPI_ADDITIONS,
} from '../harness/contract-schema.js';
import { createTenant, event, execution, ingest, log, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { assertOneError, dataOf } from '../read-api/graphql-assertions.js';

const WINDOW = 'from: "2026-01-01T00:00:00Z", to: "2026-01-03T00:00:00Z"';

describe('WFAPI_SCHEMA=hosted', () => {
  const ctx = useServer({ schema: 'hosted' });

  it('is read from the environment, extended by default', () => {
    assert.equal(loadConfig({}).schema, 'extended');
    assert.equal(loadConfig({ WFAPI_SCHEMA: 'hosted' }).schema, 'hosted');
    assert.throws(() => loadConfig({ WFAPI_SCHEMA: 'full' }), /WFAPI_SCHEMA/);
  });

  it("serves exactly section 1 of the contract: introspection equals the hosted service's schema", async () => {
    const t = await createTenant(ctx.db);
    assertSchemaEquals(await servedSchema(ctx.server, t.key), SECTION_1);
    for (const name of [
      ...Object.keys(SECTION_5_ADDITIONS.objects),
      ...Object.keys(SECTION_5_ADDITIONS.inputs),
      ...Object.keys(SECTION_7_ADDITIONS.objects),
      ...Object.keys(SECTION_7_ADDITIONS.inputs),
      ...Object.keys(SECTION_7_ADDITIONS.enums),
      ...Object.keys(WFAPI_ADDITIONS.objects),
      ...Object.keys(WFAPI_ADDITIONS.inputs),
      ...Object.keys(SECTION_7_SERVICE_LEVELS.objects),
      ...Object.keys(SECTION_7_SERVICE_LEVELS.inputs),
      ...Object.keys(SECTION_7_SERVICE_LEVELS.enums),
    ]) {
      const answer = dataOf(await ctx.server.gql(t.key, `{ __type(name: "${name}") { name } }`));
      assert.equal(answer.__type, null, name);
    }
  });

  it('refuses every insight query and the errorFingerprint filter as GRAPHQL_VALIDATION_FAILED', async () => {
    const t = await createTenant(ctx.db);
    const queries = [
      `{ errorGroups(input: { ${WINDOW} }) { count } }`,
      `{ durationStats(input: { ${WINDOW} }) { data { count } } }`,
      `{ capabilityStats(input: { ${WINDOW} }) { count } }`,
      `{ searchExecutionLogs(input: { query: "boom", ${WINDOW} }) { count } }`,
      '{ workflowExecutionLogPage(input: { workflowExecutionUUID: "00000000-0000-4000-8000-000000000000" }) { next } }',
      '{ workflowExecutions(input: { errorFingerprint: "a2e523cb7383d90b" }) { count } }',
      '{ deploymentImpact(input: { workflowUUID: "00000000-0000-4000-8000-000000000000" }) { count } }',
      `{ anomalies(input: { ${WINDOW} }) { data { score } series { metric } } }`,
      '{ serviceLevels(input: {}) { data { id status burnRates { window rate } } } }',
    ];
    for (const query of queries) {
      const answer = await ctx.server.gql(t.key, query);
      assertOneError(answer, 'GRAPHQL_VALIDATION_FAILED');
      assert.ok(!('data' in answer.body), query);
    }
    // Through a variable the field is as unknown: the variable does not coerce.
    const variable = await ctx.server.gql(
      t.key,
      'query ($input: WorkflowExecutionsInput!) { workflowExecutions(input: $input) { count } }',
      { input: { errorFingerprint: 'a2e523cb7383d90b' } },
    );
    assertOneError(variable, 'BAD_USER_INPUT', /errorFingerprint/);
  });

  it('answers section 1 queries without extensions.dataAsOf, on success and on error alike', async () => {
    const t = await createTenant(ctx.db);
    const wf = workflow(t.organizationId);
    const run = execution(t.organizationId, wf.uuid as string, { errors: [{ error: 'boom 1', count: 1 }] });
    await ingest(ctx.db, [
      wf,
      run,
      log(t.organizationId, run.uuid as string),
      event(t.organizationId, run.uuid as string),
    ]);
    const answers = [
      await ctx.server.gql(
        t.key,
        '{ workflowExecutions(input: {}) { count data { uuid errors { error count } } } }',
      ),
      await ctx.server.gql(
        t.key,
        '{ workflow(input: { uuid: "nope", from: "2026-01-01T00:00:00Z" }) { data { uuid } } }',
      ),
      await ctx.server.gql(t.key, `{ errorGroups(input: { ${WINDOW} }) { count } }`),
      await ctx.server.gql(t.key, '{ workflows('),
      await ctx.server.gql(t.key, '  '),
    ];
    assert.deepEqual(answers[0]!.body.data.workflowExecutions, {
      count: 1,
      data: [{ uuid: run.uuid, errors: [{ error: 'boom 1', count: 1 }] }],
    });
    for (const answer of answers) {
      assert.equal('extensions' in answer.body, false, JSON.stringify(answer.body));
    }
  });
});
