import { useMemo } from 'preact/hooks';
import type { WorkflowExecutionStatus } from '../../../client/index.js';
import { describeError } from '../api.js';
import { ErrorNote, Figure, Link, Pager, Section, Status, Time, toneOf } from '../parts/basics.js';
import { Chart, type ChartVerdicts, FAILURE_COLOR, P95_COLOR, SUCCESS_COLOR } from '../parts/chart.js';
import { memo } from '../parts/memo.js';
import { SearchBox } from '../parts/search-box.js';
import {
  EmptyState,
  ObjectivesTable,
  SERVICE_LEVEL_FIELDS,
  type ServiceLevel,
  VerdictBadge,
} from '../parts/verdicts.js';
import { WindowPicker } from '../parts/window-picker.js';
import { href, intParam, navigate } from '../route.js';
import { useLoad } from '../session.js';
import {
  clampToNow,
  formatCount,
  formatCredits,
  formatDuration,
  formatRate,
  inputValue,
  instantOfInput,
  timesInUtc,
  viewWindow,
} from '../time.js';
import { type AnomalyMetric, formatPoints, formatShare, VERDICT_TEXT, type Verdict } from '../verdicts.js';

const STATUSES: readonly WorkflowExecutionStatus[] = [
  'SUCCESS',
  'FAILURE',
  'IN_PROGRESS',
  'TRIGGERED',
  'UNKNOWN',
];

/** Execution filters as in the URL; the window (`window`, or `from` and `to`) bounds them too. */
function filters(params: URLSearchParams) {
  const status = (params.get('status') ?? '')
    .split(',')
    .filter((s): s is WorkflowExecutionStatus => STATUSES.includes(s as WorkflowExecutionStatus));
  return {
    status,
    q: params.get('q') ?? '',
    page: intParam(params, 'page', 0),
    size: Math.min(100, Math.max(1, intParam(params, 'size', 20))),
  };
}

function withParams(params: URLSearchParams, change: Record<string, string | number | undefined>): string {
  const next: Record<string, string | number | undefined> = Object.fromEntries(
    [...params].filter(([name]) => name !== 'view'),
  );
  return href('workflow', { ...next, ...change });
}

type Count = { count: number };
const FIGURES = `query WorkflowFigures($uuid: String!, $from: Time!, $to: Time!) {
  workflow(input: {uuid: $uuid, from: $from}) { data { uuid name status executedAt creditUsed } }
  all: workflowExecutions(input: {workflowUuid: $uuid, from: $from, to: $to, page: {size: 1}}) { count }
  succeeded: workflowExecutions(input: {workflowUuid: $uuid, from: $from, to: $to, status: [SUCCESS], page: {size: 1}}) { count }
  failed: workflowExecutions(input: {workflowUuid: $uuid, from: $from, to: $to, status: [FAILURE], page: {size: 1}}) { count }
  workflowActivity(input: {workflowUUID: $uuid, from: $from, to: $to}) { data { from to successCount failureCount } }
  workflowDeployments(input: {workflowUUID: $uuid, page: {size: 20}}) {
    count data { uuid status deployedAt txHash errorMessage executionCountByStatus { success failure } }
  }
}`;
interface FiguresAnswer {
  workflow: {
    data: {
      uuid: string;
      name: string;
      status: string;
      executedAt: string | null;
      creditUsed: string | null;
    };
  };
  all: Count;
  succeeded: Count;
  failed: Count;
  workflowActivity: {
    data: Array<{ from: string; to: string; successCount: number; failureCount: number }> | null;
  };
  workflowDeployments: {
    count: number;
    data: Array<{
      uuid: string;
      status: string;
      deployedAt: string;
      txHash: string | null;
      errorMessage: string | null;
      executionCountByStatus: { success: number; failure: number } | null;
    }>;
  };
}

