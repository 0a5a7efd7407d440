import { useMemo } from 'preact/hooks';
import type { Client } from '../api.js';
import { ErrorNote, Figure, Link, Section, Sparkline, Time } from '../parts/basics.js';
import { Chart, FAILURE_COLOR, P50_COLOR, P95_COLOR, SUCCESS_COLOR } from '../parts/chart.js';
import { WindowPicker } from '../parts/window-picker.js';
import { href } from '../route.js';
import { useLoad } from '../session.js';
import { formatDuration, formatRate, windowParam, windowRange } from '../time.js';

const TOP = 5;

/** One question per figure, all over the same window, so every figure can be checked against the API. */
async function loadOverview(client: Client, from: string, to: string) {
  const [activity, durations, groups, workflows] = await Promise.all([
    client.workflowActivity({ from, to }),
    client.durationStats({ from, to }),
    client.errorGroups({ from, to, page: { size: 100 } }),
    collect(client),
  ]);
  const buckets = activity.data ?? [];
  const [perBucket, perWorkflow] = await Promise.all([
    Promise.all(buckets.map((b) => client.durationStats({ from: b.from, to: b.to }))),
    Promise.all(workflows.map((w) => client.workflow({ uuid: w.uuid, from }))),
  ]);
  return { buckets, durations: durations.data, perBucket, groups, workflows: perWorkflow.map((w) => w.data) };
}

async function collect(client: Client) {
  const all = [];
  for await (const workflow of client.paginate.workflows({ page: { size: 100 } })) all.push(workflow);
  return all;
}

/** A group rises when the later half of its window has more occurrences than the earlier half. */
function rise(activity: ReadonlyArray<{ occurrences: number }>): number {
  const half = Math.floor(activity.length / 2);
  const sum = (part: ReadonlyArray<{ occurrences: number }>) => part.reduce((s, b) => s + b.occurrences, 0);
  return sum(activity.slice(half)) - sum(activity.slice(0, half));
}

export function OverviewView({ params }: { params: URLSearchParams }) {
  const window = windowParam(params);
  const { data, error } = useLoad(`overview:${window}`, (client) => {
    const { from, to } = windowRange(window);
    return loadOverview(client, from, to).then((result) => ({ ...result, from, to }));
  });
  const charts = useMemo(() => {
    if (!data) return undefined;
    const x = data.buckets.map((b) => b.from);
    return {
      x,
      outcomes: [
        {
          label: 'success',
          values: data.buckets.map((b) => b.successCount),
          color: SUCCESS_COLOR,
          kind: 'bars',
        },
        {
          label: 'failure',
          values: data.buckets.map((b) => b.failureCount),
          color: FAILURE_COLOR,
          kind: 'bars',
        },
      ] as const,
      durations: [
        {
          label: 'p50',
          values: data.perBucket.map((d) => d.data.p50Ms ?? null),
          color: P50_COLOR,
          kind: 'line',
        },
        {
          label: 'p95',
          values: data.perBucket.map((d) => d.data.p95Ms ?? null),
          color: P95_COLOR,
          kind: 'line',
        },
      ] as const,
    };
  }, [data]);
  const success = data?.buckets.reduce((s, b) => s + b.successCount, 0) ?? 0;
  const failure = data?.buckets.reduce((s, b) => s + b.failureCount, 0) ?? 0;
  const failing = (data?.workflows ?? [])
    .filter((w) => w.executionCountByStatus.failure > 0)
    .sort(
      (a, b) =>
        b.executionCountByStatus.failure - a.executionCountByStatus.failure || a.name.localeCompare(b.name),
    )
    .slice(0, TOP);
  const rising = (data?.groups.data ?? [])
    .map((g) => ({ group: g, rise: rise(g.activity) }))
    .filter((r) => r.rise > 0)
    .sort((a, b) => b.rise - a.rise || a.group.fingerprint.localeCompare(b.group.fingerprint))
    .slice(0, TOP);
  return (
    <div
      data-view="overview"
      data-from={data?.from}
      data-to={data?.to}
      data-complete={data ? 'true' : undefined}
    >
      <div class="view-head">
        <h1>Overview</h1>
        <WindowPicker view="overview" params={params} current={window} />
      </div>
      <ErrorNote message={error} />
      {!data && !error && <p class="muted">Loading…</p>}
      {data && charts && (
        <>
          <div class="figures">
            <Figure label="Executions" name="executions" value={success + failure} />
            <Figure label="Succeeded" name="success" value={success} />
            <Figure label="Failed" name="failure" value={failure} />
            <Figure label="Failure rate" name="failure-rate" value={formatRate(failure, success + failure)} />
            <Figure label="p50 duration" name="p50" value={formatDuration(data.durations.p50Ms)} />
            <Figure label="p95 duration" name="p95" value={formatDuration(data.durations.p95Ms)} />
          </div>
          <Section title="Success and failure" id="outcomes">
            <Chart
              label={`Successful and failed executions per bucket over the last ${window}`}
              x={charts.x}
              series={charts.outcomes}
              stacked
            />
          </Section>
          <div class="columns">
            <Section title="Workflows failing most" id="failing">
              {failing.length === 0 ? (
                <p class="muted">No failures in this window.</p>
              ) : (
                <table class="data">
                  <thead>
                    <tr>
                      <th scope="col">workflow</th>
                      <th scope="col" class="num">
                        failures
                      </th>
                      <th scope="col" class="num">
                        runs
                      </th>
                      <th scope="col" class="num">
                        failure rate
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {failing.map((w) => (
                      <tr key={w.uuid} data-workflow={w.uuid}>
                        <td>
                          <Link href={href('workflow', { uuid: w.uuid, window })}>{w.name}</Link>
                        </td>
                        <td class="num" data-cell="failure">
                          {w.executionCountByStatus.failure}
                        </td>
                        <td class="num" data-cell="runs">
                          {w.executionCount}
                        </td>
                        <td class="num">
                          {formatRate(
                            w.executionCountByStatus.failure,
                            w.executionCountByStatus.success + w.executionCountByStatus.failure,
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </Section>
            <Section title="Error groups rising" id="rising">
              {rising.length === 0 ? (
                <p class="muted">No error group is rising in this window.</p>
              ) : (
                <table class="data">
                  <thead>
                    <tr>
                      <th scope="col">pattern</th>
                      <th scope="col" class="num">
                        occurrences
                      </th>
                      <th scope="col">trend</th>
                    </tr>
                  </thead>
                  <tbody>
                    {rising.map(({ group }) => (
                      <tr key={group.fingerprint} data-fingerprint={group.fingerprint}>
                        <td class="pattern">
                          <Link href={href('errors', { window, fp: group.fingerprint })}>
                            {group.pattern}
                          </Link>
                        </td>
                        <td class="num" data-cell="occurrences">
                          {group.occurrences}
                        </td>
                        <td>
                          <Sparkline
                            values={group.activity.map((b) => b.occurrences)}
                            label={`occurrences of ${group.pattern} over time`}
                          />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </Section>
          </div>
          <Section title="Duration p50 and p95" id="durations">
            <Chart
              label={`Median and 95th percentile duration per bucket over the last ${window}`}
              x={charts.x}
              series={charts.durations}
              format={formatDuration}
            />
          </Section>
          <p class="muted small">
            Window <Time iso={data.from} /> to <Time iso={data.to} />; buckets as the API chooses them.
          </p>
        </>
      )}
    </div>
  );
}
