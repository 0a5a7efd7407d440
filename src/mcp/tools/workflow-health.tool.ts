import { z } from 'zod';
import { formatTime } from '../../lib/time.js';
import type {
  CapabilityStats,
  DurationStats,
  ErrorGroup,
  ExecutionError,
  Workflow,
  WorkflowActivityRow,
  WorkflowDeployment,
  WorkflowExecution,
} from '../../schema/schema-types.generated.js';
import { clip } from '../answer-size.js';
import { instantArgument, workflowArgument } from '../arguments.js';
import { msText, percentText, plural, timeText } from '../text.js';
import { defineTool } from '../tool.js';
import { resolveWorkflow } from '../workflow-ref.js';

const HEALTH = `query McpWorkflowHealth(
  $workflow: WorkflowInput!, $activity: WorkflowActivityInput!, $groups: ErrorGroupsInput!,
  $capabilities: CapabilityStatsInput!, $durations: DurationStatsInput!, $deployments: WorkflowDeploymentsInput!,
  $lastSuccess: WorkflowExecutionsInput!, $lastFailure: WorkflowExecutionsInput!
) {
  workflow(input: $workflow) { data { uuid name status executedAt executionCount executionCountByStatus { success failure } } }
  workflowActivity(input: $activity) { data { from to successCount failureCount } }
  errorGroups(input: $groups) { count data { fingerprint pattern occurrences executionCount capabilityIDs firstSeenAt lastSeenAt } }
  capabilityStats(input: $capabilities) { count data { capabilityID calls failures failureRate p50Ms p95Ms } }
  durationStats(input: $durations) { data { count p50Ms p95Ms p99Ms maxMs } }
  workflowDeployments(input: $deployments) { count data { uuid status deployedAt txHash } }
  lastSuccess: workflowExecutions(input: $lastSuccess) { data { uuid startedAt } }
  lastFailure: workflowExecutions(input: $lastFailure) { data { uuid startedAt errors { error count } } }
}`;

const FAILING_SINCE = `query McpFailingSince($input: WorkflowExecutionsInput!) {
  workflowExecutions(input: $input) { count data { uuid startedAt } }
}`;

const DAY_MS = 86_400_000;

/** The answer of the tool's query: each field as the schema types it, narrowed to what is selected. */
interface Health {
  workflow: {
    data: Pick<
      Workflow,
      'uuid' | 'name' | 'status' | 'executedAt' | 'executionCount' | 'executionCountByStatus'
    >;
  };
  workflowActivity: {
    data: Array<Pick<WorkflowActivityRow, 'from' | 'to' | 'successCount' | 'failureCount'>>;
  };
  errorGroups: {
    count: number;
    data: Array<
      Pick<
        ErrorGroup,
        | 'fingerprint'
        | 'pattern'
        | 'occurrences'
        | 'executionCount'
        | 'capabilityIDs'
        | 'firstSeenAt'
        | 'lastSeenAt'
      >
    >;
  };
  capabilityStats: { count: number; data: CapabilityStats[] };
  durationStats: { data: Pick<DurationStats, 'count' | 'p50Ms' | 'p95Ms' | 'p99Ms' | 'maxMs'> };
  workflowDeployments: {
    count: number;
    data: Array<Pick<WorkflowDeployment, 'uuid' | 'status' | 'deployedAt' | 'txHash'>>;
  };
  lastSuccess: { data: Array<Pick<WorkflowExecution, 'uuid' | 'startedAt'>> };
  lastFailure: {
    data: Array<
      Pick<WorkflowExecution, 'uuid' | 'startedAt'> & {
        errors: Array<Pick<ExecutionError, 'error'> | null> | null;
      }
    >;
  };
}

const latest = (status: string) => ({
  status: [status],
  orderBy: { field: 'STARTED_AT', order: 'DESC' },
  page: { number: 0, size: 1 },
});

