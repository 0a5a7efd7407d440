import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { createTenant, deployment, event, execution, ingest, log, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { snapshotTables } from './dataset.js';
import { INGEST_TOKEN, postIngest } from './http.js';

type Raw = Record<string, unknown>;
interface Case {
  readonly line: Raw | string;
  readonly error: RegExp;
}

describe('POST /ingest with bad lines', () => {
  const ctx = useServer({ ingestToken: INGEST_TOKEN, limits: { ingestBatchSize: 4 } });

  /** Stored data the bad lines try to touch: one organization with one of everything. */
  async function seed() {
    const tenant = await createTenant(ctx.db);
    const wf = workflow(tenant.organizationId);
    const dep = deployment(tenant.organizationId, wf.uuid as string);
    const ex = execution(tenant.organizationId, wf.uuid as string, { creditUsed: '1.5' });
    await ingest(ctx.db, [
      wf,
      dep,
      ex,
      log(tenant.organizationId, ex.uuid as string),
      event(tenant.organizationId, ex.uuid as string),
    ]);
    return { tenant, wf, dep, ex };
  }

  /** Sends the cases as one body; each is rejected with its line and reason, and nothing changes. */
  async function expectRejected(cases: readonly Case[]) {
    const before = await snapshotTables(ctx.db);
    const answer = await postIngest(
      ctx.server.url,
      cases.map((c) => c.line),
    );
    assert.equal(answer.status, 200);
    assert.equal(answer.body.accepted, 0, JSON.stringify(answer.body.rejected));
    assert.equal(answer.body.rejectedCount, cases.length);
    cases.forEach((c, index) => {
      const rejection = answer.body.rejected[index];
      assert.equal(rejection.line, index + 1);
      assert.match(rejection.error, c.error, `line ${index + 1}: ${JSON.stringify(c.line).slice(0, 200)}`);
    });
    assert.equal(await snapshotTables(ctx.db), before);
  }

  it('rejects lines that are not JSON objects, with the reason', async () => {
    await seed();
    await expectRejected([
      { line: '{"type": "workflow",', error: /^invalid JSON/ },
      { line: "{'type': 'log'}", error: /^invalid JSON/ },
      { line: '[1, 2]', error: /must be a JSON object/ },
      { line: '42', error: /must be a JSON object/ },
      { line: 'null', error: /must be a JSON object/ },
      { line: '"workflow"', error: /must be a JSON object/ },
    ]);
  });

  it('rejects a missing or unknown type', async () => {
    const { tenant } = await seed();
    await expectRejected([
      { line: { organizationId: tenant.organizationId }, error: /^type is required$/ },
      {
        line: { type: 'member', organizationId: tenant.organizationId },
        error: /unknown type "member"; expected one of/,
      },
      { line: { type: 7 }, error: /^type is required$/ },
    ]);
  });

  it('rejects a missing required field of every record type, naming it', async () => {
    const { tenant, wf, ex } = await seed();
    const org = tenant.organizationId;
    const without = (record: Raw, field: string) => {
      const copy = { ...record };
      delete copy[field];
      return { line: copy, error: new RegExp(`^${field} is required$`) };
    };
    const fresh = {
      workflow: workflow(org),
      deployment: deployment(org, wf.uuid as string),
      execution: execution(org, wf.uuid as string),
      log: log(org, ex.uuid as string),
      event: event(org, ex.uuid as string),
    };
    await expectRejected([
      ...['organizationId', 'uuid', 'workflowId', 'name', 'ownerAddress', 'status', 'registeredAt'].map((f) =>
        without(fresh.workflow, f),
      ),
      ...['uuid', 'workflowUUID', 'status', 'deployedAt'].map((f) => without(fresh.deployment, f)),
      ...['uuid', 'id', 'workflowUUID', 'status', 'startedAt'].map((f) => without(fresh.execution, f)),
      ...['workflowExecutionUUID', 'nodeID', 'message', 'timestamp'].map((f) => without(fresh.log, f)),
      ...['workflowExecutionUUID', 'capabilityID', 'status', 'startedAt'].map((f) => without(fresh.event, f)),
    ]);
  });

  it('rejects a mistyped field, naming the field and what it must be', async () => {
    const { tenant, wf, ex } = await seed();
    const org = tenant.organizationId;
    const exec = (fields: Raw) => execution(org, wf.uuid as string, fields);
    await expectRejected([
      { line: workflow(org, { name: 42 }), error: /^name must be a string$/ },
      { line: workflow(org, { name: '' }), error: /^name must not be empty$/ },
      { line: workflow(org, { uuid: 'not-a-uuid' }), error: /^uuid must be a uuid$/ },
      { line: workflow(org, { organizationId: 'acme' }), error: /^organizationId must be a uuid$/ },
      { line: workflow(org, { status: 'RUNNING' }), error: /^status must be one of PENDING, FAILED/ },
      { line: workflow(org, { registeredAt: '2026-01-01T00:00:00' }), error: /RFC 3339 time with an offset/ },
      { line: workflow(org, { registeredAt: '2026-02-30T00:00:00Z' }), error: /RFC 3339/ },
      { line: workflow(org, { registeredAt: 1767225600000 }), error: /^registeredAt must be a string$/ },
      {
        line: workflow(org, { registeredAt: '1969-12-31T23:59:59Z' }),
        error: /must not be before 2000-01-01T00:00:00.000Z$/,
      },
      { line: workflow(org, { name: 'x'.repeat(1001) }), error: /^name must be at most 1000 characters$/ },
      { line: workflow(org, { name: 'a\u0000b' }), error: /must not contain the character U\+0000/ },
      { line: workflow(org, { name: 'a\ud800b' }), error: /unpaired surrogate/ },
      { line: exec({ status: 'success' }), error: /^status must be one of UNKNOWN/ },
      { line: exec({ classifiedStatus: 'OK' }), error: /^classifiedStatus must be one of/ },
      { line: exec({ executedInTee: 'yes' }), error: /^executedInTee must be a boolean$/ },
      { line: exec({ creditUsed: -1 }), error: /^creditUsed must be a non-negative decimal/ },
      { line: exec({ creditUsed: '1e5' }), error: /^creditUsed must be a non-negative decimal/ },
      { line: exec({ creditUsed: true }), error: /^creditUsed must be a decimal string or number$/ },
      { line: exec({ errors: 'boom' }), error: /^errors must be an array/ },
      {
        line: exec({ errors: [{ error: 'x', count: -1 }] }),
        error: /errors\[0\]\.count must be a non-negative/,
      },
      {
        line: exec({ errors: [{ error: 'x\u0000', count: 1 }] }),
        error: /errors\[0\]\.error must not contain/,
      },
      { line: exec({ finishedAt: 'yesterday' }), error: /^finishedAt must be an RFC 3339/ },
      { line: log(org, ex.uuid as string, { message: 5 }), error: /^message must be a string$/ },
      {
        line: log(org, ex.uuid as string, { timestamp: '1900-01-01T00:00:00Z' }),
        error: /before 2000-01-01/,
      },
      { line: event(org, ex.uuid as string, { method: ['run'] }), error: /^method must be a string$/ },
    ]);
  });

  it('rejects records of an unknown organization', async () => {
    const { wf } = await seed();
    const stranger = randomUUID();
    await expectRejected([
      { line: workflow(stranger), error: new RegExp(`^unknown organizationId ${stranger}$`) },
      { line: execution(stranger, wf.uuid as string), error: /^unknown organizationId/ },
    ]);
  });

  it('rejects a uuid that belongs to another organization, whether claimed or referred to', async () => {
    const { wf, dep, ex } = await seed();
    const other = await createTenant(ctx.db, 'Globex');
    const org = other.organizationId;
    const foreign = /belongs to another organization$/;
    await expectRejected([
      { line: workflow(org, { uuid: wf.uuid, name: 'stolen' }), error: foreign },
      { line: deployment(org, randomUUID(), { uuid: dep.uuid }), error: foreign },
      { line: deployment(org, wf.uuid as string), error: foreign },
      { line: execution(org, randomUUID(), { uuid: ex.uuid, status: 'FAILURE' }), error: foreign },
      { line: execution(org, wf.uuid as string), error: foreign },
      { line: log(org, ex.uuid as string), error: foreign },
      { line: event(org, ex.uuid as string), error: foreign },
    ]);
    const read = await ctx.server.gql(other.key, '{ workflows(input: {}) { count } }');
    assert.equal(read.body.data.workflows.count, 0);
  });

  it('lets the first line claim a new uuid and rejects another organization claiming it in the same batch', async () => {
    const a = await createTenant(ctx.db, 'Initech');
    const b = await createTenant(ctx.db, 'Umbrella');
    const uuid = randomUUID();
    const answer = await postIngest(ctx.server.url, [
      execution(b.organizationId, randomUUID(), { uuid }),
      workflow(a.organizationId, { uuid }),
      workflow(b.organizationId, { uuid }),
    ]);
    assert.equal(answer.body.accepted, 2);
    assert.deepEqual(answer.body.rejected, [
      { line: 3, error: `uuid ${uuid} belongs to another organization` },
    ]);
  });
});
