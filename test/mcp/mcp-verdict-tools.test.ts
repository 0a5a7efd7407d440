// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorGroupOf } from '../../src/rollups/fingerprint.js';
import { ADMIN_TOKEN } from '../admin/admin-request.js';
import { createTenant, deployment, execution, ingest, type Tenant, workflow } from '../harness/fixtures.js';
import { ManualClock } from '../harness/manual-clock.js';
import { useServer } from '../harness/suite.js';
import { DAY, HOUR, iso, MINUTE } from '../insight/reference.js';
import { dataOf } from '../read-api/graphql-assertions.js';
import { createObjective, SERVICE_LEVELS } from '../verdicts/objectives-request.js';
import { callError, callOk, connectHttp } from './mcp-client.js';

/** "Now" for the server, after every dataset below. */
const NOW = Date.parse('2026-06-10T12:03:27.250Z');
/** The deployment under test: 7 days of runs on each side end before NOW. */
const DEPLOYED = Date.parse('2026-05-20T10:07:13.250Z');
/** A Monday, midnight UTC, with four weeks of history before it: the day anomalies look at. */
const W0 = Date.parse('2026-06-01T00:00:00Z');
const DAY_WINDOW = { from: iso(W0), to: iso(W0 + 23 * HOUR + 30 * MINUTE) };

type Raw = Record<string, unknown>;

const SIDE = 'from to executions failures failureRate p50Ms p95Ms';
const IMPACT = `query ($input: DeploymentImpactInput!) { deploymentImpact(input: $input) { count data {
  deployment { uuid status deployedAt txHash } verdict before { ${SIDE} } after { ${SIDE} }
  failureRateChange failureRatePValue durationChange durationPValue
  newErrorGroups { fingerprint pattern occurrences }
  resolvedErrorGroups { fingerprint pattern occurrences }
} } }`;

const ANOMALIES = `query ($input: AnomaliesInput!) { anomalies(input: $input) {
  data { metric workflowUUID workflowName from to observed expected lower upper direction score }
} }`;

/** `n` finished executions spread evenly over [from, to): the first `failures` FAILURE with `error`. */
function runs(t: Tenant, wf: string, from: number, to: number, n: number, failures = 0, error = ''): Raw[] {
  return Array.from({ length: n }, (_, i) => {
    const startedAt = from + Math.floor(((i + 0.5) * (to - from)) / n);
    const failed = i < failures;
    return execution(t.organizationId, wf, {
      status: failed ? 'FAILURE' : 'SUCCESS',
      startedAt: iso(startedAt),
      finishedAt: iso(startedAt + 1000 + (i % 7) * 100),
      ...(failed && error ? { errors: [{ error: `${error} ${i}`, count: 1 }] } : {}),
    });
  });
}

/** `n` executions started inside [at, at + 1 minute). */
const burst = (t: Tenant, wf: string, at: number, n: number): Raw[] =>
  Array.from({ length: n }, (_, i) => {
    const startedAt = at + Math.floor((i * MINUTE) / n);
    return execution(t.organizationId, wf, {
      status: 'SUCCESS',
      startedAt: iso(startedAt),
      finishedAt: iso(startedAt + 1000),
    });
  });

