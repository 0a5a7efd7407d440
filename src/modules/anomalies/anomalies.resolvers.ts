import { badInput } from '../../errors.js';
import { keptAnswer } from '../../schema/kept-answer.js';
import type { AnomalyMetric } from '../../schema/schema-types.generated.js';
import type { Resolvers } from '../resolver-types.generated.js';
import { activityBuckets, windowOf } from '../shared/time-window.js';
import { workflowScope } from '../shared/workflow-scope.js';
import { detectAnomalies, type SeriesOf } from './anomalies.service.js';
import { DEFAULT_SENSITIVITY } from './anomaly-detection.js';

/** At most this many anomalies are listed. */
export const MAX_ANOMALIES = 500;

function sensitivityOf(value: number | null | undefined): number {
  if (value === null || value === undefined) return DEFAULT_SENSITIVITY;
  if (!Number.isFinite(value) || value < 1 || value > 10)
    throw badInput('sensitivity must be between 1 and 10');
  return value;
}

/** Every metric, in the contract's order: the default, and the order of series. */
const METRICS: readonly AnomalyMetric[] = ['EXECUTIONS', 'FAILURE_RATE', 'DURATION_P95'];

const time = (ms: number) => new Date(ms);

/**
 * The answer made of a request's series (the scope's and its workflows'): the anomalies listed,
 * by the contract's order, and the scope's own series.
 */
function answerOf(all: readonly SeriesOf[], workflowUuid: string | null, metrics: readonly AnomalyMetric[]) {
  const anomalies = all.flatMap((series) =>
    series.points
      .filter((point) => point.anomalous)
      .map((point) => ({
        ...point,
        metric: series.metric,
        workflowUuid: series.workflowUuid,
        workflowName: series.workflowName,
      })),
  );
  anomalies.sort(
    (a, b) =>
      b.from - a.from ||
      b.score! - a.score! ||
      (a.workflowUuid ?? '').localeCompare(b.workflowUuid ?? '') ||
      metrics.indexOf(a.metric) - metrics.indexOf(b.metric),
  );
  return {
    data: anomalies.slice(0, MAX_ANOMALIES).map((a) => ({
      metric: a.metric,
      workflowUUID: a.workflowUuid,
      workflowName: a.workflowName,
      from: time(a.from),
      to: time(a.to),
      observed: a.observed!,
      expected: a.expected!,
      lower: a.lower!,
      upper: a.upper!,
      direction: a.direction!,
      score: a.score!,
    })),
    // The scope's own series: the workflow's, or the organization's as a whole.
    series: all
      .filter((series) => series.workflowUuid === workflowUuid)
      .map((series) => ({
        metric: series.metric,
        workflowUUID: series.workflowUuid,
        points: series.points.map((p) => ({
          from: time(p.from),
          to: time(p.to),
          observed: p.observed,
          expected: p.expected,
          lower: p.lower,
          upper: p.upper,
          anomalous: p.anomalous,
        })),
      })),
  };
}

/**
 * Answers by the series they were made of: detectAnomalies gives a repeated request the very
 * series it gave the last (while nothing they were judged from has changed), and its answer is
 * the same too (a kept answer: kept-answers.ts). The series name the scope and metrics, so they
 * decide the answer alone.
 */
const ANSWERS = new WeakMap<readonly SeriesOf[], ReturnType<typeof answerOf>>();

export const anomaliesResolvers: Resolvers = {
  Query: {
    anomalies: keptAnswer(async (_parent, { input }, ctx) => {
      const { db, organizationId } = ctx;
      const now = ctx.now();
      const window = windowOf(input, now);
      // The bucket count is checked by arithmetic before any bucket is made (time-window.ts).
      const buckets = activityBuckets(window);
      const width = buckets[0]!.to - buckets[0]!.from;
      const sensitivity = sensitivityOf(input.sensitivity);
      const asked = new Set<AnomalyMetric>(input.metrics ?? METRICS);
      const metrics = METRICS.filter((metric) => asked.has(metric));
      const workflowUuid = await workflowScope(ctx, input.workflowUUID, 'notFound');
      const all = await detectAnomalies(db, organizationId, {
        buckets,
        width,
        workflowUuid,
        perWorkflow: workflowUuid === null,
        metrics,
        sensitivity,
        now,
      });
      let answer = ANSWERS.get(all);
      if (answer === undefined) {
        answer = answerOf(all, workflowUuid, metrics);
        ANSWERS.set(all, answer);
      }
      return answer;
    }),
  },
};