const IMPACT_SIDE = 'from to executions failures failureRate p50Ms';
/** Contract section 7 for this workflow: its deployments' verdicts, its expected ranges, its objectives. */
const VERDICTS = `query WorkflowVerdicts($uuid: String!, $from: Time!, $to: Time!) {
  deploymentImpact(input: {workflowUUID: $uuid, page: {size: 20}}) {
    data {
      deployment { uuid } verdict before { ${IMPACT_SIDE} } after { ${IMPACT_SIDE} }
      failureRateChange durationChange newErrorGroups { fingerprint pattern }
    }
  }
  anomalies(input: {workflowUUID: $uuid, from: $from, to: $to}) {
    series { metric points { from to observed expected lower upper anomalous } }
  }
  serviceLevels(input: {workflowUUID: $uuid}) { data { ${SERVICE_LEVEL_FIELDS} } }
}`;
interface ImpactSide {
  from: string;
  to: string;
  executions: number;
  failures: number;
  failureRate: number | null;
  p50Ms: number | null;
}
interface Impact {
  deployment: { uuid: string };
  verdict: Verdict;
  before: ImpactSide;
  after: ImpactSide;
  failureRateChange: number | null;
  durationChange: number | null;
  newErrorGroups: Array<{ fingerprint: string; pattern: string }>;
}
interface AnomalyPoint {
  from: string;
  to: string;
  observed: number | null;
  expected: number | null;
  lower: number | null;
  upper: number | null;
  anomalous: boolean;
}
interface VerdictsAnswer {
  deploymentImpact: { data: Impact[] };
  anomalies: { series: Array<{ metric: AnomalyMetric; points: AnomalyPoint[] }> };
  serviceLevels: { data: ServiceLevel[] };
}

/** The expected range of a metric's points, and which lie outside it, for the chart's `band`. */
function bandOf(points: readonly AnomalyPoint[], label: string): NonNullable<ChartVerdicts['band']> {
  return {
    label,
    lower: points.map((p) => p.lower),
    upper: points.map((p) => p.upper),
    anomalous: points.map((p) =>
      !p.anomalous || p.observed === null
        ? null
        : p.upper !== null && p.observed > p.upper
          ? 'above'
          : 'below',
    ),
  };
}

