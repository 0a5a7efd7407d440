import { useMemo } from 'preact/hooks';
import type { WorkflowExecutionStatus } from '../../../client/index.js';
import { ErrorNote, Figure, Link, Pager, Section, Status, Time, toneOf } from '../parts/basics.js';
import { Chart, FAILURE_COLOR, SUCCESS_COLOR } from '../parts/chart.js';
import { SearchBox } from '../parts/search-box.js';
import { WindowPicker } from '../parts/window-picker.js';
import { href, intParam, navigate } from '../route.js';
import { useLoad } from '../session.js';
import { formatDuration, formatRate, windowParam, windowRange } from '../time.js';

const STATUSES: readonly WorkflowExecutionStatus[] = [
  'SUCCESS',
  'FAILURE',
  'IN_PROGRESS',
  'TRIGGERED',
  'UNKNOWN',
];

/** Execution filters as in the URL; `from`/`to` are datetime-local values in the viewer's zone. */
function filters(params: URLSearchParams) {
  const status = (params.get('status') ?? '')
    .split(',')
    .filter((s): s is WorkflowExecutionStatus => STATUSES.includes(s as WorkflowExecutionStatus));
  const instant = (name: string) => {
    const value = params.get(name);
    const time = value ? new Date(value) : undefined;
    return time && !Number.isNaN(time.getTime()) ? time.toISOString() : undefined;
  };
  return {
    status,
    q: params.get('q') ?? '',
    from: instant('from'),
    to: instant('to'),
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

export function WorkflowView({ params }: { params: URLSearchParams }) {
  const uuid = params.get('uuid') ?? '';
  const window = windowParam(params);
  const f = filters(params);
  const overview = useLoad(`workflow:${uuid}:${window}`, async (client) => {
    const { from, to } = windowRange(window);
    const [workflow, activity, deployments, durations, groups] = await Promise.all([
      client.workflow({ uuid, from }),
      client.workflowActivity({ workflowUUID: uuid, from, to }),
      client.workflowDeployments({ workflowUUID: uuid, page: { size: 20 } }),
      client.durationStats({ workflowUUID: uuid, from, to }),
      client.errorGroups({ workflowUUID: uuid, from, to, page: { size: 10 } }),
    ]);
    return {
      workflow: workflow.data,
      activity: activity.data ?? [],
      deployments,
      durations: durations.data,
      groups,
      from,
      to,
    };
  });
  const executions = useLoad(
    `executions:${uuid}:${f.status}:${f.q}:${f.from}:${f.to}:${f.page}:${f.size}`,
    (client) =>
      client.workflowExecutions({
        workflowUuid: uuid,
        status: f.status.length ? f.status : undefined,
        search: f.q || undefined,
        from: f.from,
        to: f.to,
        page: { number: f.page, size: f.size },
      }),
  );
  const data = overview.data;
  const chart = useMemo(
    () =>
      data && {
        x: data.activity.map((b) => b.from),
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
      },
    [data],
  );
  const toggleStatus = (status: WorkflowExecutionStatus) => {
    const next = f.status.includes(status) ? f.status.filter((s) => s !== status) : [...f.status, status];
    navigate(withParams(params, { status: next.join(','), page: undefined }));
  };
  const counts = data?.workflow.executionCountByStatus;
  return (
    <div
      data-view="workflow"
      data-from={data?.from}
      data-to={data?.to}
      data-complete={data && executions.data ? 'true' : undefined}
    >
      <div class="view-head">
        <h1>
          <Link href={href('workflows')} class="crumb">
            Workflows
          </Link>{' '}
          / {data?.workflow.name ?? uuid}
        </h1>
        <WindowPicker view="workflow" params={params} current={window} />
      </div>
      <ErrorNote message={overview.error} />
      {!data && !overview.error && <p class="muted">Loading…</p>}
      {data && chart && counts && (
        <>
          <div class="figures">
            <Figure label="Status" name="status" value={<Status value={data.workflow.status} />} />
            <Figure label={`Runs in ${window}`} name="executions" value={data.workflow.executionCount} />
            <Figure label="Failed" name="failure" value={counts.failure} />
            <Figure
              label="Failure rate"
              name="failure-rate"
              value={formatRate(counts.failure, counts.success + counts.failure)}
            />
            <Figure label="Credits" name="credits" value={data.workflow.creditUsed ?? '–'} />
            <Figure label="Last run" name="last-run" value={<Time iso={data.workflow.executedAt} />} />
          </div>
          <Section title="Activity" id="activity">
            <Chart
              label={`Successful and failed executions of ${data.workflow.name} per bucket`}
              x={chart.x}
              series={chart.series}
              stacked
            />
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
                        href={href('errors', { window, fp: g.fingerprint, workflow: uuid })}
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
                  <span class="muted">
                    <span data-cell="success">{d.executionCountByStatus?.success ?? 0}</span> succeeded,{' '}
                    <span data-cell="failure">{d.executionCountByStatus?.failure ?? 0}</span> failed
                  </span>
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
            <span>Started from</span>
            <input
              type="datetime-local"
              value={params.get('from') ?? ''}
              onChange={(e) =>
                navigate(withParams(params, { from: (e.target as HTMLInputElement).value, page: undefined }))
              }
            />
          </label>
          <label>
            <span>to</span>
            <input
              type="datetime-local"
              value={params.get('to') ?? ''}
              onChange={(e) =>
                navigate(withParams(params, { to: (e.target as HTMLInputElement).value, page: undefined }))
              }
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
          <>
            <ExecutionTable rows={executions.data.data} />
            <Pager
              page={f.page}
              size={f.size}
              count={executions.data.count}
              noun="executions"
              hrefOf={(page) => withParams(params, { page: page || undefined })}
            />
          </>
        )}
      </Section>
    </div>
  );
}

type ExecutionRow = {
  uuid: string;
  id: string;
  status: string;
  startedAt: string;
  finishedAt?: string | null;
  creditUsed?: string | null;
  errors?: ReadonlyArray<{ error: string; count: number } | null> | null;
};

export function ExecutionTable({ rows }: { rows: readonly ExecutionRow[] }) {
  if (rows.length === 0) return <p class="muted">No execution matches.</p>;
  return (
    <div class="table-wrap">
      <table class="data" data-table="executions">
        <thead>
          <tr>
            <th scope="col">execution</th>
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
                <Link href={href('execution', { uuid: e.uuid })}>{e.id}</Link>
              </td>
              <td>
                <Status value={e.status} />
              </td>
              <td>
                <Time iso={e.startedAt} />
              </td>
              <td class="num">
                {e.finishedAt ? formatDuration(Date.parse(e.finishedAt) - Date.parse(e.startedAt)) : '–'}
              </td>
              <td class="num">{e.creditUsed ?? '–'}</td>
              <td class="error-text clip">{e.errors?.find((x) => x)?.error ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
