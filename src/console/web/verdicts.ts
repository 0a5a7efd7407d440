import type { AnomalyMetric, DeploymentVerdict, ServiceLevelStatus } from '../../client/index.js';
import { formatCount, formatDuration } from './time.js';

/**
 * Contract section 7 as the console shows it: the words and figures of deployment verdicts,
 * anomalies and service levels. Pure functions (no JSX), so the browser tests format the API's
 * answer with them and compare it with what the page shows.
 */

export type { AnomalyMetric, ServiceLevelStatus } from '../../client/index.js';
/** A deployment's verdict (`DeploymentVerdict` of the schema). */
export type Verdict = DeploymentVerdict;

/** The verdict as words: the badge says it in text, its colour only repeats it. */
export const VERDICT_TEXT: Record<Verdict, string> = {
  REGRESSED: 'Regressed',
  IMPROVED: 'Improved',
  NO_CHANGE: 'No change',
  INSUFFICIENT_DATA: 'Too few runs to judge',
};

export const VERDICT_TONE: Record<Verdict, 'bad' | 'good' | 'quiet'> = {
  REGRESSED: 'bad',
  IMPROVED: 'good',
  NO_CHANGE: 'quiet',
  INSUFFICIENT_DATA: 'quiet',
};

export const STATUS_TONE: Record<ServiceLevelStatus, 'bad' | 'busy' | 'good' | 'quiet'> = {
  PAGE: 'bad',
  TICKET: 'busy',
  OK: 'good',
  NO_DATA: 'quiet',
};

export const METRIC_TEXT: Record<AnomalyMetric, string> = {
  EXECUTIONS: 'executions started',
  FAILURE_RATE: 'failure rate',
  DURATION_P95: 'p95 duration',
};

/** A share (0..1) as a percentage: 12.3 %, or – for null. Negative shares keep their sign. */
export function formatShare(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '–';
  return `${(value * 100).toFixed(digits)} %`;
}

/** An objective's target: 99.9 %, 99.95 %, 50 % (no trailing zeros). */
export function formatTarget(target: number): string {
  return `${Number((target * 100).toFixed(3))} %`;
}

/** A burn rate: how many times faster than the budget allows, 2 decimals under 10. */
export function formatBurn(rate: number | null | undefined): string {
  if (rate === null || rate === undefined) return '–';
  return `${rate.toFixed(rate < 10 ? 2 : 1)}×`;
}

/** A value of an anomaly metric in its unit. */
export function formatMetric(metric: AnomalyMetric, value: number | null | undefined): string {
  if (value === null || value === undefined) return '–';
  if (metric === 'FAILURE_RATE') return formatShare(value);
  if (metric === 'DURATION_P95') return formatDuration(value);
  return formatCount(value);
}

/** A change of failure rate in percentage points, signed: +42.0 pp, −3.1 pp. */
export function formatPoints(change: number | null | undefined): string {
  if (change === null || change === undefined) return '–';
  const points = (change * 100).toFixed(1);
  return `${change > 0 ? '+' : ''}${points} pp`;
}

export interface AnomalyEntry {
  readonly metric: AnomalyMetric;
  readonly workflowUUID: string | null;
  readonly workflowName: string | null;
  readonly from: string;
  readonly to: string;
  readonly observed: number;
  readonly expected: number;
  readonly lower: number;
  readonly upper: number;
  readonly direction: 'UP' | 'DOWN';
  readonly score: number;
}

export interface CurrentAnomaly extends AnomalyEntry {
  /** Where the unbroken run of anomalous buckets of this scope and metric began. */
  readonly since: string;
}

/**
 * The anomalies still going on at `asOf`: per scope and metric, the latest anomalous bucket when
 * it is the bucket in progress or the last one that ended (its end at or after `asOf` less one
 * bucket width), with the start of the unbroken run of anomalous buckets leading to it. Ordered
 * by score, highest first, then workflow and metric. `entries` are `anomalies.data` (from DESC).
 */
export function currentAnomalies(entries: readonly AnomalyEntry[], asOf: string): CurrentAnomaly[] {
  const now = Date.parse(asOf);
  const byScope = new Map<string, AnomalyEntry[]>();
  for (const entry of entries) {
    const key = `${entry.workflowUUID ?? ''}/${entry.metric}`;
    byScope.set(key, [...(byScope.get(key) ?? []), entry]);
  }
  const current: CurrentAnomaly[] = [];
  for (const list of byScope.values()) {
    const ordered = [...list].sort((a, b) => Date.parse(b.from) - Date.parse(a.from));
    const latest = ordered[0]!;
    const width = Date.parse(latest.to) - Date.parse(latest.from);
    if (Date.parse(latest.to) < now - width) continue;
    let since = latest.from;
    for (const older of ordered.slice(1)) {
      if (Date.parse(older.to) !== Date.parse(since)) break;
      since = older.from;
    }
    current.push({ ...latest, since });
  }
  return current.sort(
    (a, b) =>
      b.score - a.score ||
      (a.workflowName ?? '').localeCompare(b.workflowName ?? '') ||
      a.metric.localeCompare(b.metric),
  );
}
