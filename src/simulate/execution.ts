/**
 * One execution and its timeline. The trigger fires, then each capability of the workflow runs
 * in turn (events), and the nodes log what they do (logs). A failure stops the timeline at the
 * failing capability, whose event carries the error; the execution's status, classified status,
 * errors and credits follow from the same outcome. Every event and log line lies within
 * [startedAt, finishedAt]. Everything is drawn from the execution's own random stream, so the
 * same arrival always gives the same execution whatever the level of detail asked for.
 */
import type { EventRecord, ExecutionRecord, LogRecord } from '../ingest/records.js';
import type { Arrival } from './arrivals.js';
import { regressionAt } from './deployments.js';
import type { Failure } from './failures.js';
import { incidentAt } from './incidents.js';
import { type Random, randomFor } from './prng.js';
import {
  type Capability,
  DON_SIZE,
  QUORUM,
  STEP_CAPABILITIES,
  type Stage,
  TRIGGER_CAPABILITIES,
} from './vocabulary.js';
import { type SimWorkflow, STREAM, type World } from './world.js';

/** How much of the timeline to produce: events and every node's logs, events and a few logs, or neither. */
export type Detail = 'full' | 'compact' | 'none';
export const DETAILS: readonly Detail[] = ['full', 'compact', 'none'];

export interface SimExecution {
  readonly execution: ExecutionRecord;
  readonly startedAt: number;
  readonly finishedAt: number;
  /** Events and log lines, each in time order of when it becomes known (see `dueAt`). */
  readonly children: readonly (EventRecord | LogRecord)[];
}

/** No execution lasts longer than this (the longest timeouts included). */
export const MAX_EXECUTION_MS = 120_000;

/** Share of failures outside incidents that are the user's fault. */
const USER_SHARE = 0.55;

export function buildExecution(world: World, arrival: Arrival, detail: Detail): SimExecution {
  const { workflow, startedAt } = arrival;
  const r = randomFor(world.seed, STREAM.execution, workflow.index, arrival.slot, arrival.index);
  const organizationId = world.plan.organizationId;
  const uuid = r.uuid();
  const id = r.hex(64);
  const executedInTee = workflow.teeShare >= 1 || (workflow.teeShare > 0 && r.chance(workflow.teeShare));
  const regression = regressionAt(world, workflow, startedAt);
  const failure = outcome(world, r, workflow, startedAt, regression === 'errors');
  // A slower version takes 80% longer at every stage.
  const slowdown = regression === 'slower' ? 1.8 : 1;
  const context = { chain: workflow.chain, host: workflow.host, contract: workflow.contract };
  const error = failure?.message(r, context);
  const leader = world.nodes[r.int(DON_SIZE)]!;
  const events: EventRecord[] = [];
  const logs: LogRecord[] = [];
  // Lines are drawn whatever the detail, so that the random stream and thus the execution stay the same.
  const log = (nodeID: string, time: number, message: string, compact = false) => {
    if (detail === 'full' || (detail === 'compact' && compact)) {
      logs.push({
        type: 'log',
        organizationId,
        workflowExecutionUUID: uuid,
        nodeID,
        message,
        timestamp: new Date(time),
      });
    }
  };

  let time = startedAt;
  let microCredits = 0;
  const stages: Stage[] = ['trigger', ...workflow.template.steps];
  for (const stage of stages) {
    const capability =
      stage === 'trigger' ? TRIGGER_CAPABILITIES[workflow.trigger.kind] : STEP_CAPABILITIES[stage];
    const begin = stage === 'trigger' ? time : time + r.intBetween(2, 40);
    const failing = failure?.stage === stage;
    const duration =
      failing && failure.timeoutMs
        ? failure.timeoutMs + r.int(400)
        : Math.round(sampleDuration(r, capability) * slowdown);
    const end = begin + duration;
    microCredits += r.intBetween(capability.microCredits[0], capability.microCredits[1]);
    if (detail !== 'none') {
      events.push({
        type: 'event',
        organizationId,
        workflowExecutionUUID: uuid,
        capabilityID: capability.id,
        // The hosted platform's statuses of a capability call.
        status: failing ? 'FAILED' : 'COMPLETED',
        method: capability.method,
        startedAt: new Date(begin),
        finishedAt: new Date(end),
        errors: failing ? [{ error: error!, count: DON_SIZE }] : null,
      });
    }
    const message = stageMessage(r, workflow, stage, arrival, begin, duration);
    if (stage === 'compute') {
      // Every node runs the workflow's code and logs the same line, a few milliseconds apart.
      for (const [i, node] of world.nodes.entries()) {
        log(node, begin + Math.floor((duration * (i + 1)) / (DON_SIZE + 1)), message, node === leader);
      }
    } else if (!failing) {
      log(leader, end, message);
    }
    if (failing) {
      for (const [i, node] of world.nodes.entries()) {
        log(node, end - i, `${capability.id} ${capability.method} failed: ${error}`, node === leader);
      }
    }
    time = end;
    if (failing) break;
  }
  const finishedAt = time + r.intBetween(3, 25);
  const credits = formatMicroCredits(executedInTee ? Math.round(microCredits * 1.5) : microCredits);
  const seconds = ((finishedAt - startedAt) / 1000).toFixed(2);
  log(
    leader,
    finishedAt,
    failure
      ? `execution finished: FAILURE (${failure.classified}) after ${seconds}s`
      : `execution finished: SUCCESS in ${seconds}s, ${credits} credits`,
    true,
  );

  const execution: ExecutionRecord = {
    type: 'execution',
    organizationId,
    uuid,
    id,
    workflowUUID: workflow.uuid,
    status: failure ? 'FAILURE' : 'SUCCESS',
    classifiedStatus: failure ? failure.classified : 'SUCCESS',
    startedAt: new Date(startedAt),
    finishedAt: new Date(finishedAt),
    executedInTee,
    errors: failure ? [{ error: error!, count: DON_SIZE }] : null,
    creditUsed: credits,
  };
  const children = [...events, ...logs].sort((a, b) => dueAt(a) - dueAt(b));
  return { execution, startedAt, finishedAt, children };
}

