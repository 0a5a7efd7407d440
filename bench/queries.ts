/**
 * The query mix real clients send: the inventory with aggregates, one workflow over 30 days,
 * executions filtered by workflow, status and time (first page, a deep page, count only), one
 * execution with its logs and events, and activity over 24 hours, 7 days and 30 days for one
 * workflow and for the whole organization.
 */
import { DAY, HOUR } from '../src/lib/time.js';

export interface DatasetFacts {
  /** The instant the dataset ends at (activity windows end here). */
  readonly now: Date;
  readonly workflowUuid: string;
  readonly executionUuid: string;
  readonly totalExecutions: number;
  /** What the insight queries ask about (bench/lib/insight-facts.ts). */
  readonly insight?: InsightFacts;
}

export interface InsightFacts {
  /** A term in about 1 log line of 1,000 over the last 24 hours. */
  readonly logTerm: string;
  /** Its measured share of those lines. */
  readonly logTermShare: number;
  readonly errorFingerprint: string;
  readonly capabilityId: string;
}

export interface MixQuery {
  readonly name: string;
  readonly query: string;
  variables(facts: DatasetFacts): Record<string, unknown>;
  /** The contract's stricter target for single-execution reads. */
  readonly p99TargetMs: number;
  /**
   * Each request's window ends a millisecond before the last request's: every window is asked once,
   * as by a dashboard that asks for the last 24 hours by its own clock, so nothing of it is kept.
   */
  readonly moving?: boolean;
}

/** The variables of a query's requests, one call a request (requestVariables). */
export type NextVariables = () => Record<string, unknown>;

/** A query's variables request after request: the same each time, or each window a millisecond earlier (`moving`). */
export function requestVariables(q: MixQuery, facts: DatasetFacts): NextVariables {
  if (q.moving !== true) {
    const variables = q.variables(facts);
    return () => variables;
  }
  let earlier = 0;
  return () => q.variables({ ...facts, now: new Date(facts.now.getTime() - earlier++) });
}

const iso = (ms: number) => new Date(ms).toISOString();

const WORKFLOW_FIELDS = `uuid name status workflowId ownerAddress registeredAt executedAt executionCount
  executionCountByStatus { success failure } creditUsed hasTeeExecutions hasNonTeeExecutions`;
export const EXECUTION_FIELDS = `uuid id workflowUUID workflowName workflowId status classifiedStatus startedAt finishedAt
  creditUsed executedInTee errors { error count }`;

const activity = (name: string, days: number, withWorkflow: boolean): MixQuery => ({
  name,
  p99TargetMs: 50,
  query: `query Activity($input: WorkflowActivityInput!) {
    workflowActivity(input: $input) { data { from to successCount failureCount } } }`,
  variables: (f) => ({
    input: {
      ...(withWorkflow ? { workflowUUID: f.workflowUuid } : {}),
      from: iso(f.now.getTime() - days * DAY),
      to: iso(f.now.getTime()),
    },
  }),
});

export const MIX: readonly MixQuery[] = [
  {
    name: 'inventory (100 workflows, aggregates)',
    p99TargetMs: 50,
    query: `query Inventory { workflows(input: {page: {size: 100}}) { count data { ${WORKFLOW_FIELDS} } } }`,
    variables: () => ({}),
  },
  {
    name: 'workflow over 30 days',
    p99TargetMs: 50,
    query: `query Workflow($input: WorkflowInput!) { workflow(input: $input) { data { ${WORKFLOW_FIELDS} } } }`,
    variables: (f) => ({ input: { uuid: f.workflowUuid, from: iso(f.now.getTime() - 30 * DAY) } }),
  },
  {
    name: 'executions: workflow+status+7d, first page',
    p99TargetMs: 50,
    query: `query Executions($input: WorkflowExecutionsInput!) {
      workflowExecutions(input: $input) { count data { ${EXECUTION_FIELDS} } } }`,
    variables: (f) => ({
      input: {
        workflowUuid: f.workflowUuid,
        status: ['SUCCESS', 'FAILURE'],
        from: iso(f.now.getTime() - 7 * DAY),
        to: iso(f.now.getTime()),
        page: { number: 0, size: 20 },
      },
    }),
  },
  {
    name: 'executions: deep page (page 10,000 of 100)',
    p99TargetMs: 50,
    query: `query Deep($input: WorkflowExecutionsInput!) { workflowExecutions(input: $input) { data { uuid startedAt status } } }`,
    variables: (f) => ({
      input: {
        page: { number: Math.max(0, Math.min(10_000, Math.floor(f.totalExecutions / 100) - 1)), size: 100 },
      },
    }),
  },
  {
    name: 'executions: count only (status+30d)',
    p99TargetMs: 50,
    query: `query Count($input: WorkflowExecutionsInput!) { workflowExecutions(input: $input) { count } }`,
    variables: (f) => ({
      input: { status: ['FAILURE'], from: iso(f.now.getTime() - 30 * DAY), to: iso(f.now.getTime()) },
    }),
  },
  {
    name: 'one execution',
    p99TargetMs: 5,
    query: `query One($input: WorkflowExecutionInput!) { workflowExecution(input: $input) { data { ${EXECUTION_FIELDS} } } }`,
    variables: (f) => ({ input: { uuid: f.executionUuid } }),
  },
  {
    name: 'execution logs',
    p99TargetMs: 5,
    query: `query Logs($input: WorkflowExecutionLogsInput!) {
      workflowExecutionLogs(input: $input) { data { nodeID message timestamp } } }`,
    variables: (f) => ({ input: { workflowExecutionUUID: f.executionUuid } }),
  },
  {
    name: 'execution events',
    p99TargetMs: 5,
    query: `query Events($input: WorkflowExecutionEventsInput!) {
      workflowExecutionEvents(input: $input) { data { capabilityID status method startedAt finishedAt errors { error count } } } }`,
    variables: (f) => ({ input: { workflowExecutionUUID: f.executionUuid } }),
  },
  activity('activity 24h, one workflow', 1, true),
  activity('activity 7d, one workflow', 7, true),
  activity('activity 30d, one workflow', 30, true),
  activity('activity 24h, organization', 1, false),
  activity('activity 7d, organization', 7, false),
  activity('activity 30d, organization', 30, false),
];

