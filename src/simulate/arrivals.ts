/**
 * When executions start. Cron workflows start at each tick of their schedule (aligned to UTC,
 * as cron is) plus the trigger's latency of under a second. HTTP and on-chain log workflows
 * receive Poisson arrivals drawn slot by slot, modulated by a daily rhythm (HTTP traffic peaks
 * in the European-American afternoon and drops at weekends; chain activity varies less), with
 * occasional bursts in which many requests or logs land within seconds. Log triggers fire just
 * after the block that holds the log. No execution starts while the workflow is not running,
 * and only the arrivals the world's quota keeps start at all (see quota.ts).
 */
import { DAY, HOUR } from '../lib/time.js';
import { isRunning } from './deployments.js';
import { mixKeys, randomFor } from './prng.js';
import { keeps } from './quota.js';
import { type SimWorkflow, STREAM, type World } from './world.js';

/** One execution to be: its workflow, its key within the workflow's stream, and its start. */
export interface Arrival {
  readonly workflow: SimWorkflow;
  /** Cron tick number, or arrival slot number. */
  readonly slot: number;
  /** Position within the slot (0 for cron). */
  readonly index: number;
  readonly startedAt: number;
}

const BURST_PROBABILITY = 0.03;
const BURST_FACTOR = 8;
/** Mean rate multiplier of the bursts, divided out so that they do not change the average. */
const BURST_MEAN = 1 - BURST_PROBABILITY + BURST_PROBABILITY * BURST_FACTOR;
const BURST_SPAN = 20_000;
const MAX_PER_SLOT = 5000;
const CRON_LATENCY_MS = 900;

/** Relative traffic at an instant; averages 1 over a week. */
export function rhythm(kind: 'http' | 'log', time: number): number {
  const hour = (time % DAY) / HOUR;
  if (kind === 'log') return 1 + 0.25 * Math.cos((2 * Math.PI * (hour - 14)) / 24);
  const weekday = new Date(time).getUTCDay();
  const week = weekday === 0 || weekday === 6 ? 0.75 : 1.1;
  return week * (1 + 0.6 * Math.cos((2 * Math.PI * (hour - 15)) / 24));
}

/** Arrivals of one workflow with `from <= startedAt <= until`, in start order. */
export function* arrivals(
  world: World,
  workflow: SimWorkflow,
  from: number,
  until: number,
): Generator<Arrival> {
  const begin = Math.max(from, world.start, workflow.registeredAt);
  const { trigger } = workflow;
  if (trigger.kind === 'cron') {
    const interval = trigger.schedule.intervalMs;
    for (let slot = Math.ceil((begin - CRON_LATENCY_MS) / interval); slot * interval <= until; slot++) {
      const tick = slot * interval;
      const startedAt = tick + 20 + (mixKeys(world.seed, [STREAM.arrivals, workflow.index, slot]) % 880);
      if (startedAt < begin || tick < workflow.registeredAt || tick < world.start) continue;
      if (startedAt > until) return;
      if (isRunning(world, workflow, tick) && keeps(world, workflow, slot, 0))
        yield { workflow, slot, index: 0, startedAt };
    }
    return;
  }
  const width = trigger.slotMs;
  for (let slot = Math.floor(begin / width); slot * width <= until; slot++) {
    const times = slotArrivals(world, workflow, slot);
    for (let index = 0; index < times.length; index++) {
      const startedAt = times[index]!;
      if (startedAt < begin) continue;
      if (startedAt > until) return;
      if (isRunning(world, workflow, startedAt) && keeps(world, workflow, slot, index))
        yield { workflow, slot, index, startedAt };
    }
  }
}

/** The sorted start times of one slot of an event-driven workflow. */
function slotArrivals(world: World, workflow: SimWorkflow, slot: number): number[] {
  const trigger = workflow.trigger;
  if (trigger.kind === 'cron') return [];
  const width = trigger.slotMs;
  const slotStart = slot * width;
  const r = randomFor(world.seed, STREAM.arrivals, workflow.index, slot);
  const burst = r.chance(BURST_PROBABILITY);
  const mean =
    ((trigger.perMs * width * rhythm(trigger.kind, slotStart + width / 2)) / BURST_MEAN) *
    (burst ? BURST_FACTOR : 1);
  const count = Math.min(r.poisson(mean), MAX_PER_SLOT);
  const span = burst ? Math.min(BURST_SPAN, width) : width;
  const offset = burst ? r.between(0, width - span) : 0;
  const blockMs = workflow.chain.blockMs;
  const times = new Array<number>(count);
  for (let i = 0; i < count; i++) {
    let time = slotStart + offset + r.between(0, span);
    // A log trigger fires once the block holding the log is seen, up to a few seconds later.
    if (trigger.kind === 'log') time = Math.floor(time / blockMs) * blockMs + r.between(400, 3000);
    times[i] = Math.min(Math.floor(time), slotStart + width - 1);
  }
  return times.sort((a, b) => a - b);
}
