import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { INGEST_OBSERVERS } from '../../src/app.js';
import { ingestBatch } from '../../src/ingest/ingest.store.js';
import { parseRecord } from '../../src/ingest/records.js';
import { errorGroupOf } from '../../src/rollups/fingerprint.js';
import {
  createTenant,
  deployment,
  event,
  execution,
  ingest,
  log,
  type Tenant,
  workflow,
} from '../harness/fixtures.js';
import { fullSelections, queryRootFields } from '../harness/introspection.js';
import type { GqlResponse } from '../harness/server.js';
import { useServer } from '../harness/suite.js';
import { assertFieldError } from './graphql-assertions.js';

/** What one organization's data is found by: its uuids and the texts a search matches. */
interface Ids {
  workflowUuid: string;
  deploymentUuid: string;
  executionUuid: string;
  executionId: string;
  workflowName: string;
  ownerAddress: string;
  txHash: string;
  /** An error message, a phrase of a log line and a capability of this organization's data. */
  errorMessage: string;
  logPhrase: string;
  capabilityId: string;
}

const fingerprintOf = (ids: Ids) => errorGroupOf(ids.errorMessage).fingerprint;

const WINDOW = { from: '2026-01-01T00:00:00Z', to: '2026-01-04T00:00:00Z' };

type Input = Record<string, unknown> | undefined;

/**
 * The inputs each root field is probed with, built from some organization's ids. Every root field
 * of the served Query type must have an entry (the test enumerates them by introspection), so a
 * field added later cannot escape the tenancy checks.
 */
const PROBES: Record<string, (ids: Ids) => Input[]> = {
  getAccountDetails: () => [undefined],
  getOrganization: () => [undefined],
  workflows: (ids) => [
    {},
    { search: ids.workflowName },
    { workflowOwnerAddress: [ids.ownerAddress] },
    { status: ['ACTIVE'], orderBy: { field: 'EXECUTED_AT', order: 'DESC' } },
  ],
  workflow: (ids) => [{ uuid: ids.workflowUuid, from: WINDOW.from }],
  workflowActivity: (ids) => [WINDOW, { ...WINDOW, workflowUUID: ids.workflowUuid }],
  workflowDeployments: (ids) => [
    { workflowUUID: ids.workflowUuid },
    { workflowUUID: ids.workflowUuid, search: ids.txHash, ...WINDOW },
  ],
  workflowDeployment: (ids) => [{ uuid: ids.deploymentUuid }],
  workflowExecutions: (ids) => [
    {},
    { ...WINDOW, status: ['SUCCESS', 'FAILURE'] },
    { workflowUuid: ids.workflowUuid },
    { workflowUuid: ids.workflowUuid, ...WINDOW, status: ['FAILURE'] },
    { search: ids.executionUuid },
    { search: ids.executionId },
    { search: ids.workflowName },
    { errorFingerprint: fingerprintOf(ids) },
    { errorFingerprint: fingerprintOf(ids), workflowUuid: ids.workflowUuid, ...WINDOW },
  ],
  workflowExecution: (ids) => [{ uuid: ids.executionUuid }],
  workflowExecutionLogs: (ids) => [{ workflowExecutionUUID: ids.executionUuid }],
  workflowExecutionLogPage: (ids) => [
    { workflowExecutionUUID: ids.executionUuid },
    { workflowExecutionUUID: ids.executionUuid, size: 1 },
  ],
  workflowExecutionEvents: (ids) => [
    { workflowExecutionUUID: ids.executionUuid },
    { workflowExecutionUUID: ids.executionUuid, capabilityID: 'chain-write@1.0.0', status: 'FAILURE' },
  ],
  errorGroups: (ids) => [
    WINDOW,
    { ...WINDOW, workflowUUID: ids.workflowUuid },
    { ...WINDOW, capabilityID: ids.capabilityId },
  ],
  durationStats: (ids) => [
    WINDOW,
    { ...WINDOW, status: ['FAILURE'] },
    { ...WINDOW, workflowUUID: ids.workflowUuid },
    { ...WINDOW, capabilityID: ids.capabilityId },
    { ...WINDOW, workflowUUID: ids.workflowUuid, capabilityID: ids.capabilityId, status: ['FAILURE'] },
  ],
  capabilityStats: (ids) => [WINDOW, { ...WINDOW, workflowUUID: ids.workflowUuid }],
  searchExecutionLogs: (ids) => [
    { ...WINDOW, query: ids.logPhrase },
    { ...WINDOW, query: ids.logPhrase, workflowUUID: ids.workflowUuid },
    { ...WINDOW, query: ids.logPhrase, nodeID: 'node-1' },
  ],
  deploymentImpact: (ids) => [
    { workflowUUID: ids.workflowUuid },
    { workflowUUID: ids.workflowUuid, deploymentUUID: ids.deploymentUuid },
  ],
  anomalies: (ids) => [WINDOW, { ...WINDOW, workflowUUID: ids.workflowUuid }],
  serviceLevels: (ids) => [{}, { workflowUUID: ids.workflowUuid }],
};

