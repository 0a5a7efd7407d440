/**
 * The arithmetic of service levels (contract section 7), pure: the burn-rate windows, the figures
 * of an objective from its counts, and its status by the multiwindow, multi-burn-rate rules of the
 * Google SRE workbook (chapter 5, "Alerting on SLOs"). The alert condition SLO_BURN and the
 * Prometheus rules of `wfapi slo rules` use the same windows and factors.
 */
import { DAY, HOUR, MINUTE } from '../../lib/time.js';

/** The burn-rate windows, in the order answered, each ending now. */
export const BURN_WINDOWS = [
  { name: '5m', ms: 5 * MINUTE },
  { name: '30m', ms: 30 * MINUTE },
  { name: '1h', ms: HOUR },
  { name: '2h', ms: 2 * HOUR },
  { name: '6h', ms: 6 * HOUR },
  { name: '1d', ms: DAY },
  { name: '3d', ms: 3 * DAY },
] as const;

export type BurnWindowName = (typeof BURN_WINDOWS)[number]['name'];

export type ServiceLevelStatus = 'OK' | 'TICKET' | 'PAGE' | 'NO_DATA';

/** A pair alerts when both windows burn above `factor`; considered only when `long` holds MIN_PAIR_TOTAL. */
export interface BurnPair {
  readonly long: BurnWindowName;
  readonly short: BurnWindowName;
  readonly factor: number;
}

/** PAGE pairs first, then TICKET pairs. */
export const STATUS_PAIRS: ReadonlyArray<{
  readonly status: 'PAGE' | 'TICKET';
  readonly pairs: readonly BurnPair[];
}> = [
  {
    status: 'PAGE',
    pairs: [
      { long: '1h', short: '5m', factor: 14.4 },
      { long: '6h', short: '30m', factor: 6 },
    ],
  },
  {
    status: 'TICKET',
    pairs: [
      { long: '1d', short: '2h', factor: 3 },
      { long: '3d', short: '6h', factor: 1 },
    ],
  },
];

/** The low-traffic guard: a pair whose longer window holds fewer finished executions is not considered. */
export const MIN_PAIR_TOTAL = 10;

export interface Counts {
  readonly total: number;
  readonly good: number;
}

export interface BurnRate {
  readonly window: BurnWindowName;
  readonly total: number;
  readonly bad: number;
  readonly rate: number | null;
}

export interface ServiceLevelFigures {
  readonly total: number;
  readonly good: number;
  readonly attainment: number | null;
  readonly errorBudgetRemaining: number | null;
  readonly burnRates: readonly BurnRate[];
  readonly status: ServiceLevelStatus;
}

/** (bad / total) / (1 - target); null when total is 0. */
export const burnRate = (counts: Counts, target: number): number | null =>
  counts.total === 0 ? null : (counts.total - counts.good) / counts.total / (1 - target);

/** The status of burn rates: PAGE, TICKET or OK (NO_DATA is the period's, decided by the caller). */
export function statusOf(rates: readonly BurnRate[]): 'OK' | 'TICKET' | 'PAGE' {
  const of = (name: BurnWindowName) => rates.find((rate) => rate.window === name)!;
  const burns = (pair: BurnPair) => {
    const long = of(pair.long);
    const short = of(pair.short);
    return long.total >= MIN_PAIR_TOTAL && (long.rate ?? 0) > pair.factor && (short.rate ?? 0) > pair.factor;
  };
  for (const { status, pairs } of STATUS_PAIRS) if (pairs.some(burns)) return status;
  return 'OK';
}

/** An objective's figures from the counts of its period and of each burn window (in BURN_WINDOWS order). */
export function figuresOf(target: number, period: Counts, windows: readonly Counts[]): ServiceLevelFigures {
  const burnRates = BURN_WINDOWS.map(({ name }, i) => {
    const counts = windows[i]!;
    return {
      window: name,
      total: counts.total,
      bad: counts.total - counts.good,
      rate: burnRate(counts, target),
    };
  });
  const { total, good } = period;
  return {
    total,
    good,
    attainment: total === 0 ? null : good / total,
    errorBudgetRemaining: total === 0 ? null : 1 - (total - good) / ((1 - target) * total),
    burnRates,
    status: total === 0 ? 'NO_DATA' : statusOf(burnRates),
  };
}
