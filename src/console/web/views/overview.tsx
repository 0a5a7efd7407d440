import { useMemo } from 'preact/hooks';
import type {
  DurationStats,
  ErrorGroup,
  ErrorGroupBucket,
  WorkflowActivityRow,
  WorkflowExecution,
} from '../../../client/index.js';
import { type Client, describeError } from '../api.js';
import { windowCounts } from '../counts.js';
import { ErrorNote, Figure, Link, Section, Sparkline, Time } from '../parts/basics.js';
import { Chart, FAILURE_COLOR, P50_COLOR, P95_COLOR, SUCCESS_COLOR } from '../parts/chart.js';
import {
  ANOMALY_FIELDS,
  EmptyState,
  ObjectivesTable,
  SERVICE_LEVEL_FIELDS,
  type ServiceLevel,
  UnusualList,
} from '../parts/verdicts.js';
import { WindowPicker } from '../parts/window-picker.js';
import { href, navigate } from '../route.js';
import { useLoad } from '../session.js';
import { clampToNow, formatCount, formatDuration, formatRate, viewWindow } from '../time.js';
import { type AnomalyEntry, currentAnomalies } from '../verdicts.js';

const TOP = 5;
/** Failures listed per aliased page, and pages per request (the server's default alias limit is 30). */
const FAILURE_PAGE = 100;
const FAILURE_PAGES = 29;
/** Per-bucket durations asked per request, under the same alias limit. */
const BUCKETS_PER_REQUEST = 28;

type Count = { count: number };
interface CoreAnswer {
  all: Count;
  succeeded: Count;
  failed: Count & { data: Array<Pick<WorkflowExecution, 'workflowUUID' | 'workflowName'>> };
  workflowActivity: {
    data: Array<Pick<WorkflowActivityRow, 'from' | 'to' | 'successCount' | 'failureCount'>> | null;
  };
}
interface InsightAnswer {
  durationStats: { data: Pick<DurationStats, 'p50Ms' | 'p95Ms'> };
  errorGroups: {
    count: number;
    data: Array<
      Pick<ErrorGroup, 'fingerprint' | 'pattern' | 'occurrences'> & {
        activity: Array<Pick<ErrorGroupBucket, 'occurrences'>>;
      }
    >;
  };
  anomalies: { data: AnomalyEntry[] };
  serviceLevels: { data: ServiceLevel[] };
}

/** "Unusual now" looks at the last 24 hours, in hours, whatever the window the view shows. */
const UNUSUAL_SPAN_MS = 24 * 3_600_000;

const CORE = `query OverviewFigures($from: Time!, $to: Time!) {
  all: workflowExecutions(input: {from: $from, to: $to, page: {size: 1}}) { count }
  succeeded: workflowExecutions(input: {from: $from, to: $to, status: [SUCCESS], page: {size: 1}}) { count }
  failed: workflowExecutions(input: {from: $from, to: $to, status: [FAILURE], page: {size: ${FAILURE_PAGE}}}) {
    count data { workflowUUID workflowName }
  }
  workflowActivity(input: {from: $from, to: $to}) { data { from to successCount failureCount } }
}`;

const INSIGHT = `query OverviewInsight($from: Time!, $to: Time!, $recentFrom: Time!, $now: Time!) {
  durationStats(input: {from: $from, to: $to}) { data { p50Ms p95Ms } }
  errorGroups(input: {from: $from, to: $to, page: {size: 100}}) {
    count data { fingerprint pattern occurrences activity { occurrences } }
  }
  anomalies(input: {from: $recentFrom, to: $now}) { data { ${ANOMALY_FIELDS} } }
  serviceLevels(input: {}) { data { ${SERVICE_LEVEL_FIELDS} } }
}`;

/**
 * The overview in a handful of requests whatever the number of workflows: the window's figures
 * and failures in one aliased request, the insight panels in another (a hosted server refuses
 * those alone), then the rest of the window's failures (ranking the workflows failing most), the
 * exact counts of the top five, and each bucket's durations, each as aliased batches. What
 * follows the figures is asked as soon as they are answered, beside the insight panels rather
 * than after them: on one connection (the embedded database) they were otherwise answered one
 * round after the other.
 */