describe('MCP verdict tools: deployment_impact, anomalies and service_levels answer what /graphql answers', () => {
  const clock = new ManualClock(NOW);
  const ctx = useServer(
    { adminToken: ADMIN_TOKEN, rateLimit: { burst: 1_000_000, perSecond: 1_000_000 } },
    { now: clock.read },
  );
  const gql = async (key: string, query: string, input: Record<string, unknown>) =>
    dataOf(await ctx.server.gql(key, query, { input }));

  it('deployment_impact: the deploymentImpact query for a workflow named, newest first, one deployment by its uuid', async () => {
    const t = await createTenant(ctx.db);
    const flow = workflow(t.organizationId, { name: 'settlement' });
    const uuid = flow.uuid as string;
    const earlier = deployment(t.organizationId, uuid, { deployedAt: iso(DEPLOYED - 10 * DAY) });
    const regressing = deployment(t.organizationId, uuid, { deployedAt: iso(DEPLOYED) });
    await ingest(ctx.db, [
      flow,
      earlier,
      regressing,
      ...runs(t, uuid, DEPLOYED - 7 * DAY, DEPLOYED, 60, 1, 'timeout after 30s'),
      ...runs(t, uuid, DEPLOYED, DEPLOYED + 7 * DAY, 60, 30, 'nonce too low for account'),
    ]);
    const client = await connectHttp(ctx.server.url, t.key);
    try {
      const tool = await callOk(client, 'deployment_impact', { workflow: 'settlement' });
      const api = (await gql(t.key, IMPACT, { workflowUUID: uuid, page: { number: 0, size: 5 } }))
        .deploymentImpact;
      assert.deepEqual(tool.structured.workflow, { name: 'settlement', uuid });
      assert.equal(tool.structured.count, api.count);
      assert.equal(tool.structured.count, 2);
      assert.deepEqual(tool.structured.deployments, api.data);
      const [latest] = tool.structured.deployments;
      assert.equal(latest.deployment.uuid, regressing.uuid);
      assert.equal(latest.verdict, 'REGRESSED');
      assert.deepEqual(
        latest.newErrorGroups.map((g: { fingerprint: string }) => g.fingerprint),
        [errorGroupOf('nonce too low for account 0').fingerprint],
      );
      assert.match(tool.text, /^settlement: 2 deployments, newest first:\n- REGRESSED: deployment of /);
      assert.match(tool.text, /new errors: "nonce too low for account <num>"/);

      const one = await callOk(client, 'deployment_impact', {
        workflow: uuid,
        deploymentUUID: (earlier.uuid as string).toUpperCase(),
      });
      const apiOne = (
        await gql(t.key, IMPACT, {
          workflowUUID: uuid,
          deploymentUUID: earlier.uuid,
          page: { number: 0, size: 5 },
        })
      ).deploymentImpact;
      assert.equal(one.structured.count, 1);
      assert.deepEqual(one.structured.deployments, apiOne.data);

      const paged = await callOk(client, 'deployment_impact', { workflow: uuid, pageSize: 1 });
      assert.deepEqual(paged.structured.deployments, api.data.slice(0, 1));
      assert.match(paged.structured.more, /1 more deployments after this page: pass page=1/);
    } finally {
      await client.close();
    }
  });

  it('anomalies: the anomalies query, for a workflow by name and for the organization', async () => {
    const t = await createTenant(ctx.db);
    const flow = workflow(t.organizationId, { name: 'ticker' });
    const uuid = flow.uuid as string;
    const tenAm = W0 + 10 * HOUR;
    await ingest(ctx.db, [
      flow,
      ...[10, 12, 11, 9].flatMap((n, k) => burst(t, uuid, tenAm - (k + 1) * 7 * DAY + 5 * MINUTE, n)),
      ...burst(t, uuid, tenAm + 20 * MINUTE, 20),
    ]);
    const client = await connectHttp(ctx.server.url, t.key);
    try {
      const mine = await callOk(client, 'anomalies', {
        workflow: 'ticker',
        metrics: ['EXECUTIONS'],
        ...DAY_WINDOW,
      });
      const api = (
        await gql(t.key, ANOMALIES, { workflowUUID: uuid, metrics: ['EXECUTIONS'], ...DAY_WINDOW })
      ).anomalies;
      assert.deepEqual(mine.structured.workflow, { name: 'ticker', uuid });
      assert.deepEqual(mine.structured.anomalies, api.data);
      assert.equal(mine.structured.count, 1);
      const [spike] = mine.structured.anomalies;
      assert.deepEqual(
        [spike.metric, spike.workflowName, spike.observed, spike.expected, spike.direction],
        ['EXECUTIONS', 'ticker', 20, 10.5, 'UP'],
      );
      assert.match(
        mine.text,
        /^1 anomalies, newest first:\n- ticker EXECUTIONS UP at 2026-06-01 10:00:00 UTC/,
      );

      const everything = await callOk(client, 'anomalies', { ...DAY_WINDOW, sensitivity: 2 });
      const apiEverything = (await gql(t.key, ANOMALIES, { ...DAY_WINDOW, sensitivity: 2 })).anomalies;
      assert.equal(everything.structured.workflow, undefined);
      assert.deepEqual(everything.structured.anomalies, apiEverything.data);
      assert.equal(everything.structured.count, apiEverything.data.length);
      assert.ok(
        everything.structured.anomalies.some((a: { workflowUUID: string | null }) => a.workflowUUID === null),
        'the organization as a whole is among them',
      );
    } finally {
      await client.close();
    }
  });

  it('service_levels: the serviceLevels query, the objectives that need attention first', async () => {
    const t = await createTenant(ctx.db);
    const flow = workflow(t.organizationId, { name: 'settlement' });
    const quiet = workflow(t.organizationId, { name: 'quiet' });
    const uuid = flow.uuid as string;
    // The last hour fails throughout: the availability objective pages.
    await ingest(ctx.db, [
      flow,
      quiet,
      ...runs(t, uuid, NOW - 3 * DAY, NOW - 2 * HOUR, 100),
      ...runs(t, uuid, NOW - HOUR, NOW - MINUTE, 20, 20, 'reverted'),
    ]);
    const objective = (input: Record<string, unknown>) =>
      createObjective(ctx.server.url, { organizationId: t.organizationId, indicator: 'SUCCESS', ...input });
    await objective({ name: 'a-idle', workflowUUID: quiet.uuid, target: 0.9 });
    await objective({ name: 'b-availability', workflowUUID: uuid, target: 0.99 });
    await objective({
      name: 'c-latency',
      workflowUUID: uuid,
      indicator: 'LATENCY',
      target: 0.5,
      thresholdMs: 60_000,
    });
    const client = await connectHttp(ctx.server.url, t.key);
    try {
      const all = await callOk(client, 'service_levels');
      const api = (await gql(t.key, SERVICE_LEVELS, {})).serviceLevels.data;
      assert.deepEqual(
        api.map((level: { name: string; status: string }) => [level.name, level.status]),
        [
          ['a-idle', 'NO_DATA'],
          ['b-availability', 'PAGE'],
          ['c-latency', 'OK'],
        ],
      );
      // The same objectives, figure for figure, ordered by what needs attention (the API's by name).
      const byId = new Map(api.map((level: { id: string }) => [level.id, level]));
      assert.deepEqual(
        all.structured.objectives.map((level: { name: string }) => level.name),
        ['b-availability', 'c-latency', 'a-idle'],
      );
      for (const level of all.structured.objectives) assert.deepEqual(level, byId.get(level.id));
      assert.equal(all.structured.count, 3);
      assert.match(all.text, /^3 objectives, the ones that need attention first:\n- PAGE: b-availability/);

      const one = await callOk(client, 'service_levels', { workflow: 'quiet' });
      assert.deepEqual(one.structured.workflow, { name: 'quiet', uuid: quiet.uuid });
      assert.deepEqual(
        one.structured.objectives,
        (await gql(t.key, SERVICE_LEVELS, { workflowUUID: quiet.uuid })).serviceLevels.data,
      );
    } finally {
      await client.close();
    }
  });

  it('answers a bad argument of a verdict tool as a tool error that says what to change', async () => {
    const t = await createTenant(ctx.db);
    const flow = workflow(t.organizationId, { name: 'settlement' });
    await ingest(ctx.db, [flow]);
    const client = await connectHttp(ctx.server.url, t.key);
    try {
      assert.match(
        await callError(client, 'deployment_impact', { workflow: 'settlement', deploymentUUID: 'nope' }),
        /deploymentUUID must be a uuid/,
      );
      assert.match(
        await callError(client, 'deployment_impact', {
          workflow: 'settlement',
          deploymentUUID: '00000000-0000-4000-8000-000000000000',
        }),
        /deployment not found/,
        "the read API's NOT_FOUND, as a tool error",
      );
      assert.match(
        await callError(client, 'deployment_impact', { workflow: 'settlement', pageSize: 21 }),
        /pageSize must be at most 20/,
      );
      assert.match(
        await callError(client, 'anomalies', { sensitivity: 11 }),
        /sensitivity must be between 1 and 10/,
      );
      assert.match(await callError(client, 'anomalies', { from: 'last tuesday' }), /from must be a duration/);
      assert.match(
        await callError(client, 'service_levels', { workflow: 'nope' }),
        /No workflow named "nope"/,
      );
    } finally {
      await client.close();
    }
  });
});
