// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorGroupOf } from '../../src/rollups/fingerprint.js';
import { createTenant } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { dataOf } from '../read-api/graphql-assertions.js';
import { callError, callOk, connectHttp } from './mcp-client.js';
import { buildIncident, HOUR, iso, T0, WINDOW } from './mcp-data.js';

const TOOLS = [
  'list_workflows',
  'workflow_health',
  'find_executions',
  'get_execution',
  'error_groups',
  'search_logs',
  'duration_stats',
  'capability_stats',
  'deployment_impact',
  'anomalies',
  'service_levels',
];

describe('MCP over Streamable HTTP: the tools answer what /graphql answers', () => {
  const ctx = useServer({ rateLimit: { burst: 1_000_000, perSecond: 1_000_000 } });
  const gql = async (key: string, query: string, input: Record<string, unknown>) =>
    dataOf(await ctx.server.gql(key, query, { input }));

  it('lists the read and verdict tools, read-only with input and output schemas, the resources and the investigate prompt', async () => {
    const tenant = await createTenant(ctx.db);
    const client = await connectHttp(ctx.server.url, tenant.key);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((tool) => tool.name),
        TOOLS,
      );
      for (const tool of tools) {
        assert.equal(tool.annotations?.readOnlyHint, true, tool.name);
        assert.equal(tool.annotations?.openWorldHint, false, tool.name);
        assert.equal(tool.inputSchema.type, 'object', tool.name);
        assert.equal(tool.outputSchema?.type, 'object', tool.name);
      }
      const { resourceTemplates } = await client.listResourceTemplates();
      assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate).sort(), [
        'wfapi://executions/{uuid}',
        'wfapi://workflows/{uuid}',
      ]);
      const { prompts } = await client.listPrompts();
      assert.deepEqual(
        prompts.map((p) => p.name),
        ['investigate'],
      );
      assert.equal(client.getServerVersion()?.name, 'wfapi');
    } finally {
      await client.close();
    }
  });

  it('list_workflows: the workflows query, names before ids', async () => {
    const tenant = await createTenant(ctx.db);
    const incident = await buildIncident(ctx.db, tenant, 'a');
    const client = await connectHttp(ctx.server.url, tenant.key);
    try {
      const { structured, text } = await callOk(client, 'list_workflows', { pageSize: 1 });
      const api = await gql(
        tenant.key,
        `query ($input: WorkflowsInput!) { workflows(input: $input) { count data { uuid name executionCountByStatus { failure } } } }`,
        { page: { number: 0, size: 1 } },
      );
      assert.equal(structured.count, api.workflows.count);
      assert.deepEqual(
        structured.workflows.map((w: { uuid: string }) => w.uuid),
        api.workflows.data.map((w: { uuid: string }) => w.uuid),
      );
      assert.match(structured.more, /1 more workflows after this page: pass page=1/);
      const all = await callOk(client, 'list_workflows', { search: 'price' });
      assert.equal(all.structured.workflows[0].failures, 4);
      assert.ok(all.text.indexOf(incident.workflowName) < all.text.indexOf(incident.workflowUuid));
      assert.match(text, /^2 workflows/);
    } finally {
      await client.close();
    }
  });

  it('workflow_health: failing since the first failure after the last success, by name as by uuid', async () => {
    const tenant = await createTenant(ctx.db);
    const incident = await buildIncident(ctx.db, tenant, 'a');
    const client = await connectHttp(ctx.server.url, tenant.key);
    try {
      const since = iso(T0 - 5 * HOUR);
      const byName = await callOk(client, 'workflow_health', { workflow: incident.workflowName, since });
      const byUuid = await callOk(client, 'workflow_health', { workflow: incident.workflowUuid, since });
      assert.deepEqual(byName.structured, byUuid.structured);
      const h = byName.structured;
      const api = await gql(
        tenant.key,
        `query ($input: WorkflowInput!) { workflow(input: $input) { data { executionCount executionCountByStatus { success failure } } } }`,
        { uuid: incident.workflowUuid, from: since },
      );
      assert.equal(h.executions, api.workflow.data.executionCount);
      assert.equal(h.failures, api.workflow.data.executionCountByStatus.failure);
      assert.equal(h.failing.since, iso(T0 + HOUR));
      assert.equal(h.failing.failuresSince, 4);
      assert.equal(h.failing.lastSuccessAt, iso(T0 - HOUR));
      assert.equal(h.latestFailure.uuid, incident.failureUuids[3]);
      assert.equal(h.latestDeployments[0].uuid, incident.newDeploymentUuid);
      const groups = await gql(
        tenant.key,
        `query ($input: ErrorGroupsInput!) { errorGroups(input: $input) { count data { fingerprint occurrences } } }`,
        { workflowUUID: incident.workflowUuid, from: since },
      );
      assert.deepEqual(
        h.topErrorGroups.map((g: { fingerprint: string; occurrences: number }) => [
          g.fingerprint,
          g.occurrences,
        ]),
        groups.errorGroups.data.map((g: { fingerprint: string; occurrences: number }) => [
          g.fingerprint,
          g.occurrences,
        ]),
      );
      assert.equal(h.failingCapabilities[0].capabilityID, 'write-a@2');
      assert.match(
        byName.text,
        /^price-feed-a \(ACTIVE\) since 2026-05-04 05:00:00 UTC: 7 executions, 4 failed/,
      );
      assert.match(byName.text, /Failing now: 4 failures since 2026-05-04 11:00:00 UTC/);
    } finally {
      await client.close();
    }
  });

  it('find_executions: the workflowExecutions query, by error group too', async () => {
    const tenant = await createTenant(ctx.db);
    const incident = await buildIncident(ctx.db, tenant, 'a');
    const client = await connectHttp(ctx.server.url, tenant.key);
    try {
      const failed = await callOk(client, 'find_executions', {
        workflow: incident.workflowName,
        status: ['FAILURE'],
        ...WINDOW,
        order: 'oldest',
      });
      assert.deepEqual(
        failed.structured.executions.map((e: { uuid: string }) => e.uuid),
        incident.failureUuids,
      );
      assert.equal(failed.structured.executions[0].durationMs, 5000);
      const fingerprint = errorGroupOf('write reverted: gas 1000 (a)').fingerprint;
      const byGroup = await callOk(client, 'find_executions', { errorFingerprint: fingerprint });
      const api = await gql(
        tenant.key,
        `query ($input: WorkflowExecutionsInput!) { workflowExecutions(input: $input) { count data { uuid } } }`,
        { errorFingerprint: fingerprint },
      );
      assert.equal(byGroup.structured.count, api.workflowExecutions.count);
      assert.equal(byGroup.structured.count, 4);
    } finally {
      await client.close();
    }
  });

  it('get_execution: errors with fingerprints, the timeline, its deployment and its log lines', async () => {
    const tenant = await createTenant(ctx.db);
    const incident = await buildIncident(ctx.db, tenant, 'a');
    const client = await connectHttp(ctx.server.url, tenant.key);
    try {
      const { structured: e, text } = await callOk(client, 'get_execution', {
        uuid: incident.firstFailureUuid,
      });
      assert.equal(e.execution.status, 'FAILURE');
      assert.equal(e.deployment.uuid, incident.newDeploymentUuid);
      assert.deepEqual(
        e.errors.map((g: { fingerprint: string }) => g.fingerprint).sort(),
        [
          errorGroupOf('index out of range [7] with length 7 (a)').fingerprint,
          errorGroupOf('write reverted: gas 1000 (a)').fingerprint,
        ].sort(),
      );
      assert.deepEqual(
        e.errors.find((g: { capabilityIDs: string[] }) => g.capabilityIDs.length).capabilityIDs,
        ['write-a@2'],
      );
      assert.deepEqual(
        e.timeline.map((c: { capabilityID: string }) => c.capabilityID),
        ['fetch-a@1', 'write-a@2'],
      );
      assert.deepEqual(
        e.logs.errorLines.map((l: { message: string }) => l.message),
        ['write failed: reverted a'],
      );
      assert.equal(e.logs.first[0].message, 'starting run 0 a');
      assert.equal(e.logs.last.at(-1).message, 'done a');
      assert.equal(e.logs.complete, true);
      assert.match(text, /^price-feed-a execution FAILURE, started 2026-05-04 11:00:00 UTC, took 5s/);
      const missing = await callError(client, 'get_execution', {
        uuid: '00000000-0000-4000-8000-000000000000',
      });
      assert.match(
        missing,
        /No execution 00000000-0000-4000-8000-000000000000 in this organization; find_executions/,
      );
    } finally {
      await client.close();
    }
  });

  it('error_groups, search_logs, duration_stats and capability_stats: their queries, figure for figure', async () => {
    const tenant = await createTenant(ctx.db);
    const incident = await buildIncident(ctx.db, tenant, 'a');
    const client = await connectHttp(ctx.server.url, tenant.key);
    const scope = { workflowUUID: incident.workflowUuid, ...WINDOW };
    try {
      const groups = await callOk(client, 'error_groups', { workflow: incident.workflowUuid, ...WINDOW });
      const apiGroups = await gql(
        tenant.key,
        `query ($input: ErrorGroupsInput!) { errorGroups(input: $input) { count data { fingerprint occurrences executionCount } } }`,
        scope,
      );
      assert.equal(groups.structured.count, apiGroups.errorGroups.count);
      assert.deepEqual(
        groups.structured.groups.map(
          (g: { fingerprint: string; occurrences: number; executions: number }) => [
            g.fingerprint,
            g.occurrences,
            g.executions,
          ],
        ),
        apiGroups.errorGroups.data.map(
          (g: { fingerprint: string; occurrences: number; executionCount: number }) => [
            g.fingerprint,
            g.occurrences,
            g.executionCount,
          ],
        ),
      );

      const logs = await callOk(client, 'search_logs', { query: 'reverted', ...WINDOW });
      const apiLogs = await gql(
        tenant.key,
        `query ($input: SearchExecutionLogsInput!) { searchExecutionLogs(input: $input) { count data { workflowExecutionUUID message } } }`,
        { query: 'reverted', ...WINDOW },
      );
      assert.equal(logs.structured.count, 4);
      assert.deepEqual(
        logs.structured.lines.map((l: { executionUUID: string }) => l.executionUUID),
        apiLogs.searchExecutionLogs.data.map(
          (l: { workflowExecutionUUID: string }) => l.workflowExecutionUUID,
        ),
      );

      const durations = await callOk(client, 'duration_stats', {
        workflow: incident.workflowName,
        ...WINDOW,
      });
      const apiDurations = await gql(
        tenant.key,
        `query ($input: DurationStatsInput!) { durationStats(input: $input) { data { count minMs maxMs p50Ms p95Ms histogram { fromMs toMs count } } } }`,
        scope,
      );
      const d = apiDurations.durationStats.data;
      assert.deepEqual(
        [
          durations.structured.count,
          durations.structured.minMs,
          durations.structured.maxMs,
          durations.structured.p50Ms,
          durations.structured.p95Ms,
        ],
        [d.count, d.minMs, d.maxMs, d.p50Ms, d.p95Ms],
      );
      assert.deepEqual(durations.structured.histogram, d.histogram);

      const capabilities = await callOk(client, 'capability_stats', {
        workflow: incident.workflowName,
        ...WINDOW,
      });
      const apiCapabilities = await gql(
        tenant.key,
        `query ($input: CapabilityStatsInput!) { capabilityStats(input: $input) { count data { capabilityID calls failures failureRate p50Ms p95Ms } } }`,
        scope,
      );
      assert.deepEqual(capabilities.structured.capabilities, apiCapabilities.capabilityStats.data);
      assert.match(capabilities.text, /write-a@2: 4 of 4 calls failed \(100%\)/);
    } finally {
      await client.close();
    }
  });

  it('resources read as the tools answer, and the prompt walks from a symptom to a cause', async () => {
    const tenant = await createTenant(ctx.db);
    const incident = await buildIncident(ctx.db, tenant, 'a');
    const client = await connectHttp(ctx.server.url, tenant.key);
    try {
      const { resources } = await client.listResources();
      assert.deepEqual(resources.map((r) => r.name).sort(), ['price-feed-a', 'quiet-a']);
      const execution = await client.readResource({ uri: `wfapi://executions/${incident.firstFailureUuid}` });
      const read = JSON.parse((execution.contents[0] as { text: string }).text);
      const tool = await callOk(client, 'get_execution', { uuid: incident.firstFailureUuid });
      assert.deepEqual(read, tool.structured);
      const workflow = await client.readResource({ uri: `wfapi://workflows/${incident.workflowUuid}` });
      assert.equal(JSON.parse((workflow.contents[0] as { text: string }).text).workflow.name, 'price-feed-a');
      const prompt = await client.getPrompt({
        name: 'investigate',
        arguments: { subject: incident.workflowName },
      });
      const text = (prompt.messages[0]!.content as { text: string }).text;
      const steps = [
        'workflow_health',
        'error_groups',
        'capability_stats',
        'deployment_impact',
        'find_executions',
        'search_logs',
        'anomalies',
        'service_levels',
      ];
      const at = steps.map((step) => text.indexOf(`Call ${step}`));
      assert.ok(
        at.every((index) => index >= 0),
        `every step is named: ${steps.filter((_, i) => at[i]! < 0)}`,
      );
      assert.deepEqual(
        [...at].sort((a, b) => a - b),
        at,
        'in the order of the investigation',
      );
      assert.match(text, /failing since when/);
      // With deployment_impact offered, the manual comparison of deployments is not suggested.
      assert.doesNotMatch(text, /prime suspect/);
    } finally {
      await client.close();
    }
  });

  it('answers a bad argument as a tool error that says what to change', async () => {
    const tenant = await createTenant(ctx.db);
    await buildIncident(ctx.db, tenant, 'a');
    const client = await connectHttp(ctx.server.url, tenant.key);
    try {
      assert.match(
        await callError(client, 'list_workflows', { pageSize: 1000 }),
        /pageSize must be at most 100/,
      );
      assert.match(
        await callError(client, 'find_executions', { from: 'last tuesday' }),
        /from must be a duration back from now/,
      );
      assert.match(
        await callError(client, 'search_logs', { query: 'ab' }),
        /query must have at least 3 characters/,
      );
      assert.match(
        await callError(client, 'workflow_health', { workflow: 'price' }),
        /No workflow named "price".*"price-feed-a"/,
      );
      assert.match(await callError(client, 'get_execution', { uuid: 'nope' }), /uuid must be a uuid/);
      assert.match(await callError(client, 'error_groups', { from: iso(T0), to: iso(T0 - HOUR) }), /from/);
      assert.match(await callError(client, 'no_such_tool', {}), /no_such_tool/);
    } finally {
      await client.close();
    }
  });
});
