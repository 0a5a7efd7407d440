/**
 * Which arrivals become executions. Every arrival has a key: a hash of its identity under the
 * seed, then the identity itself, so that keys are distinct and their order is a fixed, random
 * shuffle. create-world.ts finds the bound under which exactly the planned number of arrivals in
 * [start, end] fall, and an arrival runs when its key is at most the bound of its kind. The test
 * looks at one arrival alone, so every time window, produced in any order, agrees with the whole
 * history, and arrivals after `end` (live mode) are kept in the same proportion.
 */
import { mixKeys } from './prng.js';
import { type ArrivalKey, type KeepBound, type SimWorkflow, STREAM, type World } from './world.js';

export function arrivalHash(world: World, workflow: number, slot: number, index: number): number {
  return mixKeys(world.seed, [STREAM.quota, workflow, slot, index]);
}

export function arrivalKey(world: World, workflow: number, slot: number, index: number): ArrivalKey {
  return { hash: arrivalHash(world, workflow, slot, index), workflow, slot, index };
}

/** Orders keys by hash, then workflow, slot and index: a total order, since identities are unique. */
export function compareKeys(a: ArrivalKey, b: ArrivalKey): number {
  return a.hash - b.hash || a.workflow - b.workflow || a.slot - b.slot || a.index - b.index;
}

/** The bound that applies to a workflow's arrivals: its trigger's kind. */
export function boundOf(world: World, workflow: SimWorkflow): KeepBound {
  return workflow.trigger.kind === 'cron' ? world.quota.cron : world.quota.event;
}

/** Whether the arrival `index` of `slot` (a cron tick, or an arrival slot) runs. */
export function keeps(world: World, workflow: SimWorkflow, slot: number, index: number): boolean {
  const bound = boundOf(world, workflow);
  if (bound === 'all') return true;
  if (bound === 'none') return false;
  return compareKeys(arrivalKey(world, workflow.index, slot, index), bound) <= 0;
}