async function loadOverview(client: Client, from: string, to: string) {
  const now = new Date().toISOString();
  const recentFrom = new Date(Date.parse(now) - UNUSUAL_SPAN_MS).toISOString();
  const coreAsked = client.request<CoreAnswer>(CORE, { from, to });
  const insightAsked = client.request<InsightAnswer>(INSIGHT, { from, to, recentFrom, now }).then(
    (answer) => ({ answer, error: undefined }),
    (error: unknown) => ({ answer: undefined, error: describeError(error) }),
  );
  const core = await coreAsked;
  const buckets = core.workflowActivity.data ?? [];
  // The durations chart is drawn only beside the insight panels: when those cannot be read, its
  // answer (or failure) is not used.
  const durationsAsked = bucketDurations(client, buckets).then(
    (perBucket) => ({ perBucket, error: undefined }),
    (error: unknown) => ({ perBucket: [], error }),
  );
  const failingAsked = failuresOf(client, core.failed, from, to).then(async (failures) => ({
    failures,
    failing: await topFailing(client, failures.rows, from, to),
  }));
  const [insight, durations, { failures, failing }] = await Promise.all([
    insightAsked,
    durationsAsked,
    failingAsked,
  ]);
  if (insight.answer && durations.error !== undefined) throw durations.error;
  const perBucket = insight.answer ? durations.perBucket : [];
  return {
    figures: { all: core.all.count, success: core.succeeded.count, failure: core.failed.count },
    buckets,
    durations: insight.answer?.durationStats.data,
    groups: insight.answer?.errorGroups,
    unusual: insight.answer && {
      from: recentFrom,
      to: now,
      current: currentAnomalies(insight.answer.anomalies.data, now),
    },
    levels: insight.answer?.serviceLevels.data,
    insightError: insight.error,
    perBucket,
    failing,
    ranked: { of: failures.rows.length, complete: failures.rows.length >= core.failed.count },
  };
}

/** The window's failures, up to FAILURE_PAGES more pages in one aliased request. */
async function failuresOf(client: Client, first: CoreAnswer['failed'], from: string, to: string) {
  const rows = [...first.data];
  const pages = Math.min(FAILURE_PAGES, Math.ceil(first.count / FAILURE_PAGE) - 1);
  if (pages > 0) {
    const fields = Array.from(
      { length: pages },
      (_, i) =>
        `p${i}: workflowExecutions(input: {from: $from, to: $to, status: [FAILURE], page: {number: ${i + 1}, size: ${FAILURE_PAGE}}}) { data { workflowUUID workflowName } }`,
    );
    const answer = await client.request<Record<string, { data: CoreAnswer['failed']['data'] }>>(
      `query OverviewFailures($from: Time!, $to: Time!) {\n  ${fields.join('\n  ')}\n}`,
      { from, to },
    );
    for (let i = 0; i < pages; i++) rows.push(...(answer[`p${i}`]?.data ?? []));
  }
  return { rows };
}

/** The workflows with most failures among those listed, with their exact counts over the window. */
async function topFailing(client: Client, rows: CoreAnswer['failed']['data'], from: string, to: string) {
  const tally = new Map<string, { uuid: string; name: string; n: number }>();
  for (const row of rows) {
    const entry = tally.get(row.workflowUUID) ?? { uuid: row.workflowUUID, name: row.workflowName, n: 0 };
    entry.n += 1;
    tally.set(row.workflowUUID, entry);
  }
  const top = [...tally.values()].sort((a, b) => b.n - a.n || a.name.localeCompare(b.name)).slice(0, TOP);
  if (top.length === 0) return [];
  const counts = await windowCounts(
    client,
    top.map((w) => w.uuid),
    from,
    to,
  );
  return top
    .map((w) => ({ uuid: w.uuid, name: w.name, runs: 0, success: 0, failure: 0, ...counts.get(w.uuid) }))
    .sort((a, b) => b.failure - a.failure || a.name.localeCompare(b.name));
}