/** Share of executions a regressing version fails. */
const REGRESSION_SHARE = 0.3;

/** The error a regressing version brings: a stage of the workflow's own template fails. */
const regressionFailure = (workflow: SimWorkflow): Failure => ({
  key: 'regression',
  stage: workflow.template.steps.at(-1) ?? 'trigger',
  classified: 'USER_ERROR',
  message: () => `decode response: unexpected field "roundId" (schema v${(workflow.index % 7) + 2})`,
});

/**
 * The failure an execution ends with, if any: incidents first, then a regressing version's error
 * (drawn from the same number, so the other draws stay as they were), then the workflow's own
 * failure rate.
 */
function outcome(
  world: World,
  r: Random,
  workflow: SimWorkflow,
  startedAt: number,
  regressing: boolean,
): Failure | undefined {
  const incident = incidentAt(world, workflow, startedAt);
  const hit = r.next();
  if (incident && hit < incident.severity) return incident.kind.failure;
  if (regressing && hit >= 1 - REGRESSION_SHARE) return regressionFailure(workflow);
  if (!r.chance(workflow.failureRate)) return undefined;
  const { user, system } = workflow.failures;
  const pool = user.length > 0 && (system.length === 0 || r.chance(USER_SHARE)) ? user : system;
  return pool.length > 0 ? r.pick(pool) : undefined;
}

function stageMessage(
  r: Random,
  workflow: SimWorkflow,
  stage: Stage,
  arrival: Arrival,
  begin: number,
  duration: number,
): string {
  const { chain, template } = workflow;
  switch (stage) {
    case 'trigger':
      if (workflow.trigger.kind === 'cron') {
        const tick = new Date(arrival.slot * workflow.trigger.schedule.intervalMs).toISOString();
        return `cron trigger fired for schedule "${workflow.trigger.schedule.expression}" (tick ${tick})`;
      }
      if (workflow.trigger.kind === 'http')
        return `http trigger accepted request ${r.hex(16)} (${r.intBetween(200, 4000)} bytes)`;
      return `log trigger matched ${template.logEvent ?? 'Transfer'} in block ${blockNumber(begin, chain.blockMs)} on ${chain.name} (tx 0x${r.hex(64)})`;
    case 'compute':
      return `[USER LOG] ${template.userLog(r, workflow.subject)}`;
    case 'http':
      return `GET https://${workflow.host}/v1/${workflow.subject} -> 200 OK in ${duration} ms`;
    case 'evmRead':
      return `read ${workflow.contract} on ${chain.name} at block ${blockNumber(begin, chain.blockMs)}`;
    case 'consensus':
      return `consensus reached: ${r.intBetween(QUORUM, DON_SIZE)}/${DON_SIZE} observations agree, report 0x${r.hex(16)}`;
    case 'evmWrite':
      return `report delivered to ${workflow.contract} on ${chain.name}: tx 0x${r.hex(64)}, gas used ${r.intBetween(48_000, 220_000)}`;
  }
}

function blockNumber(time: number, blockMs: number): number {
  return 20_000_000 + Math.floor((time - 1_700_000_000_000) / blockMs);
}

function sampleDuration(r: Random, capability: Capability): number {
  const value = Math.round(r.logNormal(capability.medianMs, capability.sigma));
  return Math.min(capability.maxMs, Math.max(capability.minMs, value));
}

/** Millionths of a credit as a decimal string without trailing zeros: 21300 -> "0.0213". */
export function formatMicroCredits(micro: number): string {
  const whole = Math.floor(micro / 1_000_000);
  const fraction = String(micro % 1_000_000)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}

/** When a line becomes known: an event when it finishes, a log line at its timestamp. */
export function dueAt(child: EventRecord | LogRecord): number {
  return child.type === 'log' ? child.timestamp.getTime() : (child.finishedAt ?? child.startedAt).getTime();
}

/** The execution as seen while it runs: started, not yet finished, nothing counted. */
export function inProgress(execution: ExecutionRecord): ExecutionRecord {
  return {
    ...execution,
    status: 'IN_PROGRESS',
    classifiedStatus: null,
    finishedAt: null,
    errors: null,
    creditUsed: null,
  };
}
