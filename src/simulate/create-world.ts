/**
 * A world that starts exactly the plan's executions in [start, end]. Arrivals are random (Poisson
 * slots, bursts, pauses), so their count over a window is not the plan's; instead, a draft world
 * is calibrated to a little more, its arrivals in [start, end] are counted, and a quota keeps
 * exactly the planned number of them (quota.ts). Cron ticks are kept whole and event-driven
 * arrivals fill the rest, as the draft's calibration intended; only when the plan is smaller
 * than the cron ticks alone (plus a 2% share of event-driven work) do crons skip ticks. A draft
 * with too few arrivals is recalibrated with more headroom; a world of cron workflows only takes
 * faster schedules until it ticks often enough, and holds fewer executions only when even one a
 * minute is not enough (`executionCount` says how many).
 *
 * Cost: the arrivals of [start, end] are enumerated twice (to count them, then to find the
 * bound); nothing is built and memory stays constant (a histogram of 65,536 bins per kind).
 */
import { arrivals } from './arrivals.js';
import { arrivalHash, arrivalKey, compareKeys } from './quota.js';
import { CRON_SCHEDULES } from './vocabulary.js';
import {
  type ArrivalKey,
  type DraftTuning,
  draftWorld,
  type KeepBound,
  type SimulationPlan,
  type SimWorkflow,
  type World,
} from './world.js';

/** Event-driven work keeps at least this share of the plan whenever a workflow can do it. */
const MIN_EVENT_SHARE = 0.02;
const MAX_DRAFTS = 24;
const BIN_SHIFT = 16;

type Kind = 'cron' | 'event';

interface Census {
  count: number;
  /** Arrivals by the top 16 bits of their key's hash. */
  readonly bins: Uint32Array;
}

const kindOf = (workflow: SimWorkflow): Kind => (workflow.trigger.kind === 'cron' ? 'cron' : 'event');

/** The arrivals of [start, end] of one kind, as workflow, slot and index. */
function* arrivalsOf(world: World, kind: Kind) {
  for (const workflow of world.workflows) {
    if (kindOf(workflow) === kind) yield* arrivals(world, workflow, world.start, world.end);
  }
}

function census(world: World, kind: Kind): Census {
  const result: Census = { count: 0, bins: new Uint32Array(1 << (32 - BIN_SHIFT)) };
  for (const { workflow, slot, index } of arrivalsOf(world, kind)) {
    result.count++;
    result.bins[arrivalHash(world, workflow.index, slot, index) >>> BIN_SHIFT]!++;
  }
  return result;
}

/** The bound that keeps exactly `target` of the counted arrivals (all of them if there are fewer). */
function boundFor(world: World, kind: Kind, counted: Census, target: number): KeepBound {
  if (target >= counted.count) return 'all';
  if (target <= 0) return 'none';
  let before = 0;
  let bin = 0;
  while (before + counted.bins[bin]! < target) before += counted.bins[bin++]!;
  const candidates: ArrivalKey[] = [];
  for (const { workflow, slot, index } of arrivalsOf(world, kind)) {
    const key = arrivalKey(world, workflow.index, slot, index);
    if (key.hash >>> BIN_SHIFT === bin) candidates.push(key);
  }
  return candidates.sort(compareKeys)[target - before - 1]!;
}

export function createWorld(plan: SimulationPlan): World {
  let tuning: DraftTuning = { eventHeadroom: 1, cronSpeedup: 0 };
  for (let draft = 1; ; draft++) {
    const world = draftWorld(plan, tuning);
    const crons = census(world, 'cron');
    const events = census(world, 'event');
    const eventTarget = world.workflows.some((w) => kindOf(w) === 'event')
      ? Math.min(
          plan.executions,
          Math.max(plan.executions - crons.count, Math.ceil(plan.executions * MIN_EVENT_SHARE)),
        )
      : 0;
    const cronTarget = plan.executions - eventTarget;
    if (draft < MAX_DRAFTS && events.count < eventTarget) {
      const short = eventTarget / Math.max(events.count, 1);
      tuning = { ...tuning, eventHeadroom: tuning.eventHeadroom * Math.max(1.5, 1.2 * short) };
      continue;
    }
    if (draft < MAX_DRAFTS && crons.count < cronTarget && tuning.cronSpeedup < CRON_SCHEDULES.length - 1) {
      tuning = { ...tuning, cronSpeedup: tuning.cronSpeedup + 1 };
      continue;
    }
    return {
      ...world,
      quota: {
        cron: boundFor(world, 'cron', crons, cronTarget),
        event: boundFor(world, 'event', events, eventTarget),
      },
      executionCount: Math.min(cronTarget, crons.count) + Math.min(eventTarget, events.count),
    };
  }
}