/** Each bucket's p50 and p95, in aliased batches. */
async function bucketDurations(client: Client, buckets: ReadonlyArray<{ from: string; to: string }>) {
  const chunks: Array<Array<{ from: string; to: string }>> = [];
  for (let i = 0; i < buckets.length; i += BUCKETS_PER_REQUEST)
    chunks.push(buckets.slice(i, i + BUCKETS_PER_REQUEST));
  const answers = await Promise.all(
    chunks.map((chunk) => {
      const variables = chunk.map((_, i) => `$f${i}: Time!, $t${i}: Time!`).join(', ');
      const fields = chunk.map(
        (_, i) => `d${i}: durationStats(input: {from: $f${i}, to: $t${i}}) { data { p50Ms p95Ms } }`,
      );
      return client
        .request<Record<string, { data: { p50Ms: number | null; p95Ms: number | null } }>>(
          `query OverviewBucketDurations(${variables}) {\n  ${fields.join('\n  ')}\n}`,
          Object.fromEntries(
            chunk.flatMap((b, i) => [
              [`f${i}`, b.from],
              [`t${i}`, b.to],
            ]),
          ),
        )
        .then((answer) => chunk.map((_, i) => answer[`d${i}`]!.data));
    }),
  );
  return answers.flat();
}

/** A group rises when the later half of its window has more occurrences than the earlier half. */
function rise(activity: ReadonlyArray<{ occurrences: number }>): number {
  const half = Math.floor(activity.length / 2);
  const sum = (part: ReadonlyArray<{ occurrences: number }>) => part.reduce((s, b) => s + b.occurrences, 0);
  return sum(activity.slice(half)) - sum(activity.slice(0, half));
}

