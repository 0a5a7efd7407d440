// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recordsBetween, type World } from '../../src/simulate/index.js';
import { DAY, smallWorld, UNTIL } from './world-fixture.js';

/** Execution records of the history up to UNTIL: one per execution started in it. */
function executionsOf(world: World, after = Number.NEGATIVE_INFINITY, until = UNTIL): number {
  let count = 0;
  for (const record of recordsBetween(world, after, until, { detail: () => 'none' })) {
    if (record.type === 'execution') count++;
  }
  return count;
}

describe('the number of simulated executions', () => {
  it('is exactly the plan for any seed, size and length of history', () => {
    for (const [seed, workflows, days, executions] of [
      ['a', 20, 30, 2000],
      ['b', 12, 4, 8000],
      ['c', 5, 0.5, 777],
      ['d', 3, 1, 1],
      ['e', 20, 7, 25_000],
    ] as const) {
      const world = smallWorld({ seed, workflows, days, executions });
      assert.equal(executionsOf(world), executions, `${seed}: ${workflows} workflows, ${days} days`);
      assert.equal(world.executionCount, executions);
    }
  });

  it('is zero for a plan of zero, and cron workflows skip ticks when the plan is smaller than their ticks', () => {
    assert.equal(executionsOf(smallWorld({ executions: 0, days: 30 })), 0);
    const small = smallWorld({ executions: 40, workflows: 20, days: 30 });
    assert.ok(small.workflows.filter((w) => w.trigger.kind === 'cron').length >= 5);
    assert.equal(executionsOf(small), 40);
  });

  it('is the same whether the history is produced whole or in windows', () => {
    const world = smallWorld({ executions: 5000 });
    const cuts = [UNTIL - 3.5 * DAY, UNTIL - 2 * DAY, UNTIL - 7_777_777, UNTIL];
    let started = 0;
    let after = Number.NEGATIVE_INFINITY;
    for (const until of cuts) {
      for (const record of recordsBetween(world, after, until, { detail: () => 'none' })) {
        // An execution running across a cut appears twice: first IN_PROGRESS, then finished.
        if (record.type === 'execution' && record.startedAt.getTime() > after) started++;
      }
      after = until;
    }
    assert.equal(started, 5000);
  });

  it('gives a world of cron workflows only faster schedules, and says how many it holds when even one a minute is too few', () => {
    const cronOnly = (executions: number) => {
      for (const seed of ['3', '5', '10']) {
        const world = smallWorld({ seed, workflows: 1, days: 2, executions });
        if (world.workflows[0]!.trigger.kind === 'cron') return world;
      }
      throw new Error('no seed gives a cron workflow');
    };
    const reachable = cronOnly(2000);
    assert.equal(reachable.workflows[0]!.trigger.kind, 'cron');
    assert.equal(executionsOf(reachable), 2000);
    const tooMany = cronOnly(10_000);
    // Two days of one tick a minute, less any pause of the workflow.
    const perMinute = 2 * 1440 + 1;
    assert.ok(
      tooMany.executionCount <= perMinute && tooMany.executionCount > 0.9 * perMinute,
      `${tooMany.executionCount}`,
    );
    assert.equal(executionsOf(tooMany), tooMany.executionCount);
  });

  it('keeps executions coming after the history at about the planned rate', () => {
    const world = smallWorld({ executions: 20_000, workflows: 12, days: 14 });
    let live = 0;
    for (const record of recordsBetween(world, UNTIL, UNTIL + 7 * DAY, { detail: () => 'none' })) {
      if (
        record.type === 'execution' &&
        record.status !== 'IN_PROGRESS' &&
        record.startedAt.getTime() > UNTIL
      )
        live++;
    }
    const ratio = live / (20_000 / 2);
    assert.ok(ratio > 0.7 && ratio < 1.5, `a week after the history holds ${live} executions (${ratio})`);
  });
});
