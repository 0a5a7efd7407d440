import { badInput } from '../../errors.js';
import type { AnomalyMetric } from '../../schema/schema-types.generated.js';
import type { Resolvers } from '../resolver-types.generated.js';
import { activityBuckets, windowOf } from '../shared/time-window.js';
import { workflowScope } from '../shared/workflow-scope.js';
import { workflowNames } from '../workflows/workflows.store.js';
import { detectAnomalies } from './anomalies.service.js';
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

export const anomaliesResolvers: Resolvers = {
  Query: {
    anomalies: async (_parent, { input }, ctx) => {
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
      const anomalies = all.flatMap((series) =>
        series.points
          .filter((point) => point.anomalous)
          .map((point) => ({ ...point, metric: series.metric, workflowUuid: series.workflowUuid })),
      );
      anomalies.sort(
        (a, b) =>
          b.from - a.from ||
          b.score! - a.score! ||
          (a.workflowUuid ?? '').localeCompare(b.workflowUuid ?? '') ||
          metrics.indexOf(a.metric) - metrics.indexOf(b.metric),
      );
      const listed = anomalies.slice(0, MAX_ANOMALIES);
      const names = await workflowNames(db, organizationId, [
        ...new Set(listed.flatMap((a) => (a.workflowUuid === null ? [] : [a.workflowUuid]))),
      ]);
      return {
        data: listed.map((a) => ({
          metric: a.metric,
          workflowUUID: a.workflowUuid,
          workflowName: a.workflowUuid === null ? null : (names.get(a.workflowUuid) ?? null),
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
    },
  },
};