export function WorkflowView({ params }: { params: URLSearchParams }) {
  const uuid = params.get('uuid') ?? '';
  const window = viewWindow(params, '7d');
  const f = filters(params);
  const overview = useLoad(`workflow:${uuid}:${window.key}`, async (client) => {
    const { from, to } = window.range();
    const [figures, durations, groups, verdicts] = await Promise.all([
      client.request<FiguresAnswer>(FIGURES, { uuid, from, to }),
      client.durationStats({ workflowUUID: uuid, from, to }).then((d) => d.data),
      client.errorGroups({ workflowUUID: uuid, from, to, page: { size: 10 } }),
      // The verdicts are an addition: when they cannot be read, the rest of the view still shows.
      client.request<VerdictsAnswer>(VERDICTS, { uuid, from, to }).then(
        (answer) => ({ answer, error: undefined }),
        (error: unknown) => ({ answer: undefined, error: describeError(error) }),
      ),
    ]);
    return {
      workflow: figures.workflow.data,
      counts: { all: figures.all.count, success: figures.succeeded.count, failure: figures.failed.count },
      activity: figures.workflowActivity.data ?? [],
      deployments: figures.workflowDeployments,
      durations,
      groups,
      impacts: new Map((verdicts.answer?.deploymentImpact.data ?? []).map((i) => [i.deployment.uuid, i])),
      series: verdicts.answer?.anomalies.series ?? [],
      levels: verdicts.answer?.serviceLevels.data,
      verdictsError: verdicts.error,
      from,
      to,
    };
  });
  const executions = useLoad(
    `executions:${uuid}:${window.key}:${f.status}:${f.q}:${f.page}:${f.size}`,
    async (client) => {
      const { from, to } = window.range();
      const answer = await client.workflowExecutions({
        workflowUuid: uuid,
        status: f.status.length ? f.status : undefined,
        search: f.q || undefined,
        from,
        to,
        page: { number: f.page, size: f.size },
      });
      return { ...answer, from, to };
    },
  );
  const data = overview.data;
  const chart = useMemo(() => {
    if (!data) return undefined;
    const pointsOf = (metric: AnomalyMetric) => data.series.find((s) => s.metric === metric)?.points ?? [];
    const executions = pointsOf('EXECUTIONS');
    const rate = pointsOf('FAILURE_RATE');
    const p95 = pointsOf('DURATION_P95');
    // The band is drawn on the activity chart only when its buckets are the chart's own.
    const sameBuckets =
      executions.length === data.activity.length &&
      executions.every((p, i) => p.from === data.activity[i]!.from);
    return {
      activityBand: sameBuckets ? bandOf(executions, 'expected executions started') : undefined,
      rate: {
        buckets: rate,
        band: bandOf(rate, 'expected failure rate'),
        series: [
          { label: 'failure rate', values: rate.map((p) => p.observed), color: FAILURE_COLOR, kind: 'line' },
        ] as const,
      },
      p95: {
        buckets: p95,
        band: bandOf(p95, 'expected p95 duration'),
        series: [
          { label: 'p95 duration', values: p95.map((p) => p.observed), color: P95_COLOR, kind: 'line' },
        ] as const,
      },
      failures: [
        {
          label: 'failure',
          values: data.activity.map((b) => b.failureCount),
          color: FAILURE_COLOR,
          kind: 'bars',
        },
      ] as const,
      series: [
        {
          label: 'success',
          values: data.activity.map((b) => b.successCount),
          color: SUCCESS_COLOR,
          kind: 'bars',
        },
        {
          label: 'failure',
          values: data.activity.map((b) => b.failureCount),
          color: FAILURE_COLOR,
          kind: 'bars',
        },
      ] as const,
    };
  }, [data]);
  const toggleStatus = (status: WorkflowExecutionStatus) => {
    const next = f.status.includes(status) ? f.status.filter((s) => s !== status) : [...f.status, status];
    navigate(withParams(params, { status: next.join(','), page: undefined }));
  };
  const counts = data?.counts;
  const select = (range: { from: string; to: string }) =>
    navigate(
      withParams(params, { window: undefined, from: range.from, to: clampToNow(range.to), page: undefined }),
    );
  // Each deployment is a marker, named with its verdict: red when it regressed the workflow.
  const markers = useMemo(
    () =>
      data?.deployments.data.map((d) => {
        const verdict = data.impacts.get(d.uuid)?.verdict;
        return {
          at: d.deployedAt,
          label: `deployment ${d.status} ${d.deployedAt}${verdict ? `: ${VERDICT_TEXT[verdict]}` : ''}`,
          tone:
            verdict === 'REGRESSED' || d.status === 'FAILED'
              ? ('bad' as const)
              : verdict === 'IMPROVED'
                ? ('good' as const)
                : undefined,
        };
      }),
    [data],
  );
  const kept = window.params;
  return (
    <div
      data-view="workflow"
      data-from={data?.from}
      data-to={data?.to}
      data-complete={data && executions.data ? 'true' : undefined}
    >
      <div class="view-head">
        <h1>
          <Link href={href('workflows', kept)} class="crumb">
            Workflows
          </Link>{' '}
          / {data?.workflow.name ?? uuid}
        </h1>
        <WindowPicker view="workflow" params={params} current={window.name} />
      </div>
      <ErrorNote message={overview.error} />
      {!data && !overview.error && <p class="muted">Loading…</p>}
      {data && chart && counts && (
        <>
          <p class="muted small" data-window>
            Executions started from <Time iso={data.from} /> to <Time iso={data.to} />.
          </p>
          <div class="figures">
            <Figure label="Status" name="status" value={<Status value={data.workflow.status} />} />
            <Figure label="Executions" name="executions" value={formatCount(counts.all)} />
            <Figure label="Succeeded" name="success" value={formatCount(counts.success)} />
            <Figure label="Failed" name="failure" value={formatCount(counts.failure)} />
            <Figure
              label="Failure rate (of finished)"
              name="failure-rate"
              value={formatRate(counts.failure, counts.success + counts.failure)}
            />
            {window.name && (
              <Figure label="Credits" name="credits" value={formatCredits(data.workflow.creditUsed)} />
            )}
            <Figure label="Last run" name="last-run" value={<Time iso={data.workflow.executedAt} />} />
          </div>
          <Section title="Activity" id="activity">
            <Chart
              label={`Successful and failed executions of ${data.workflow.name} per bucket`}
              buckets={data.activity}
              series={chart.series}
              stacked
              window={data}
              asOf={data.to}
              onSelect={select}
              markers={markers}
              band={chart.activityBand}
            />
            <h3 class="chart-title">Failures on their own scale</h3>
            <Chart
              label={`Failed executions of ${data.workflow.name} per bucket`}
              buckets={data.activity}
              series={chart.failures}
              height={110}
              window={data}
              asOf={data.to}
              onSelect={select}
              markers={markers}
            />
            <ErrorNote message={data.verdictsError} />
            {chart.rate.buckets.length > 0 && (
              <>
                <h3 class="chart-title">Failure rate against its expected range</h3>
                <Chart
                  label={`Failure rate of ${data.workflow.name} per bucket, with its expected range`}
                  buckets={chart.rate.buckets}
                  series={chart.rate.series}
                  format={(v) => formatShare(v)}
                  height={140}
                  window={data}
                  asOf={data.to}
                  onSelect={select}
                  markers={markers}
                  band={chart.rate.band}
                />
                <h3 class="chart-title">p95 duration against its expected range</h3>
                <Chart
                  label={`95th percentile duration of ${data.workflow.name} per bucket, with its expected range`}
                  buckets={chart.p95.buckets}
                  series={chart.p95.series}
                  format={formatDuration}
                  height={140}
                  window={data}
                  asOf={data.to}
                  onSelect={select}
                  markers={markers}
                  band={chart.p95.band}
                />
                <p class="muted small">
                  Expected ranges from the same hour of the four weeks before (or the buckets just before); a
                  rate or p95 over fewer than 20 finished runs is not drawn. Triangles mark buckets outside
                  their range.
                </p>
              </>
            )}
          </Section>
          <div class="columns">
            <Section title="Duration percentiles" id="durations">
              <dl class="stats">
                {(
                  [
                    ['p50', data.durations.p50Ms],
                    ['p90', data.durations.p90Ms],
                    ['p95', data.durations.p95Ms],
                    ['p99', data.durations.p99Ms],
                    ['min', data.durations.minMs],
                    ['max', data.durations.maxMs],
                  ] as const
                ).map(([label, value]) => (
                  <div key={label}>
                    <dt>{label}</dt>
                    <dd data-figure={label}>{formatDuration(value)}</dd>
                  </div>
                ))}
                <div>
                  <dt>finished runs</dt>
                  <dd data-figure="duration-count">{data.durations.count}</dd>
                </div>
              </dl>
            </Section>
            <Section title="Error groups" id="groups">
              {data.groups.data.length === 0 ? (
                <p class="muted">No errors in this window.</p>
              ) : (
                <ul class="plain">
                  {data.groups.data.map((g) => (
                    <li key={g.fingerprint} data-fingerprint={g.fingerprint}>
                      <Link
                        href={href('errors', { ...kept, fp: g.fingerprint, workflow: uuid })}
                        class="pattern"
                      >
                        {g.pattern}
                      </Link>{' '}
                      <span class="muted">
                        <span data-cell="occurrences">{g.occurrences}</span> times in {g.executionCount} runs
                      </span>
                    </li>
                  ))}
                </ul>
              )}
            </Section>
          </div>
          <Section title="Deployments" id="deployments">
            <ol class="timeline" aria-label="Deployment history, newest first">
              {data.deployments.data.map((d) => (
                <li key={d.uuid} class={toneOf(d.status)} data-deployment={d.uuid}>
                  <Time iso={d.deployedAt} /> <Status value={d.status} />{' '}
                  {data.impacts.get(d.uuid) && <VerdictBadge verdict={data.impacts.get(d.uuid)!.verdict} />}{' '}
                  <span class="muted">
                    <span data-cell="success">{d.executionCountByStatus?.success ?? 0}</span> succeeded,{' '}
                    <span data-cell="failure">{d.executionCountByStatus?.failure ?? 0}</span> failed
                  </span>
                  {data.impacts.get(d.uuid) && (
                    <ImpactLine impact={data.impacts.get(d.uuid)!} workflow={uuid} />
                  )}
                  {d.errorMessage && <div class="error-text">{d.errorMessage}</div>}
                  {d.txHash && <div class="muted small mono">tx {d.txHash}</div>}
                </li>
              ))}
            </ol>
            {data.deployments.count > data.deployments.data.length && (
              <p class="muted small">
                The latest {data.deployments.data.length} of {data.deployments.count} deployments.
              </p>
            )}
          </Section>
          {data.levels && (
            <Section title="Objectives" id="objectives">
              {data.levels.length === 0 ? (
                <EmptyState title="No objectives for this workflow.">
                  Operators create them with <code>wfapi slo create</code> or the admin API.
                </EmptyState>
              ) : (
                <ObjectivesTable levels={data.levels} keep={kept} withWorkflow={false} />
              )}
            </Section>
          )}
        </>
      )}
      <Section title="Executions" id="executions">
        <form class="filters" onSubmit={(e) => e.preventDefault()}>
          <fieldset class="status-filter">
            <legend>Status</legend>
            {STATUSES.map((status) => (
              <label key={status}>
                <input
                  type="checkbox"
                  checked={f.status.includes(status)}
                  onChange={() => toggleStatus(status)}
                />
                {status}
              </label>
            ))}
          </fieldset>
          <label>
            <span>Started from{timesInUtc() ? ' (UTC)' : ''}</span>
            <input
              type="datetime-local"
              value={data ? inputValue(data.from) : ''}
              onChange={(e) => {
                const value = (e.target as HTMLInputElement).value;
                if (value && data)
                  navigate(
                    withParams(params, {
                      window: undefined,
                      from: instantOfInput(value),
                      to: data.to,
                      page: undefined,
                    }),
                  );
              }}
            />
          </label>
          <label>
            <span>to{timesInUtc() ? ' (UTC)' : ''}</span>
            <input
              type="datetime-local"
              value={data ? inputValue(data.to) : ''}
              onChange={(e) => {
                const value = (e.target as HTMLInputElement).value;
                if (value && data)
                  navigate(
                    withParams(params, {
                      window: undefined,
                      from: data.from,
                      to: instantOfInput(value),
                      page: undefined,
                    }),
                  );
              }}
            />
          </label>
          <SearchBox
            label="Search id or uuid"
            value={f.q}
            onChange={(q) => navigate(withParams(params, { q, page: undefined }), { replace: true })}
          />
        </form>
        <ErrorNote message={executions.error} />
        {executions.data && (
          <div data-executions-from={executions.data.from} data-executions-to={executions.data.to}>
            <ExecutionTable rows={executions.data.data} keep={kept} />
            <Pager
              page={f.page}
              size={f.size}
              count={executions.data.count}
              noun="executions"
              hrefOf={(page) => withParams(params, { page: page || undefined })}
            />
          </div>
        )}
      </Section>
    </div>
  );
}