const window = (f: DatasetFacts, days: number) => ({
  from: iso(f.now.getTime() - days * DAY),
  to: iso(f.now.getTime()),
});

const LOG_SEARCH = `query Search($input: SearchExecutionLogsInput!) { searchExecutionLogs(input: $input) { count countIsExact
  data { workflowExecutionUUID workflowUUID workflowName nodeID timestamp message } } }`;

/** The insight queries over a window the request names, asked again with every request. */
const NAMED_WINDOWS: readonly MixQuery[] = [
  {
    name: 'error groups 24h, organization',
    p99TargetMs: 50,
    query: `query Groups($input: ErrorGroupsInput!) { errorGroups(input: $input) { count data {
      fingerprint pattern sampleMessage occurrences executionCount workflowCount capabilityIDs firstSeenAt lastSeenAt
      activity { from to occurrences } } } }`,
    variables: (f) => ({ input: window(f, 1) }),
  },
  {
    name: 'error groups 7d, one workflow',
    p99TargetMs: 50,
    query: `query Groups($input: ErrorGroupsInput!) { errorGroups(input: $input) { count data {
      fingerprint pattern occurrences executionCount activity { from occurrences } } } }`,
    variables: (f) => ({ input: { workflowUUID: f.workflowUuid, ...window(f, 7) } }),
  },
  {
    name: 'durations 24h, organization',
    p99TargetMs: 50,
    query: `query Durations($input: DurationStatsInput!) { durationStats(input: $input) { data {
      count minMs maxMs meanMs p50Ms p90Ms p95Ms p99Ms histogram { fromMs toMs count } } } }`,
    variables: (f) => ({ input: window(f, 1) }),
  },
  {
    name: 'durations 7d, one workflow, successes',
    p99TargetMs: 50,
    query: `query Durations($input: DurationStatsInput!) { durationStats(input: $input) { data {
      count p50Ms p95Ms p99Ms histogram { fromMs toMs count } } } }`,
    variables: (f) => ({ input: { workflowUUID: f.workflowUuid, status: ['SUCCESS'], ...window(f, 7) } }),
  },
  {
    name: 'durations 24h, one capability',
    p99TargetMs: 50,
    query: `query Durations($input: DurationStatsInput!) { durationStats(input: $input) { data { count p50Ms p95Ms p99Ms } } }`,
    variables: (f) => ({ input: { capabilityID: f.insight?.capabilityId, ...window(f, 1) } }),
  },
  {
    name: 'capability stats 24h, organization',
    p99TargetMs: 50,
    query: `query Capabilities($input: CapabilityStatsInput!) { capabilityStats(input: $input) { count data {
      capabilityID calls failures failureRate p50Ms p95Ms } } }`,
    variables: (f) => ({ input: window(f, 1) }),
  },
  {
    name: 'executions with an error group, first page',
    p99TargetMs: 50,
    query: `query Executions($input: WorkflowExecutionsInput!) {
      workflowExecutions(input: $input) { count data { ${EXECUTION_FIELDS} } } }`,
    variables: (f) => ({ input: { errorFingerprint: f.insight?.errorFingerprint, ...window(f, 1) } }),
  },
  {
    name: 'log search 24h (a term in ~1 line of 1,000)',
    p99TargetMs: 200,
    query: LOG_SEARCH,
    variables: (f) => ({ input: { query: f.insight?.logTerm, ...window(f, 1), page: { size: 20 } } }),
  },
];