export const workflowHealth = defineTool({
  name: 'workflow_health',
  title: 'Workflow health',
  description:
    "One workflow (uuid or name) at a glance since `since` (default: 24 hours ago): executions, failures and failure rate, whether it is failing now and since when (its latest failures after its latest success), the latest failure's error, top error groups, the capabilities that fail most, durations, the latest deployments and the activity per bucket.",
  input: {
    workflow: workflowArgument,
    since: z
      .string()
      .max(64)
      .optional()
      .describe(
        'Start of the window: a duration back from now (24h, 7d), a date or an RFC 3339 time; default 24h',
      ),
  },
  output: {
    workflow: z.object({
      name: z.string(),
      uuid: z.string(),
      status: z.string(),
      lastExecutedAt: z.string().nullable(),
    }),
    since: z.string(),
    executions: z.number().int(),
    successes: z.number().int(),
    failures: z.number().int(),
    failureRate: z.number().nullable().describe('failures / (successes + failures) since `since`'),
    failing: z
      .object({
        since: z.string().describe('Start of the first failure after the latest success'),
        failuresSince: z.number().int(),
        lastSuccessAt: z.string().nullable(),
      })
      .nullable()
      .describe('Set when the latest finished execution failed'),
    latestFailure: z
      .object({ uuid: z.string(), startedAt: z.string(), error: z.string().nullable() })
      .nullable(),
    durations: z.object({
      count: z.number().int(),
      p50Ms: z.number().nullable(),
      p95Ms: z.number().nullable(),
      p99Ms: z.number().nullable(),
      maxMs: z.number().nullable(),
    }),
    topErrorGroups: z.array(
      z.object({
        fingerprint: z.string(),
        pattern: z.string(),
        occurrences: z.number().int(),
        executions: z.number().int(),
        capabilityIDs: z.array(z.string()),
        firstSeenAt: z.string(),
        lastSeenAt: z.string(),
      }),
    ),
    errorGroupCount: z.number().int(),
    failingCapabilities: z.array(
      z.object({
        capabilityID: z.string(),
        calls: z.number().int(),
        failures: z.number().int(),
        failureRate: z.number(),
        p95Ms: z.number().nullable(),
      }),
    ),
    latestDeployments: z.array(
      z.object({
        uuid: z.string(),
        status: z.string(),
        deployedAt: z.string(),
        txHash: z.string().nullable(),
      }),
    ),
    activity: z.array(
      z.object({ from: z.string(), to: z.string(), successes: z.number().int(), failures: z.number().int() }),
    ),
    more: z.string().optional(),
  },
  needs: [
    'workflow',
    'workflowActivity',
    'errorGroups',
    'capabilityStats',
    'durationStats',
    'workflowDeployments',
    'workflowExecutions',
  ],
  lists: [
    {
      key: 'activity',
      note: (leftOut) =>
        `${leftOut} activity buckets (the latest) were left out to keep the answer under 20,000 characters; a later \`since\` shows them.`,
    },
  ],
  async run(args, graphql, now) {
    const ref = await resolveWorkflow(graphql, args.workflow, now);
    const since =
      instantArgument('since', args.since, now) ??
      formatTime(new Date(Math.floor((now - DAY_MS) / 1000) * 1000));
    const window = { workflowUUID: ref.uuid, from: since };
    const h = await graphql.run<Health>(HEALTH, {
      workflow: { uuid: ref.uuid, from: since },
      activity: window,
      groups: { ...window, page: { number: 0, size: 5 } },
      capabilities: { ...window, page: { number: 0, size: 5 } },
      durations: window,
      deployments: { workflowUUID: ref.uuid, page: { number: 0, size: 3 } },
      lastSuccess: { workflowUuid: ref.uuid, ...latest('SUCCESS') },
      lastFailure: { workflowUuid: ref.uuid, ...latest('FAILURE') },
    });
    const lastSuccess = h.lastSuccess.data[0];
    const lastFailure = h.lastFailure.data[0];
    let failing = null;
    if (lastFailure && (!lastSuccess || lastFailure.startedAt > lastSuccess.startedAt)) {
      const { workflowExecutions } = await graphql.run<{
        workflowExecutions: { count: number; data: Array<{ startedAt: string }> };
      }>(FAILING_SINCE, {
        input: {
          workflowUuid: ref.uuid,
          status: ['FAILURE'],
          ...(lastSuccess && { from: lastSuccess.startedAt }),
          orderBy: { field: 'STARTED_AT', order: 'ASC' },
          page: { number: 0, size: 1 },
        },
      });
      failing = {
        since: workflowExecutions.data[0]?.startedAt ?? lastFailure.startedAt,
        failuresSince: workflowExecutions.count,
        lastSuccessAt: lastSuccess?.startedAt ?? null,
      };
    }
    const { success, failure } = h.workflow.data.executionCountByStatus;
    const firstError = lastFailure?.errors?.find((error) => error !== null);
    return {
      workflow: {
        name: h.workflow.data.name,
        uuid: h.workflow.data.uuid,
        status: h.workflow.data.status,
        lastExecutedAt: h.workflow.data.executedAt,
      },
      since,
      executions: h.workflow.data.executionCount,
      successes: success,
      failures: failure,
      failureRate: success + failure > 0 ? failure / (success + failure) : null,
      failing,
      latestFailure: lastFailure
        ? {
            uuid: lastFailure.uuid,
            startedAt: lastFailure.startedAt,
            error: firstError ? clip(firstError.error, 300) : null,
          }
        : null,
      durations: h.durationStats.data,
      topErrorGroups: h.errorGroups.data.map((g) => ({
        fingerprint: g.fingerprint,
        pattern: clip(g.pattern, 300),
        occurrences: g.occurrences,
        executions: g.executionCount,
        capabilityIDs: g.capabilityIDs.slice(0, 10).map((id) => clip(id, 200)),
        firstSeenAt: g.firstSeenAt,
        lastSeenAt: g.lastSeenAt,
      })),
      errorGroupCount: h.errorGroups.count,
      failingCapabilities: h.capabilityStats.data
        .filter((c) => c.failures > 0)
        .map((c) => ({
          capabilityID: clip(c.capabilityID, 200),
          calls: c.calls,
          failures: c.failures,
          failureRate: c.failureRate,
          p95Ms: c.p95Ms,
        })),
      latestDeployments: h.workflowDeployments.data,
      activity: h.workflowActivity.data.map((b) => ({
        from: b.from,
        to: b.to,
        successes: b.successCount,
        failures: b.failureCount,
      })),
    };
  },
  summarize(a) {
    const lines = [
      `${a.workflow.name} (${a.workflow.status}) since ${timeText(a.since)}: ${plural(a.executions, 'execution')}, ${a.failures} failed (${percentText(a.failureRate)}); last ran ${timeText(a.workflow.lastExecutedAt)}.`,
      a.failing
        ? `Failing now: ${plural(a.failing.failuresSince, 'failure')} since ${timeText(a.failing.since)}; last success ${timeText(a.failing.lastSuccessAt)}.`
        : 'Not failing now: its latest finished execution succeeded (or none failed).',
    ];
    if (a.latestFailure)
      lines.push(
        `Latest failure ${timeText(a.latestFailure.startedAt)}${a.latestFailure.error ? `: ${clip(a.latestFailure.error, 160)}` : ''} (execution ${a.latestFailure.uuid}).`,
      );
    const group = a.topErrorGroups[0];
    if (group)
      lines.push(
        `Top error group of ${a.errorGroupCount}: ${group.occurrences} x "${clip(group.pattern, 120)}" (fingerprint ${group.fingerprint}).`,
      );
    const capability = a.failingCapabilities[0];
    if (capability)
      lines.push(
        `Capability failing most: ${capability.capabilityID}, ${capability.failures} of ${capability.calls} calls (${percentText(capability.failureRate)}).`,
      );
    if (a.durations.count)
      lines.push(
        `Durations: p50 ${msText(a.durations.p50Ms)}, p95 ${msText(a.durations.p95Ms)}, max ${msText(a.durations.maxMs)}.`,
      );
    const deployment = a.latestDeployments[0];
    if (deployment)
      lines.push(
        `Latest deployment ${timeText(deployment.deployedAt)} (${deployment.status}, uuid ${deployment.uuid}).`,
      );
    lines.push(`uuid ${a.workflow.uuid}`);
    if (a.more) lines.push(a.more);
    return lines.join('\n');
  },
});