/** What a deployment changed: runs before and after, failure rate before → after, new error groups. */
function ImpactLine({ impact, workflow }: { impact: Impact; workflow: string }) {
  const { before, after } = impact;
  return (
    <div class="impact" data-impact>
      <span>
        failure rate <span data-cell="rate-before">{formatShare(before.failureRate)}</span> →{' '}
        <span data-cell="rate-after">{formatShare(after.failureRate)}</span>{' '}
        <span class="muted">({formatPoints(impact.failureRateChange)})</span>
      </span>
      <span>
        p50 {formatDuration(before.p50Ms)} → {formatDuration(after.p50Ms)}
      </span>
      <span class="muted">
        {before.executions} finished runs before, {after.executions} after
      </span>
      <span>
        <span data-cell="new-groups">{impact.newErrorGroups.length}</span> new error{' '}
        {impact.newErrorGroups.length === 1 ? 'group' : 'groups'}
        {impact.newErrorGroups.length > 0 && ': '}
        {impact.newErrorGroups.slice(0, 3).map((g, i) => (
          <span key={g.fingerprint}>
            {i > 0 && ', '}
            <Link
              href={href('errors', { fp: g.fingerprint, workflow, from: after.from, to: after.to })}
              class="pattern"
            >
              {g.pattern}
            </Link>
          </span>
        ))}
      </span>
    </div>
  );
}