/**
 * The same queries, each request's window a millisecond earlier than the last's (MixQuery.moving):
 * what a window asked once costs, for the aggregates a dashboard polls and for log search.
 */
const ASKED_ONCE = [
  'error groups 24h, organization',
  'durations 24h, organization',
  'capability stats 24h, organization',
  'log search 24h (a term in ~1 line of 1,000)',
].map((name): MixQuery => {
  const q = NAMED_WINDOWS.find((named) => named.name === name)!;
  return { ...q, name: `${name.replace(/ \(.*\)$/, '')}, a new window each request`, moving: true };
});

/**
 * Aggregates of a day two weeks back, a new window each request: past the days the duration rollups
 * keep their one-minute and five-minute rows (src/rollups/grains.ts, RECENT_RUNGS_DAYS), where a
 * window is read from fifteen-minute and coarser rows and its edges from raw rows.
 */
const TWO_WEEKS_BACK = ['durations 24h, organization', 'capability stats 24h, organization'].map(
  (name): MixQuery => {
    const q = NAMED_WINDOWS.find((named) => named.name === name)!;
    return {
      ...q,
      name: `${name.replace(' 24h,', ' 24h two weeks back,')}, a new window each request`,
      moving: true,
      variables: (f) => q.variables({ ...f, now: new Date(f.now.getTime() - 14 * DAY) }),
    };
  },
);

/**
 * A search over the last hour, a new window each request: an incident's first question. Its work
 * should follow its hour, not the days the hour lies in.
 */
const LAST_HOUR: MixQuery = {
  name: 'log search 1h, a new window each request',
  p99TargetMs: 200,
  query: LOG_SEARCH,
  variables: (f) => ({
    input: {
      query: f.insight?.logTerm,
      from: iso(f.now.getTime() - HOUR),
      to: iso(f.now.getTime()),
      page: { size: 20 },
    },
  }),
  moving: true,
};

/** The insight queries (contract section 5): p99 under 50 ms, log search under 200 ms. */
export const INSIGHT_MIX: readonly MixQuery[] = [
  ...NAMED_WINDOWS,
  ...ASKED_ONCE,
  LAST_HOUR,
  ...TWO_WEEKS_BACK,
];

/** Section 7's verdicts: deployments judged, the anomalies of a day, the organization's service levels. */
export const VERDICT_MIX: readonly MixQuery[] = [
  {
    name: 'deployment impact, one workflow (10 deployments, new groups)',
    p99TargetMs: 50,
    query: `query Impact($input: DeploymentImpactInput!) { deploymentImpact(input: $input) { count data {
      deployment { uuid deployedAt } verdict before { executions failures p50Ms p95Ms } after { executions failures p50Ms p95Ms }
      failureRateChange failureRatePValue durationChange durationPValue
      newErrorGroups { fingerprint occurrences } resolvedErrorGroups { fingerprint occurrences } } } }`,
    variables: (f) => ({ input: { workflowUUID: f.workflowUuid } }),
  },
  {
    name: 'anomalies 24h, organization and each workflow',
    p99TargetMs: 50,
    query: `query Anomalies($input: AnomaliesInput!) { anomalies(input: $input) {
      data { metric workflowUUID workflowName from observed expected score }
      series { metric points { from observed expected lower upper anomalous } } } }`,
    variables: (f) => ({ input: window(f, 1) }),
  },
  {
    name: 'anomalies 24h, one workflow',
    p99TargetMs: 50,
    query: `query Anomalies($input: AnomaliesInput!) { anomalies(input: $input) {
      data { metric from observed expected score } series { metric points { from observed anomalous } } } }`,
    variables: (f) => ({ input: { workflowUUID: f.workflowUuid, ...window(f, 1) } }),
  },
  {
    name: 'serviceLevels, organization (100 objectives)',
    p99TargetMs: 50,
    query: `query ServiceLevels($input: ServiceLevelsInput!) { serviceLevels(input: $input) { data {
      id name workflowUUID workflowName indicator target thresholdMs periodDays
      total good attainment errorBudgetRemaining burnRates { window total bad rate } status } } }`,
    variables: () => ({ input: {} }),
  },
];

/** Everything a client sends: the hosted API's mix, the insight queries and the verdicts. */
export const FULL_MIX: readonly MixQuery[] = [...MIX, ...INSIGHT_MIX, ...VERDICT_MIX];

/** The cheapest request through the whole HTTP + auth + GraphQL stack: the stack's own ceiling. */
export const TRIVIAL: MixQuery = {
  name: 'trivial ({ __typename })',
  p99TargetMs: 5,
  query: '{ __typename }',
  variables: () => ({}),
};