export function OverviewView({ params }: { params: URLSearchParams }) {
  const window = viewWindow(params);
  const { data, error } = useLoad(`overview:${window.key}`, (client) => {
    const { from, to } = window.range();
    return loadOverview(client, from, to).then((result) => ({ ...result, from, to }));
  });
  const charts = useMemo(() => {
    if (!data) return undefined;
    return {
      failures: [
        {
          label: 'failure',
          values: data.buckets.map((b) => b.failureCount),
          color: FAILURE_COLOR,
          kind: 'bars',
        },
      ] as const,
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
          values: data.perBucket.map((d) => d.p50Ms ?? null),
          color: P50_COLOR,
          kind: 'line',
        },
        {
          label: 'p95',
          values: data.perBucket.map((d) => d.p95Ms ?? null),
          color: P95_COLOR,
          kind: 'line',
        },
      ] as const,
    };
  }, [data]);
  const rising = (data?.groups?.data ?? [])
    .map((g) => ({ group: g, rise: rise(g.activity) }))
    .filter((r) => r.rise > 0)
    .sort((a, b) => b.rise - a.rise || a.group.fingerprint.localeCompare(b.group.fingerprint))
    .slice(0, TOP);
  const kept = window.params;
  const figures = data?.figures;
  const select = (range: { from: string; to: string }) =>
    navigate(href('overview', { from: range.from, to: clampToNow(range.to) }));
  return (
    <div
      data-view="overview"
      data-from={data?.from}
      data-to={data?.to}
      data-complete={data ? 'true' : undefined}
    >
      <div class="view-head">
        <h1>Overview</h1>
        <WindowPicker view="overview" params={params} current={window.name} />
      </div>
      <ErrorNote message={error} />
      {!data && !error && <p class="muted">Loading…</p>}
      {data && charts && figures && (
        <>
          <p class="muted small" data-window>
            Executions started from <Time iso={data.from} /> to <Time iso={data.to} />.
          </p>
          <div class="figures">
            <Figure label="Executions" name="executions" value={formatCount(figures.all)} />
            <Figure label="Succeeded" name="success" value={formatCount(figures.success)} />
            <Figure label="Failed" name="failure" value={formatCount(figures.failure)} />
            <Figure
              label="Failure rate (of finished)"
              name="failure-rate"
              value={formatRate(figures.failure, figures.success + figures.failure)}
            />
            <Figure label="p50 duration" name="p50" value={formatDuration(data.durations?.p50Ms)} />
            <Figure label="p95 duration" name="p95" value={formatDuration(data.durations?.p95Ms)} />
          </div>
          <Section title="Unusual now" id="unusual">
            <ErrorNote message={data.insightError} />
            {data.unusual && (
              <div data-unusual-from={data.unusual.from} data-unusual-to={data.unusual.to}>
                {data.unusual.current.length === 0 ? (
                  <EmptyState title="Nothing unusual now.">
                    Every workflow's executions, failure rate and p95 duration in the latest hour are within
                    their expected ranges (from the same hour of the four weeks before).
                  </EmptyState>
                ) : (
                  <>
                    <p class="muted small">
                      Metrics outside their expected range in the hour in progress or the last one ended, and
                      since when without a break (over the last 24 hours).
                    </p>
                    <UnusualList anomalies={data.unusual.current} keep={{ window: '24h' }} />
                  </>
                )}
              </div>
            )}
          </Section>
          <Section title="Objectives" id="objectives">
            <ErrorNote message={data.insightError} />
            {data.levels &&
              (data.levels.length === 0 ? (
                <EmptyState title="No objectives yet.">
                  Operators create service level objectives with <code>wfapi slo create</code> or the admin
                  API; each then shows its attainment, error budget and burn rates here.
                </EmptyState>
              ) : (
                <ObjectivesTable levels={data.levels} keep={kept} />
              ))}
          </Section>
          <Section title="Success and failure" id="outcomes">
            <Chart
              label="Successful and failed executions per bucket"
              buckets={data.buckets}
              series={charts.outcomes}
              stacked
              window={data}
              asOf={data.to}
              onSelect={select}
            />
            <h3 class="chart-title">Failures on their own scale</h3>
            <Chart
              label="Failed executions per bucket"
              buckets={data.buckets}
              series={charts.failures}
              height={110}
              window={data}
              asOf={data.to}
              onSelect={select}
            />
          </Section>
          <div class="columns">
            <Section title="Workflows failing most" id="failing">
              {data.failing.length === 0 ? (
                <p class="muted">No failures in this window.</p>
              ) : (
                <>
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
                      {data.failing.map((w) => (
                        <tr key={w.uuid} data-workflow={w.uuid}>
                          <td>
                            <Link href={href('workflow', { uuid: w.uuid, ...kept })}>{w.name}</Link>
                          </td>
                          <td class="num" data-cell="failure">
                            <Link href={href('workflow', { uuid: w.uuid, ...kept, status: 'FAILURE' })}>
                              {formatCount(w.failure)}
                            </Link>
                          </td>
                          <td class="num" data-cell="runs">
                            {formatCount(w.runs)}
                          </td>
                          <td class="num">{formatRate(w.failure, w.success + w.failure)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                  {!data.ranked.complete && (
                    <p class="muted small">
                      Ranked by the latest {formatCount(data.ranked.of)} of {formatCount(figures.failure)}{' '}
                      failures; each row's figures are its own over the whole window.
                    </p>
                  )}
                </>
              )}
            </Section>
            <Section title="Error groups rising" id="rising">
              <ErrorNote message={data.insightError} />
              {!data.insightError && rising.length === 0 ? (
                <p class="muted">No error group is rising in this window.</p>
              ) : (
                rising.length > 0 && (
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
                            <Link href={href('errors', { ...kept, fp: group.fingerprint })}>
                              {group.pattern}
                            </Link>
                          </td>
                          <td class="num" data-cell="occurrences">
                            {formatCount(group.occurrences)}
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
                )
              )}
            </Section>
          </div>
          {!data.insightError && (
            <Section title="Duration p50 and p95" id="durations">
              <Chart
                label="Median and 95th percentile duration per bucket"
                buckets={data.buckets}
                series={charts.durations}
                format={formatDuration}
                window={data}
                asOf={data.to}
                onSelect={select}
              />
            </Section>
          )}
          <p class="muted small">
            Charts in buckets as the API chooses them: the first may start before the window, the last is
            still filling.
          </p>
        </>
      )}
    </div>
  );
}
