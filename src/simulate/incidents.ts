import { LRUCache } from 'lru-cache';
/**
 * Platform incidents: on about four days in ten, one or two periods of 15 minutes to 2 hours in
 * which one system failure (an RPC outage or gas spike on one chain, degraded consensus, a node
 * outage) makes a large share of the affected workflows' executions fail. Incidents are a
 * function of the UTC day alone, so any time window sees the same ones.
 */
import { DAY, HOUR, MINUTE } from '../lib/time.js';
import { INCIDENT_KINDS, type IncidentKind } from './failures.js';
import { randomFor } from './prng.js';
import type { Chain } from './vocabulary.js';
import { type SimWorkflow, STREAM, type World } from './world.js';

export interface Incident {
  readonly kind: IncidentKind;
  /** The chain hit, for incidents of one chain. */
  readonly chain: Chain | undefined;
  readonly start: number;
  readonly end: number;
  /** Probability that an affected execution fails. */
  readonly severity: number;
}

/** Incidents last at most this long, so an instant is touched by its own day's and the previous day's. */
const MAX_DURATION = 2 * HOUR;
/** Each world's incidents of the days drawn last (a replay walks days in order). */
const cache = new WeakMap<World, LRUCache<number, readonly Incident[]>>();

export function incidentsOnDay(world: World, day: number): readonly Incident[] {
  let days = cache.get(world);
  if (!days) {
    days = new LRUCache({ max: 64 });
    cache.set(world, days);
  }
  const known = days.get(day);
  if (known) return known;
  const r = randomFor(world.seed, STREAM.incidents, day);
  const count = r.weighted([
    [0, 6],
    [1, 3],
    [2, 1],
  ] as const);
  const incidents = Array.from({ length: count }, (): Incident => {
    const kind = r.weighted(INCIDENT_KINDS.map((k) => [k, k.weight] as const));
    const start = Math.floor(day * DAY + r.between(0, DAY));
    return {
      kind,
      chain: kind.perChain ? r.pick(world.chains) : undefined,
      start,
      end: Math.floor(start + r.between(15 * MINUTE, MAX_DURATION)),
      severity: r.between(0.35, 0.9),
    };
  });
  days.set(day, incidents);
  return incidents;
}

export function affects(incident: Incident, workflow: SimWorkflow): boolean {
  if (incident.chain && incident.chain !== workflow.chain) return false;
  return workflow.failures.system.includes(incident.kind.failure);
}

/** The incident hitting `workflow` at `time`, if any. */
export function incidentAt(world: World, workflow: SimWorkflow, time: number): Incident | undefined {
  const day = Math.floor(time / DAY);
  for (const d of [day - 1, day]) {
    for (const incident of incidentsOnDay(world, d)) {
      if (incident.start <= time && time < incident.end && affects(incident, workflow)) return incident;
    }
  }
  return undefined;
}