/** Ids that no organization has. */
function ghostIds(): Ids {
  return {
    workflowUuid: randomUUID(),
    deploymentUuid: randomUUID(),
    executionUuid: randomUUID(),
    executionId: `0x${randomUUID().replace(/-/g, '')}`,
    workflowName: `ghost ${randomUUID()}`,
    ownerAddress: `0x${randomUUID().replace(/-/g, '').padEnd(40, '0')}`,
    txHash: `0x${randomUUID().replace(/-/g, '')}`,
    errorMessage: `revert in ${word()}`,
    logPhrase: `phrase ${word()}`,
    capabilityId: `${word()}@1.0.0`,
  };
}

/** A random word of letters that are not hex digits, so that error grouping keeps it. */
const word = () =>
  Array.from({ length: 12 }, () => 'ghijklmnopqrstuvwxyz'[Math.floor(Math.random() * 20)]).join('');

describe('tenancy', () => {
  const ctx = useServer({ rateLimit: { burst: 1_000_000, perSecond: 1_000_000 } });

  /**
   * A workflow with a deployment, executions of several statuses inside WINDOW (one in TEE, with
   * credits), logs and events. `like` reuses another organization's names, ids and owner address.
   */
  async function seed(t: Tenant, like?: Ids): Promise<Ids> {
    const own = ghostIds();
    const ids: Ids = like
      ? {
          ...own,
          workflowName: like.workflowName,
          ownerAddress: like.ownerAddress,
          executionId: like.executionId,
          errorMessage: like.errorMessage,
          logPhrase: like.logPhrase,
          capabilityId: like.capabilityId,
        }
      : own;
    const wf = workflow(t.organizationId, {
      uuid: ids.workflowUuid,
      name: ids.workflowName,
      ownerAddress: ids.ownerAddress,
    });
    const org = t.organizationId;
    await ingest(ctx.db, [
      wf,
      deployment(org, ids.workflowUuid, {
        uuid: ids.deploymentUuid,
        txHash: ids.txHash,
        deployedAt: WINDOW.from,
      }),
      execution(org, ids.workflowUuid, {
        uuid: ids.executionUuid,
        id: ids.executionId,
        status: 'FAILURE',
        startedAt: '2026-01-02T00:07:13Z',
        finishedAt: '2026-01-02T00:07:15.5Z',
        creditUsed: '1.5',
        executedInTee: true,
        errors: [{ error: ids.errorMessage, count: 1 }],
      }),
      execution(org, ids.workflowUuid, {
        status: 'SUCCESS',
        startedAt: '2026-01-02T03:00:00Z',
        finishedAt: '2026-01-02T03:00:00.250Z',
        creditUsed: 2,
      }),
      execution(org, ids.workflowUuid, { status: 'IN_PROGRESS', startedAt: '2026-01-03T12:34:56.789Z' }),
      log(org, ids.executionUuid, { message: 'started', timestamp: '2026-01-02T00:07:13Z' }),
      log(org, ids.executionUuid, { message: `failed: ${ids.logPhrase}`, timestamp: '2026-01-02T00:07:14Z' }),
      event(org, ids.executionUuid, { capabilityID: 'cron-trigger@1.0.0' }),
      event(org, ids.executionUuid, {
        capabilityID: 'chain-write@1.0.0',
        status: 'FAILURE',
        finishedAt: '2026-01-02T00:00:01Z',
      }),
      event(org, ids.executionUuid, {
        capabilityID: ids.capabilityId,
        status: 'COMPLETED',
        startedAt: '2026-01-02T00:07:14Z',
        finishedAt: '2026-01-02T00:07:14.040Z',
        errors: [{ error: ids.errorMessage, count: 3 }],
      }),
    ]);
    return ids;
  }

  /** Runs every probe of every root field with a key; fails when a root field has no probe. */
  async function probeAll(key: string, ids: Ids): Promise<Map<string, GqlResponse>> {
    const selectionOf = await fullSelections(ctx.server, key);
    const answers = new Map<string, GqlResponse>();
    for (const root of await queryRootFields(ctx.server, key)) {
      const probes = PROBES[root.name];
      assert.ok(probes, `Query.${root.name} has no tenancy probe: add one to PROBES`);
      const inputType = root.args.find((arg) => arg.startsWith('input: '))?.slice('input: '.length);
      for (const [index, input] of probes(ids).entries()) {
        const query =
          input === undefined
            ? `{ ${root.name} ${selectionOf(root.returns)} }`
            : `query ($input: ${inputType}) { ${root.name}(input: $input) ${selectionOf(root.returns)} }`;
        const response = await ctx.server.gql(key, query, input === undefined ? undefined : { input });
        answers.set(`${root.name}#${index}`, response);
      }
    }
    return answers;
  }

  it("answers another organization's uuids and texts exactly as ones that do not exist, on every root field", async () => {
    const a = await createTenant(ctx.db, 'Acme');
    const b = await createTenant(ctx.db, 'Beta');
    const aIds = await seed(a);
    await seed(b);
    const foreign = await probeAll(b.key, aIds);
    const ghost = await probeAll(b.key, ghostIds());
    assert.equal(foreign.size, ghost.size);
    for (const [probe, expected] of ghost) {
      const answer = foreign.get(probe)!;
      assert.equal(answer.status, expected.status, probe);
      assert.deepEqual(answer.body, expected.body, probe);
    }
    // What "does not exist" means, per the contract.
    const only = (name: string) =>
      [...ghost].filter(([probe]) => probe.startsWith(`${name}#`)).map(([, r]) => r);
    assertFieldError(only('workflow')[0]!, 'NOT_FOUND', 'workflow not found');
    assertFieldError(only('workflowDeployment')[0]!, 'NOT_FOUND');
    assert.deepEqual(only('workflowExecution')[0]!.body.data, { workflowExecution: { data: null } });
    for (const answer of only('workflowExecutionLogs'))
      assert.equal(answer.body.data.workflowExecutionLogs.data, null);
    for (const answer of only('workflowExecutionLogPage'))
      assert.deepEqual(answer.body.data.workflowExecutionLogPage, { data: null, next: null });
    for (const answer of only('workflowExecutionEvents'))
      assert.equal(answer.body.data.workflowExecutionEvents.data, null);
    for (const answer of only('workflowDeployments'))
      assert.deepEqual(answer.body.data.workflowDeployments, { count: 0, data: [] });
    const byWorkflow = only('workflowExecutions').filter((_, index) => index >= 2 && index !== 7);
    for (const answer of byWorkflow)
      assert.deepEqual(answer.body.data.workflowExecutions, { count: 0, data: [] });
    const [, search, owner] = only('workflows');
    assert.deepEqual(search!.body.data.workflows, { count: 0, data: [] });
    assert.deepEqual(owner!.body.data.workflows, { count: 0, data: [] });
    const activity = only('workflowActivity')[1]!.body.data.workflowActivity.data ?? [];
    assert.equal(
      activity.reduce(
        (sum: number, row: { successCount: number; failureCount: number }) =>
          sum + row.successCount + row.failureCount,
        0,
      ),
      0,
    );
  });

  it("never lets another organization's data change anything a key sees, org-wide aggregates included", async () => {
    const a = await createTenant(ctx.db, 'Acme');
    const b = await createTenant(ctx.db, 'Beta');
    const bIds = await seed(b);
    const before = await probeAll(b.key, bIds);
    // Same names, owner address and execution id, and executions in the same windows.
    const aIds = await seed(a, bIds);
    await seed(a, bIds);
    const after = await probeAll(b.key, bIds);
    for (const [probe, answer] of before) assert.deepEqual(after.get(probe)!.body, answer.body, probe);

    // The probes saw B's data (not only empty answers), and A sees its own.
    const seen = (answers: Map<string, GqlResponse>, probe: string) => answers.get(probe)!.body.data;
    assert.equal(seen(before, 'workflowExecutions#0').workflowExecutions.count, 3);
    assert.equal(seen(before, 'workflowExecutions#7').workflowExecutions.count, 1);
    assert.equal(seen(before, 'errorGroups#0').errorGroups.data[0].occurrences, 4);
    assert.equal(seen(before, 'errorGroups#2').errorGroups.data[0].occurrences, 3);
    assert.equal(seen(before, 'durationStats#0').durationStats.data.count, 2);
    assert.equal(seen(before, 'durationStats#3').durationStats.data.maxMs, 40);
    assert.equal(seen(before, 'capabilityStats#0').capabilityStats.count, 3);
    assert.equal(seen(before, 'searchExecutionLogs#0').searchExecutionLogs.count, 1);
    assert.equal(seen(before, 'getOrganization#0').getOrganization.organizationId, b.organizationId);
    assert.equal(seen(before, 'getAccountDetails#0').getAccountDetails.memberId, b.memberId);
    const mine = await probeAll(a.key, aIds);
    assert.equal(seen(mine, 'workflowExecutions#0').workflowExecutions.count, 6);
    assert.equal(seen(mine, 'workflowExecutions#7').workflowExecutions.count, 2);
    assert.equal(seen(mine, 'errorGroups#0').errorGroups.data[0].occurrences, 8);
    assert.equal(seen(mine, 'durationStats#0').durationStats.data.count, 4);
    assert.equal(seen(mine, 'capabilityStats#0').capabilityStats.data[0].calls, 2);
    assert.equal(seen(mine, 'searchExecutionLogs#0').searchExecutionLogs.count, 2);
    assert.equal(seen(mine, 'workflows#0').workflows.count, 2);
    assert.equal(seen(mine, 'getOrganization#0').getOrganization.organizationId, a.organizationId);
  });

  it("refuses ingestion that claims or attaches to another organization's uuids, leaving its reads unchanged", async () => {
    const a = await createTenant(ctx.db, 'Acme');
    const b = await createTenant(ctx.db, 'Beta');
    const aIds = await seed(a);
    const before = await probeAll(a.key, aIds);
    const org = b.organizationId;
    const lines = [
      workflow(org, { uuid: aIds.workflowUuid, name: 'hijacked' }),
      deployment(org, aIds.workflowUuid),
      deployment(org, randomUUID(), { uuid: aIds.deploymentUuid }),
      execution(org, aIds.workflowUuid),
      execution(org, randomUUID(), { uuid: aIds.executionUuid, status: 'SUCCESS' }),
      log(org, aIds.executionUuid, { message: 'injected' }),
      event(org, aIds.executionUuid, { capabilityID: 'injected@1' }),
    ];
    const result = await ingestBatch(
      ctx.db,
      lines.map((record, index) => ({ line: index + 1, record: parseRecord(record) })),
      { observers: INGEST_OBSERVERS },
    );
    assert.equal(result.accepted, 0);
    assert.deepEqual(
      result.rejected.map((r) => r.line),
      lines.map((_, index) => index + 1),
    );
    const after = await probeAll(a.key, aIds);
    for (const [probe, answer] of before) assert.deepEqual(after.get(probe)!.body, answer.body, probe);
  });
});
