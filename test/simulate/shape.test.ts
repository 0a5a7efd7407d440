// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { incidentAt, isRunning, recordsBetween } from '../../src/simulate/index.js';
import { type Execution, index, smallWorld, UNTIL } from './world-fixture.js';

// A month, so that several incidents fall in it whatever the seeded generator draws.
const world = smallWorld({ workflows: 20, days: 30, executions: 40_000 });
const data = index([...recordsBetween(world, Number.NEGATIVE_INFINITY, UNTIL)]);
const finished = data.executions.filter((e) => e.finishedAt !== null);
const workflowOf = new Map(world.workflows.map((w) => [w.uuid, w]));
const failureRate = (executions: readonly Execution[]) =>
  executions.filter((e) => e.status === 'FAILURE').length / Math.max(executions.length, 1);

describe('simulated data', () => {
  it('holds exactly as many executions as planned', () => {
    assert.equal(data.executions.length, world.plan.executions);
    assert.equal(world.executionCount, world.plan.executions);
  });

  it('has lifelike workflows: unique names, 64-hex ids, 0x owners, a source', () => {
    assert.equal(data.workflows.length, 20);
    const workflows = data.workflows.filter((w) => w.type === 'workflow');
    assert.equal(new Set(workflows.map((w) => w.name)).size, 20);
    for (const workflow of workflows) {
      assert.match(workflow.workflowId, /^[0-9a-f]{64}$/);
      assert.match(workflow.ownerAddress, /^0x[0-9a-f]{40}$/);
      assert.match(workflow.name, /^[a-z0-9]+(-[a-z0-9]+)+$/);
      assert.match(workflow.workflowSource, /^(https:\/\/github\.com\/.+|cli)$/);
    }
  });

  it('makes failures spike during incidents', () => {
    const inside = finished.filter((e) =>
      incidentAt(world, workflowOf.get(e.workflowUUID)!, e.startedAt.getTime()),
    );
    const outside = finished.filter((e) => !inside.includes(e));
    assert.ok(inside.length >= 30, `only ${inside.length} executions during incidents`);
    assert.ok(failureRate(inside) > 0.3, `failure rate in incidents ${failureRate(inside)}`);
    assert.ok(failureRate(outside) < 0.08, `failure rate outside incidents ${failureRate(outside)}`);
    const systemShare =
      inside.filter((e) => e.classifiedStatus === 'SYSTEM_ERROR').length /
      inside.filter((e) => e.status === 'FAILURE').length;
    assert.ok(systemShare > 0.8, `incident failures should be system errors (share ${systemShare})`);
  });

  it('classifies outcomes: SUCCESS as such, failures as user or system errors', () => {
    for (const execution of finished) {
      if (execution.status === 'SUCCESS') {
        assert.equal(execution.classifiedStatus, 'SUCCESS');
        assert.equal(execution.errors, null);
      } else {
        assert.equal(execution.status, 'FAILURE');
        assert.ok(['USER_ERROR', 'SYSTEM_ERROR'].includes(execution.classifiedStatus!));
        assert.equal(execution.errors?.length, 1);
      }
      assert.ok(Number(execution.creditUsed) > 0, `credit ${execution.creditUsed}`);
    }
    const classes = new Set(finished.map((e) => e.classifiedStatus));
    assert.deepEqual([...classes].sort(), ['SUCCESS', 'SYSTEM_ERROR', 'USER_ERROR']);
  });

  it('gives every execution events and logs that agree with its outcome and lie within its run', () => {
    for (const execution of finished) {
      const from = execution.startedAt.getTime();
      const to = execution.finishedAt!.getTime();
      const events = [...(data.events.get(execution.uuid) ?? [])].sort((a, b) => +a.startedAt - +b.startedAt);
      const logs = data.logs.get(execution.uuid) ?? [];
      // A request refused by the HTTP trigger itself fails at the trigger: its only event.
      assert.ok(
        events.length >= (execution.status === 'SUCCESS' ? 2 : 1),
        'a trigger and the capabilities run',
      );
      assert.match(events[0]!.capabilityID, /-trigger@1\.0\.0$/);
      for (const [i, event] of events.entries()) {
        assert.ok(+event.startedAt >= from && +event.finishedAt! <= to, 'event within the execution');
        if (i > 0)
          assert.ok(+event.startedAt >= +events[i - 1]!.finishedAt!, 'events run one after the other');
      }
      for (const log of logs)
        assert.ok(+log.timestamp >= from && +log.timestamp <= to, 'log within the execution');
      assert.ok(new Set(logs.map((l) => l.nodeID)).size >= 2, 'logs from several nodes');
      const failed = events.filter((e) => e.status === 'FAILED');
      assert.ok(
        events.every((e) => e.status === 'FAILED' || e.status === 'COMPLETED'),
        'hosted call statuses',
      );
      const last = logs.reduce((a, b) => (+b.timestamp >= +a.timestamp ? b : a));
      if (execution.status === 'SUCCESS') {
        assert.equal(failed.length, 0);
        assert.match(last.message, /SUCCESS/);
      } else {
        assert.deepEqual(failed, [events.at(-1)], 'the failing capability ends the timeline');
        assert.equal(failed[0]!.errors![0]!.error, execution.errors![0]!.error);
        assert.ok(logs.some((l) => l.message.includes(execution.errors![0]!.error)));
        assert.match(last.message, new RegExp(`FAILURE \\(${execution.classifiedStatus}\\)`));
      }
    }
  });

  it('starts cron executions just after each tick of the schedule while the workflow is deployed', () => {
    const crons = world.workflows.filter((w) => w.trigger.kind === 'cron');
    assert.ok(crons.length >= 3);
    for (const workflow of crons) {
      if (workflow.trigger.kind !== 'cron') continue;
      const interval = workflow.trigger.schedule.intervalMs;
      const ticks = data.executions
        .filter((e) => e.workflowUUID === workflow.uuid)
        .map((e) => {
          const start = e.startedAt.getTime();
          assert.ok(
            start % interval < 1000,
            `${workflow.name} started ${start % interval} ms after its tick`,
          );
          return Math.floor(start / interval);
        });
      assert.equal(new Set(ticks).size, ticks.length, 'one execution per tick');
      let expected = 0;
      const first = Math.ceil(Math.max(world.start, workflow.registeredAt) / interval);
      for (let tick = first; (tick + 1) * interval < UNTIL; tick++) {
        if (isRunning(world, workflow, tick * interval)) expected++;
      }
      assert.equal(ticks.filter((t) => (t + 1) * interval < UNTIL).length, expected, workflow.name);
    }
  });

  it('runs executions only while the latest deployment is ACTIVE, with failed deploys that have no transaction', () => {
    const deployments = data.deployments.filter((d) => d.type === 'deployment');
    const failed = deployments.filter((d) => d.status === 'FAILED');
    assert.ok(failed.length > 0 && deployments.some((d) => d.status === 'PAUSED'));
    for (const deployment of failed) {
      assert.equal(deployment.txHash, null);
      assert.ok(deployment.errorMessage);
    }
    for (const execution of data.executions) {
      const latest = deployments
        .filter((d) => d.workflowUUID === execution.workflowUUID && +d.deployedAt <= +execution.startedAt)
        .reduce((a, b) => (+b.deployedAt > +a.deployedAt ? b : a));
      assert.equal(latest.status, 'ACTIVE');
    }
  });

  it('runs a share of executions in a TEE, by workflow', () => {
    for (const workflow of world.workflows) {
      const own = data.executions.filter((e) => e.workflowUUID === workflow.uuid);
      const share = own.filter((e) => e.executedInTee).length / Math.max(own.length, 1);
      if (workflow.teeShare === 1) assert.equal(share, 1);
      else if (workflow.teeShare === 0) assert.equal(share, 0);
      else if (own.length >= 20) assert.ok(share > 0.25 && share < 0.75, `share ${share}`);
    }
    const tee = data.executions.filter((e) => e.executedInTee).length;
    assert.ok(tee > 0 && tee < data.executions.length);
  });

  it('follows a daily rhythm for HTTP-triggered workflows', () => {
    const hourOf = (e: Execution) => e.startedAt.getUTCHours();
    const http = data.executions.filter((e) => workflowOf.get(e.workflowUUID)!.trigger.kind === 'http');
    const afternoon = http.filter((e) => hourOf(e) >= 12 && hourOf(e) < 18).length;
    const night = http.filter((e) => hourOf(e) < 6).length;
    assert.ok(afternoon > 1.8 * night, `afternoon ${afternoon}, night ${night}`);
  });
});