type ExecutionRow = {
  uuid: string;
  workflowUUID?: string;
  workflowName?: string;
  id: string;
  status: string;
  startedAt: string;
  finishedAt?: string | null;
  creditUsed?: string | null;
  errors?: ReadonlyArray<{ error: string; count: number } | null> | null;
};

/** Rendered again only when its rows (or the window it carries) change, not at each render of its view. */
export const ExecutionTable = memo(ExecutionRows);

function ExecutionRows({
  rows,
  keep = {},
  withWorkflow,
}: {
  rows: readonly ExecutionRow[];
  /** The window to carry into each execution's page (its way back keeps it). */
  keep?: Record<string, string | undefined>;
  /** Shows each execution's workflow (lists across workflows). */
  withWorkflow?: boolean;
}) {
  if (rows.length === 0) return <p class="muted">No execution matches.</p>;
  return (
    <div class="table-wrap">
      <table class="data" data-table="executions">
        <thead>
          <tr>
            <th scope="col">execution</th>
            {withWorkflow && <th scope="col">workflow</th>}
            <th scope="col">status</th>
            <th scope="col">started</th>
            <th scope="col" class="num">
              duration
            </th>
            <th scope="col" class="num">
              credits
            </th>
            <th scope="col">first error</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((e) => (
            <tr key={e.uuid} data-execution={e.uuid}>
              <td class="mono">
                <Link href={href('execution', { uuid: e.uuid, ...keep })}>{e.id}</Link>
              </td>
              {withWorkflow && (
                <td>
                  {e.workflowUUID ? (
                    <Link href={href('workflow', { uuid: e.workflowUUID, ...keep })}>{e.workflowName}</Link>
                  ) : (
                    e.workflowName
                  )}
                </td>
              )}
              <td>
                <Status value={e.status} />
              </td>
              <td>
                <Time iso={e.startedAt} />
              </td>
              <td class="num">
                {e.finishedAt ? formatDuration(Date.parse(e.finishedAt) - Date.parse(e.startedAt)) : '–'}
              </td>
              <td class="num" data-cell="credits">
                {formatCredits(e.creditUsed)}
              </td>
              <td class="error-text clip">{e.errors?.find((x) => x)?.error ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
