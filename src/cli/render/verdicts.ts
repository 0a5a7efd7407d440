/** How the verdict commands (deployments, impact, anomalies) write figures. */
import type { ItemOf } from '../../client/index.js';
import { formatDuration } from '../time-input.js';
import type { Palette, Style } from './colors.js';

export type Impact = ItemOf<'deploymentImpact'>;

export const VERDICT_STYLE: Readonly<Record<Impact['verdict'], Style>> = {
  REGRESSED: 'red',
  IMPROVED: 'green',
  NO_CHANGE: 'dim',
  INSUFFICIENT_DATA: 'dim',
};

export const verdictText = (impact: Impact, p: Palette) => p[VERDICT_STYLE[impact.verdict]](impact.verdict);

/** A share as a percentage with one decimal, or `-`. */
export const percent = (rate: number | null | undefined) =>
  rate === null || rate === undefined ? '-' : `${(rate * 100).toFixed(1)}%`;

/** A signed change: `+12.5 pts` for rates, `+48%` for ratios. */
export const points = (change: number | null | undefined) =>
  change === null || change === undefined ? '-' : `${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)} pts`;
export const relative = (change: number | null | undefined) =>
  change === null || change === undefined ? '-' : `${change >= 0 ? '+' : ''}${(change * 100).toFixed(0)}%`;

/** A p-value in three significant digits (`p < 1e-12` below that). */
export const pValue = (p: number | null | undefined) =>
  p === null || p === undefined ? '-' : p < 1e-12 ? 'p < 1e-12' : `p = ${Number(p.toPrecision(3))}`;

export const milliseconds = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? '-' : formatDuration(ms);

/** A metric's value as its unit says: a count, a percentage, a duration. */
export function metricValue(metric: string, value: number | null | undefined): string {
  if (value === null || value === undefined) return '-';
  if (metric === 'FAILURE_RATE') return percent(value);
  if (metric === 'DURATION_P95') return formatDuration(value);
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}
